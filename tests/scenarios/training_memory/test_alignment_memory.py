"""AlignmentMemoryScenario: the Llama-2-70B PPO entry by hand, KV-cache paths, edges, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (
    AlignmentMemoryScenario,
    Models,
    Q_,
    ScenarioInputError,
    Scenarios,
    TransformerWorkload,
)
from symbolic.scenarios.training_memory.alignment_memory import AlignmentMemoryScenario as Declared


def test_llama2_70b_ppo_by_hand():
    """P_pi = 7e10, P_c = 1.3e10; t·q = 32; KV = 2·80·8·128 values × 1024 tokens × 256 sequences × 2 B."""
    r = Scenarios.Llama2_70B_PpoAlignment.result
    pi, rho, rw, v = 16 * 7e10, 2 * 7e10, 2 * 1.3e10, 16 * 1.3e10
    ppo, dpo = pi + rho + rw + v, pi + rho
    kv = 2 * 80 * 8 * 128 * 1024 * 256 * 2
    expected = {"policy_state": pi, "reference_weights": rho, "reward_weights": rw, "value_state": v,
                "ppo_total": ppo, "dpo_total": dpo, "policy_per_device": pi / 32, "reference_per_device": rho / 32,
                "kv_cache": kv, "kv_per_device": kv / 32}
    for name, value in expected.items():
        assert getattr(r, name).to("byte").magnitude == pytest.approx(value, rel=1e-12), name
    assert r.ppo_total.to("byte").magnitude == pytest.approx(1.494e12, rel=1e-9)
    assert r.kv_cache.to("byte").magnitude == 85_899_345_920
    assert r.kv_per_device.to("byte").magnitude == pytest.approx(2.68435456e9, rel=1e-9)
    assert r.dpo_reduction == pytest.approx((ppo - dpo) / ppo, rel=1e-12) == pytest.approx(0.1566265060240964)
    assert r.model_parallel_devices == 32
    assert r.min_devices_for_ppo == 19 and isinstance(r.min_devices_for_ppo, int)  # ceil(1.494e12 / 8e10 = 18.675)


def test_device_memory_is_the_h100_figure_labelled_gb():
    """The entry reproduces the reference's 80 GB (the H100's 80 GiB magnitude relabelled); at the true
    80 GiB the fewest devices is ceil(1.494e12 / 85,899,345,920 = 17.39) = 18."""
    s = Scenarios.Llama2_70B_PpoAlignment
    assert s.device_memory == Q_(80, "GB")
    assert s.variant(device_memory=Q_(80, "GiB")).result.min_devices_for_ppo == 18


def test_whole_ratio_does_not_round_up():
    """The reference forms ppo/D in floating point and can land one above a whole ratio; ours is exact."""
    s = Scenarios.Llama2_70B_PpoAlignment.variant(device_memory=Q_(1.494e12 / 18, "byte"))
    assert s.result.min_devices_for_ppo == 18
    assert Scenarios.Llama2_70B_PpoAlignment.variant(device_memory=Q_(7.47e10, "byte")).result.min_devices_for_ppo == 20


def test_rollout_batch_for_10_gb_of_kv_per_device():
    """kv_per_device = 2·80·8·128 values × 1024 tokens × 2 B / 32 devices = 10,485,760 B per sequence."""
    from symbolic.analysis.solving import solve

    answer = solve(Scenarios.Llama2_70B_PpoAlignment, "rollout_sequences", "result.kv_per_device", Q_(10, "GB"))
    assert answer.values == [pytest.approx(1e10 / (2 * 80 * 8 * 128 * 1024 * 2 / 32), rel=1e-12)]  # 953.67


def test_without_device_memory_the_minimum_is_none():
    assert Scenarios.Llama2_70B_PpoAlignment.variant(device_memory=None).result.min_devices_for_ppo is None


def test_bare_device_memory_is_gb_not_bits():
    """The reference reads a bare 80 as 80 bits (149,400,000,000 devices); ours reads GB."""
    assert Scenarios.Llama2_70B_PpoAlignment.variant(device_memory=80).result.min_devices_for_ppo == 19


def test_latent_attention_cache_and_data_parallel_degree():
    deepseek = Scenarios.Llama2_70B_PpoAlignment.variant(policy=Models.Language.DeepSeek_V3)
    assert deepseek.result.kv_cache.to("byte").magnitude == 61 * (512 + 64) * 1024 * 256 * 2
    assert Scenarios.Llama2_70B_PpoAlignment.variant(dp_size=1).result.ppo_total == \
        Scenarios.Llama2_70B_PpoAlignment.result.ppo_total
    assert Scenarios.Llama2_70B_PpoAlignment.variant(rollout_tokens=0).result.kv_cache.to("byte").magnitude == 0


@pytest.mark.parametrize("name, value", [("rollout_sequences", 0), ("rollout_tokens", -1), ("tp_size", 0),
                                         ("pp_size", 0), ("device_memory", 0)])
def test_bad_inputs_are_rejected(name, value):
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.Llama2_70B_PpoAlignment.variant(**{name: value})


def test_policy_must_be_a_transformer_with_its_attention_shape():
    """The reference silently takes 4096 and 32 for a missing width or head count; ours refuses."""
    with pytest.raises(ScenarioInputError, match="policy"):
        Scenarios.Llama2_70B_PpoAlignment.variant(policy=Models.Vision.ResNet50)
    no_heads = TransformerWorkload(name="Hypothetical 8B", parameters=8e9, layers=32, hidden_dim=4096)
    with pytest.raises(ScenarioInputError, match="heads"):
        Scenarios.Llama2_70B_PpoAlignment.variant(policy=no_heads)
    assert Scenarios.Llama2_70B_PpoAlignment.variant(critic=Models.Vision.ResNet50).result.reward_weights.to(
        "byte").magnitude == pytest.approx(2 * 25_557_032)


@settings(max_examples=40, deadline=None)
@given(p=st.floats(1e6, 1e12), c=st.floats(1e6, 1e12), L=st.integers(1, 128), h=st.integers(64, 16384),
       a=st.sampled_from([1, 8, 32, 64]), t=st.integers(1, 16), q=st.integers(1, 16), B=st.integers(1, 1024),
       T=st.integers(0, 10**5), D=st.none() | st.floats(1, 1000))
def test_evaluator_equals_exact_sympy(p, c, L, h, a, t, q, B, T, D):
    # a width of whole heads (a record whose width is not a multiple of its heads is refused)
    policy = TransformerWorkload(name="policy", parameters=p, layers=L, hidden_dim=a * (h // a), heads=a)
    critic = TransformerWorkload(name="critic", parameters=c, layers=1)
    s = AlignmentMemoryScenario(policy=policy, critic=critic, tp_size=t, pp_size=q, rollout_sequences=B,
                                rollout_tokens=T, device_memory=D)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
