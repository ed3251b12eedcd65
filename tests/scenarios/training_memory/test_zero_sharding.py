"""ZeroShardingScenario: both registry entries by hand (Rajbhandari et al.), strategies, edges, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten, table_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (
    ActivationMemoryScenario,
    MissingInputError,
    Models,
    Q_,
    ScenarioInputError,
    Scenarios,
    TransformerWorkload,
    ZeroShardingScenario,
)
from symbolic.analysis.solving import solve
from symbolic.scenarios.training_memory.zero_sharding import ZeroShardingScenario as Declared

STAGES = ("DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3")


def _stages_by_hand(P: float, n: int) -> dict[str, float]:
    """W = G = 2P bytes, O = 12P bytes, in GB: 16P, 4P + 12P/n, 2P + 14P/n, 16P/n bytes."""
    w, opt = 2 * P / 1e9, 12 * P / 1e9
    return {"DDP": w + w + opt, "ZeRO-1": w + w + opt / n, "ZeRO-2": w + (w + opt) / n, "ZeRO-3": (w + w + opt) / n}


def test_gpt3_zero3_on_64_by_hand():
    """P = 1.75e11, n = 64; activations of one 2,048-token GPT-3 sequence under full recomputation:
    L·2·s·b·h·p/2 = 96 × 2 × 2048 × 1 × 12288 B; NDR 400 Gb/s = 50 GB/s."""
    r = Scenarios.Gpt3Zero3On64.result
    stages = _stages_by_hand(1.75e11, 64)
    spec = {"DDP": 2800.0, "ZeRO-1": 732.8125, "ZeRO-2": 388.28125, "ZeRO-3": 43.75}
    for stage in STAGES:
        assert r.stage_state[stage].to("GB").magnitude == pytest.approx(stages[stage], rel=1e-12) == spec[stage]
    assert r.weights.to("GB").magnitude == r.gradients.to("GB").magnitude == pytest.approx(350.0, rel=1e-12)
    assert r.optimizer_state.to("GB").magnitude == pytest.approx(2100.0, rel=1e-12)
    full = 96 * 2 * 2048 * 1 * 12288 / 1e9
    assert r.activations.to("GB").magnitude == pytest.approx(full, rel=1e-12)
    assert r.activations.to("GB").magnitude == pytest.approx(4.831838208000001, rel=1e-9)
    assert r.zero3_total_per_device.to("GB").magnitude == pytest.approx(43.75 + full, rel=1e-12)
    assert r.zero3_total_per_device.to("GB").magnitude == pytest.approx(48.581838208, rel=1e-9)
    assert r.gather_traffic.to("GB").magnitude == pytest.approx(3 * 350.0, rel=1e-12)
    assert r.gather_time.to("s").magnitude == pytest.approx(1050.0 / 50.0, rel=1e-12) == 21.0
    assert r.traffic_multiple == {"DDP": 1, "ZeRO-1": 1, "ZeRO-2": 1, "ZeRO-3": 1.5}


def test_llama2_7b_stages_without_activations_or_link():
    """P = 7e9, n = 64: no activation scenario gives 0 GB of activations (the reference's int 0), and no
    link bandwidth gives no gather time (None, as the reference)."""
    r = Scenarios.Llama2_7B_ZeroStages64.result
    stages = _stages_by_hand(7e9, 64)
    spec = {"DDP": 112.0, "ZeRO-1": 29.3125, "ZeRO-2": 15.53125, "ZeRO-3": 1.75}
    for stage in STAGES:
        assert r.stage_state[stage].to("GB").magnitude == pytest.approx(stages[stage], rel=1e-12) == spec[stage]
    assert r.weights.to("GB").magnitude == 14.0 and r.optimizer_state.to("GB").magnitude == 84.0
    assert r.activations.to("GB").magnitude == 0
    assert r.zero3_total_per_device.to("GB").magnitude == pytest.approx(1.75, rel=1e-12)
    assert r.gather_traffic.to("GB").magnitude == pytest.approx(42.0, rel=1e-12)
    assert r.gather_time is None


def test_the_strategy_picks_the_activation_scenarios_table_entry():
    """GPT-3 at one sequence: selective 34·s·b·h·L, none adds 5·a·s²·b·L (bytes at 16 bits)."""
    L, h, a, s, b = 96, 12288, 96, 2048, 1
    selective, score = 34 * s * b * h * L, 5 * a * s * s * b * L
    entry = Scenarios.Gpt3Zero3On64
    for strategy, expected in (("selective", selective), ("none", selective + score), ("full", 2 * s * b * h * L)):
        got = entry.variant(activation_strategy=strategy).result.activations.to("byte").magnitude
        assert got == pytest.approx(expected, rel=1e-12), strategy
    assert entry.variant(activation_strategy="selective").result.activations.to("byte") == \
        Scenarios.Gpt3ActivationsMicrobatch1.activations["selective"]


def test_fewest_devices_whose_zero3_shard_fits_80_gib():
    """16P/n = 80 GiB: n = 16 × 1.75e11 / 85,899,345,920 = 32.6, so 33 devices for GPT-3; 1.3 for Llama-2-7B."""
    gpt3 = solve(Scenarios.Gpt3Zero3On64, "n_devices", "result.stage_state[ZeRO-3]", Q_(80, "GiB"))
    assert gpt3.values == [pytest.approx(16 * 1.75e11 / (80 * 2**30), rel=1e-12)]
    llama = solve(Scenarios.Llama2_7B_ZeroStages64, "n_devices", "result.stage_state[ZeRO-3]", Q_(80, "GiB"))
    assert llama.values == [pytest.approx(16 * 7e9 / (80 * 2**30), rel=1e-12)]


@pytest.mark.parametrize("name, value", [("n_devices", 0), ("n_devices", -64), ("link_bandwidth", 0),
                                         ("activation_strategy", "bogus")])
def test_bad_inputs_are_rejected(name, value):
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.Gpt3Zero3On64.variant(**{name: value})


def test_workloads_and_activation_scenarios_are_checked():
    entry = Scenarios.Llama2_7B_ZeroStages64
    with pytest.raises(ScenarioInputError, match="parameters"):
        entry.variant(workload=Models.Recommendation.DLRM)
    resnet = entry.variant(workload=Models.Vision.ResNet50)  # any workload with a parameter count works
    assert resnet.result.stage_state["DDP"].to("byte").magnitude == pytest.approx(16 * 25_557_032, rel=1e-12)
    with pytest.raises(ScenarioInputError, match="activations"):
        entry.variant(activations=Scenarios.Gpt3TrainingStateTp8)
    no_context = ActivationMemoryScenario(workload=Models.Language.Llama2_7B, micro_batch=1)
    with pytest.raises(MissingInputError, match="'activations' cannot give its 'activations\\[none\\]'.*seq_len"):
        entry.variant(activations=no_context)
    assert entry.variant(link_bandwidth=50).result.gather_time.to("s").magnitude == pytest.approx(42.0 / 50)


@settings(max_examples=30, deadline=None)
@given(p=st.floats(1e6, 1e13), n=st.integers(1, 4096), beta=st.none() | st.floats(0.1, 1e4),
       with_activations=st.booleans(), strategy=st.sampled_from(["none", "selective", "full"]),
       b=st.integers(1, 64), s=st.integers(1, 8192))
def test_evaluator_equals_exact_sympy(p, n, beta, with_activations, strategy, b, s):
    workload = TransformerWorkload(name="custom", parameters=p, layers=4, hidden_dim=512, heads=8)
    activations = ActivationMemoryScenario(workload=workload, micro_batch=b, seq_len=s) if with_activations else None
    z = ZeroShardingScenario(workload=workload, n_devices=n, activations=activations, activation_strategy=strategy,
                             link_bandwidth=beta)
    got = table_paths(flatten(z.evaluate()), {"stage_state", "traffic_multiple"})
    assert_matches_exact(got, exact_outputs(Declared.model, z._args))
