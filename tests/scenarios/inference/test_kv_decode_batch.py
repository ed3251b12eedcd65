"""KvDecodeBatchScenario: GPT-2 XL's chat decode on an H100 by hand, clamped batches, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, InfeasibleError, KvDecodeBatchScenario, Models, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.inference.kv_decode_batch import KvDecodeBatchScenario as Declared

W = 1.5e9 * 2  # GPT-2 XL weights at 2 B
M = 2 * 48 * 25 * 64 * 2 * 1024  # one sequence's cache: 307,200 B/token × 1024 tokens
BW = 3.35e12  # H100 bytes/s
CAP = 80 * 2**30  # H100, true capacity


def test_chat_decode_entry_by_hand():
    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    assert s.weights.to("GB").magnitude == pytest.approx(3.0, rel=1e-15)
    assert s.kv_per_token.to("byte").magnitude == 307200
    assert s.kv_per_sequence.to("MB").magnitude == pytest.approx(314.5728, rel=1e-15)
    assert s.bandwidth == Q_(3.35, "TB/s")
    assert s.rate_ceiling.to("1/s").magnitude == pytest.approx(BW / M, rel=1e-15)
    assert s.rate_ceiling.to("1/s").magnitude == pytest.approx(10649.363199869793, rel=1e-12)
    assert s.max_batch_in_memory == (CAP - W) // M == 263
    assert [s.max_batch_within(t) for t in (5, 20, 50)] == [(t * BW - W) // M for t in (5e-3, 20e-3, 50e-3)]
    assert [s.max_batch_within(Q_(t, "ms")) for t in (5, 20, 50)] == [43, 203, 522]
    assert s.max_batch_within(tpot=Q_(0.02, "s")) == 203 and type(s.max_batch_within(20)) is int
    assert s.peak_rate.to("TFLOP/s").magnitude == pytest.approx(989.0, rel=1e-15)
    assert s.ridge.to("flop/byte").magnitude == pytest.approx(989e12 / BW, rel=1e-15)
    assert s.prefill_ops.to("flop").magnitude == pytest.approx(3e9 * 512, rel=1e-15)  # stated 3e9 flop/token
    assert s.prefill_time.to("ms").magnitude == pytest.approx(1.536e12 / (989e12 * 0.4) * 1e3, rel=1e-12)
    assert s.prefill_time.to("ms").magnitude == pytest.approx(3.882709807886754, rel=1e-12)


@pytest.mark.parametrize(("batch", "gb", "ms", "rate", "share"), [
    (1, 3.3145728, 0.9894247164179105, 1010.6883155500461, 0.09490598607458553),
    (8, 5.5165824, 1.6467410149253732, 4858.080249104953, 0.45618504674198285),
    (32, 13.0663296, 3.900396895522388, 8204.293269932514, 0.7704022405802468),
    (64, 23.1326592, 6.905271402985075, 9268.281616321914, 0.870313223652212),
    (128, 43.2653184, 12.915020417910448, 9910.940583763277, 0.9306603970352383),
])
def test_each_batch_by_hand(batch, gb, ms, rate, share):
    """W + B·m bytes; over β; B per step time; B·m over the step's bytes (spec §12.6): methods of the batch size."""
    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    step = W + batch * M
    assert s.step_bytes(batch).to("GB").magnitude == pytest.approx(step / 1e9, rel=1e-15) == pytest.approx(gb)
    assert s.step_time(batch).to("ms").magnitude == pytest.approx(step / BW * 1e3, rel=1e-12)
    assert s.step_time(batch).to("ms").magnitude == pytest.approx(ms, rel=1e-12)
    assert s.token_rate(batch).to("1/s").magnitude == pytest.approx(rate, rel=1e-12)
    assert s.cache_share(batch) == pytest.approx(batch * M / step, rel=1e-12) == pytest.approx(share, rel=1e-12)


def test_a_batch_is_a_value_not_a_position():
    """step_bytes(1) is batch 1 (W + m = 3.3145728 GB), whatever batch_sizes lists; a step of no sequence
    reads the weights alone (W/β = 3e9/3.35e12 s = 0.8955... ms) and generates nothing."""
    s = Scenarios.Gpt2XlChatDecodeBatchesH100.variant(batch_sizes=[64, 1])
    assert s.step_bytes(1).to("GB").magnitude == pytest.approx((W + M) / 1e9, rel=1e-15)
    assert s.step_time(0).to("ms").magnitude == pytest.approx(W / BW * 1e3, rel=1e-12)
    assert s.token_rate(0).magnitude == 0 and s.cache_share(0) == 0
    with pytest.raises(TypeError):
        s.step_bytes[1]  # a method, not a list read by position
    with pytest.raises(ScenarioInputError, match="step_bytes: argument 'b' got -1; expected an integer ≥ 0"):
        s.step_bytes(-1)


def test_reference_construction_needs_no_budgets():
    """The reference's own keywords build it (no tpot_budgets); batches are kept for callers."""
    s = KvDecodeBatchScenario(workload=Models.Language.GPT2, hardware=Hardware.Cloud.H100,
                              weight_bytes_per_param=Q_(2, "byte"), kv_bytes_per_value=Q_(2, "byte"),
                              context_tokens=1024, batch_sizes=[1, 8], prompt_tokens=512, prefill_efficiency=0.4)
    entry = Scenarios.Gpt2XlChatDecodeBatchesH100.variant(batch_sizes=[1, 8])  # states peak_precision fp16_dense
    assert s.peak_precision == "fp16|bf16|peak" and s.evaluate() == entry.evaluate()  # fp16 reads fp16_dense
    assert s.variant(peak_precision="fp16_dense") == entry
    assert s.batch_sizes == [1, 8] and s.max_batch_within(5) == 43


def test_array_arguments_broadcast():
    import numpy as np

    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    rates = s.token_rate(np.array([1, 8, 128])).to("1/s").magnitude
    assert rates.tolist() == pytest.approx([1010.6883155500461, 4858.080249104953, 9910.940583763277], rel=1e-12)


def test_a_batch_whose_caches_do_not_fit_is_refused():
    """max_batch_in_memory = ⌊(85,899,345,920 − 3e9)/314,572,800⌋ = ⌊263.53⌋ = 263: b = 263 needs
    3e9 + 263·314,572,800 = 85,732,646,400 B ≤ 85,899,345,920 B and runs; b = 264 needs
    86,047,219,200 B and does not (the reference prices it, 86.0472192e9/3.35e12 s = 25.69 ms)."""
    import numpy as np

    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    assert s.max_batch_in_memory == 263
    assert s.batch_fits(263) is True and s.batch_fits(264) is False
    assert s.batch_fits_need(263).to("B").magnitude == pytest.approx(85_732_646_400, rel=1e-15)
    assert s.batch_fits_have.to("B").magnitude == CAP
    assert s.step_time(263).to("ms").magnitude == pytest.approx(85_732_646_400 / BW * 1e3, rel=1e-12)  # 25.59 ms
    assert s.step_bytes(264).to("B").magnitude == pytest.approx(86_047_219_200, rel=1e-15)  # what must fit: shown
    for method in ("step_time", "token_rate", "cache_share"):
        with pytest.raises(InfeasibleError, match=rf"'{method}\(b=264\)' does not exist.*caches must fit.*needs "
                                                  r"86.0472 GB and has 85.8993 GB.*context_tokens=1024"):
            getattr(s, method)(264)
    times = s.step_time(np.array([1, 263, 264, 1000])).to("ms").magnitude
    assert times[:2].tolist() == pytest.approx([(W + M) / BW * 1e3, 85_732_646_400 / BW * 1e3], rel=1e-12)
    assert np.isnan(times[2]) and np.isnan(times[3])
    assert s.batch_fits([263, 264]).tolist() == [True, False]
    assert s.evaluate()["batch_fits"] is None  # a property of a call, not of the instance
    # a longer context lowers the limit: 4096 tokens, m = 1,258,291,200 B: ⌊82,899,345,920/m⌋ = 65
    long = s.variant(context_tokens=4096)
    assert long.max_batch_in_memory == 65 and long.batch_fits(65) and not long.batch_fits(66)
    with pytest.raises(InfeasibleError, match=r"token_rate\(b=66\).*context_tokens=4096"):
        long.token_rate(66)


def test_weights_that_do_not_fit_give_no_batch_not_a_negative_one():
    """Llama-3-70B at FP16 (141.2 GB) on an 80 GiB H100: the reference says −165 and −222; we say 0."""
    s = Scenarios.Gpt2XlChatDecodeBatchesH100.variant(workload=Models.Language.Llama3_70B)
    assert s.max_batch_in_memory == 0
    m = 327680 * 1024
    assert [s.max_batch_within(t) for t in (5, 20, 50)] == [0, 0, (50e-3 * BW - 1.412e11) // m] == [0, 0, 78]
    assert (CAP - 1.412e11) // m == -165 and (20e-3 * BW - 1.412e11) // m == -222  # what the reference returns


def test_the_peak_key_must_be_listed_by_the_node():
    with pytest.raises(ScenarioInputError, match="fp16_dense"):
        Scenarios.Gpt2XlChatDecodeBatchesH100.variant(hardware=Hardware.Cloud.H200)
    with pytest.raises(ScenarioInputError, match="prefill_efficiency"):
        Scenarios.Gpt2XlChatDecodeBatchesH100.variant(prefill_efficiency=1.2)


def test_context_at_which_the_rate_ceiling_falls_to_5000_per_second():
    """β/(307,200 B · S) = 5000/s at S = 3.35e12 / (307200 · 5000) = 2181.0 tokens."""
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "context_tokens", "rate_ceiling", 5000, Scenarios.Gpt2XlChatDecodeBatchesH100._args)
    assert solution.values == [pytest.approx(BW / (307200 * 5000), rel=1e-12)]


@settings(max_examples=30, deadline=None)
@given(s=st.integers(1, 10**5), n=st.integers(1, 10**4), eta=st.floats(0.01, 1),
       batches=st.lists(st.integers(1, 4096), min_size=1, max_size=5),
       batch=st.integers(0, 4096), budget=st.floats(1e-1, 1e3),
       model=st.sampled_from(["GPT2", "Llama3_8B", "Llama3_70B", "DeepSeek_V3"]))
def test_evaluator_equals_exact_sympy(s, n, eta, batches, batch, budget, model):
    from generated.kv_decode_batch import evaluate

    scenario = KvDecodeBatchScenario(
        workload=getattr(Models.Language, model), hardware=Hardware.Cloud.H100, weight_bytes_per_param=2,
        kv_bytes_per_value=1, context_tokens=s, batch_sizes=batches, prompt_tokens=n, prefill_efficiency=eta)
    assert_matches_exact(flatten(scenario._evaluated()), exact_outputs(Declared.model, scenario._args))
    with_arguments = {**scenario._args, "b": batch, "tpot": budget}
    values = evaluate(**with_arguments)  # the methods: the evaluator with their arguments
    assert scenario.max_batch_within(budget) == values["max_batch_within"]
    if scenario.fits and values["batch_fits"]:  # weights (Llama-3-70B, DeepSeek-V3 at 2 bytes) or weights and
        assert scenario.step_time(batch).magnitude == values["step_time"]  # caches beyond 80 GiB do not run
    else:
        match = "the weights must fit" if not scenario.fits else r"step_time\(b=.*caches must fit"
        with pytest.raises(InfeasibleError, match=match):
            scenario.step_time(batch)
    assert_matches_exact(flatten(values), exact_outputs(Declared.model, with_arguments))


def test_the_page_says_where_the_reference_differs():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "generated/docs/scenarios/KvDecodeBatchScenario.md").read_text()
    section = page.split("## Differs from the reference library", 1)[1].split("\n## ", 1)[0]
    for name in ("max_batch_within", "max_batch_in_memory", "batch_sizes"):
        assert f"- `{name}`:" in section


def test_a_batch_size_of_interest_beyond_memory_gets_no_rate():
    """GPT-2 XL on an H100, 1024 tokens: a sequence's cache is 48·1600·2·2·1024 = 314,572,800 B beside 3e9 B of
    weights, so 263 sequences fit (85,732,646,400 B ≤ 85,899,345,920 B) and 264 do not (86,047,219,200 B)."""
    from generated import Scenarios
    from symbolic.runtime.errors import InfeasibleError

    base = Scenarios.Gpt2XlChatDecodeBatchesH100
    fits = base.variant(batch_sizes=[1, 263])
    assert fits.batches_fit and fits.largest_batch == 263
    assert fits.batches_fit_need.to("byte").magnitude == pytest.approx(85_732_646_400)
    # 263 / (85,732,646,400 B / 3.35e12 B/s) = 10,276.95 tokens/s
    assert fits.batch_token_rates[263].to("1/s").magnitude == pytest.approx(263 * 3.35e12 / 85_732_646_400)
    too_many = base.variant(batch_sizes=[1, 8, 264])
    assert not too_many.batches_fit
    assert too_many.batches_fit_need.to("byte").magnitude == pytest.approx(86_047_219_200)
    with pytest.raises(InfeasibleError, match=r"'batch_token_rates' does not exist .* needs 86\.0472 GB and has "
                                              r"85\.8993 GB"):
        _ = too_many.batch_token_rates
    assert too_many.token_rate(8).to("1/s").magnitude == pytest.approx(4858.080249104953)  # a batch that fits
