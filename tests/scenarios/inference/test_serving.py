"""ServingScenario: the reference entry by hand, a fitting batch, other nodes and widths, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (Hardware, InfeasibleError, MissingInputError, Models, ScenarioInputError, Scenarios, ServingScenario,
                       TransformerWorkload)
from symbolic.scenarios.inference.serving import ServingScenario as Declared

P, L, D, H, KV_HEADS, HEAD = 7.06e10, 80, 8192, 64, 8, 128  # Llama-3.1-70B (catalog)
PEAK, BW, CAP, TAU = 989e12, 3.35e12, 80 * 2**30, 0.01e-3  # H100: flop/s, byte/s, byte, s


def test_llama3_70b_on_h100_by_hand():
    """S = 2048, B = 1, b = 2 B: prefill (2PS + 4·L·H·⌊d/H⌋·S²)/(989e12 · 0.5) + 0.01 ms;
    KV = 2·L·a_kv·d_h·S·b; itl = (P·b + KV)/β + 80 · 0.01 ms (inference.md §3, §12.2)."""
    entry = Scenarios.Llama3_70B_ServingH100
    r = entry.result
    raw = entry._evaluated()["result"]  # it does not fit: the times are the evaluator's numbers, refused as outputs
    s = 2048
    flops = 2 * P * s + 4 * L * H * (D // H) * s * s
    assert raw["ttft"] == pytest.approx((flops / (PEAK * 0.5) + TAU) * 1e3, rel=1e-12)
    assert raw["ttft"] == pytest.approx(607.0326820581598, rel=1e-12)
    kv = 2 * L * KV_HEADS * HEAD * s * 2
    assert r.kv_cache_size.to("GB").magnitude == pytest.approx(kv / 1e9, rel=1e-15) == pytest.approx(0.67108864)
    assert r.model_weights_size.to("GB").magnitude == pytest.approx(141.20000000000002, rel=1e-12)
    total = P * 2 + kv
    assert r.total_memory_required.to("GB").magnitude == pytest.approx(141.87108864, rel=1e-12)
    assert raw["itl"] == pytest.approx((total / BW + L * 0.01e-3) * 1e3, rel=1e-12)
    assert raw["itl"] == pytest.approx(43.14957869850746, rel=1e-12)
    assert r.memory_utilization == pytest.approx(total / CAP, rel=1e-12) == pytest.approx(1.6515968441963196)
    assert r.feasible is False and entry.fits is False
    assert entry.fits_need.to("GB").magnitude == pytest.approx(total / 1e9, rel=1e-12)
    for output in ("ttft", "itl"):
        with pytest.raises(InfeasibleError, match=r"needs 141\.871 GB and has 85\.8993 GB"):
            getattr(r, output)
    assert r.prompt_cache_hit_ratio == 0 and r.prefill_chunks == 1


def test_a_model_that_fits_and_other_widths_and_nodes():
    base = Scenarios.Llama3_70B_ServingH100
    small = base.variant(workload=Models.Language.Llama3_8B, batch_size=4)
    assert small.result.feasible is True and small.result.memory_utilization < 1
    int8 = base.variant(precision="INT8")
    assert int8.result.model_weights_size.to("GB").magnitude == pytest.approx(70.6, rel=1e-12)
    assert int8.result.feasible is True  # 70.6 GB + 0.34 GB of cache in 85.9 GB
    orin = base.variant(hardware=Hardware.Edge.JetsonAGXOrin, precision="int4")  # Orin's fp16 key, 43 TFLOP/s, 0.2 ms
    flops = 2 * P * 2048 + 4 * L * H * (D // H) * 2048**2
    assert orin.fits is True  # 35.3 GB of weights and 0.17 GB of cache in 64 GiB
    assert orin.result.ttft.to("s").magnitude == pytest.approx(flops / (43e12 * 0.5) + 0.2e-3, rel=1e-12)
    for name, bad in (("seq_len", 0), ("batch_size", 0), ("precision", "fp16_dense")):
        with pytest.raises(ScenarioInputError, match=name):
            base.variant(**{name: bad})
    headless = TransformerWorkload(name="No heads stated", parameters=1e9, layers=2, hidden_dim=1024)
    with pytest.raises(MissingInputError, match="heads"):  # the reference assumes 32 heads
        base.variant(workload=headless)


def test_the_largest_batch_question():
    """Weights 141.2 GB already exceed the H100, so memory_utilization = 1 has no positive batch; on a smaller
    model it is (cap − W)/kv_per_request."""
    from symbolic.analysis.solving import solve

    llama8 = Scenarios.Llama3_70B_ServingH100.variant(workload=Models.Language.Llama3_8B)
    answer = solve(llama8, "batch_size", "result.memory_utilization", 1)
    kv = 2 * 32 * 8 * 128 * 2048 * 2
    assert answer.values == [pytest.approx((CAP - 8.03e9 * 2) / kv, rel=1e-9)]


@settings(max_examples=40, deadline=None)
@given(s=st.integers(1, 2**17), b=st.integers(1, 256), width=st.sampled_from(["fp32", "fp16", "int8", "int4"]),
       model=st.sampled_from(["Llama3_8B", "Llama3_70B", "GPT2", "Llama2_70B"]))
def test_evaluator_equals_exact_sympy(s, b, width, model):
    scenario = ServingScenario(workload=getattr(Models.Language, model), hardware=Hardware.Cloud.H100, seq_len=s,
                               batch_size=b, precision=width)
    assert_matches_exact(flatten(scenario._evaluated()), exact_outputs(Declared.model, scenario._args), rel=1e-9)


def test_the_prompt_length_question():
    """ttft = 1 s would be the positive root of 4·L·H·⌊d/H⌋·S² + 2P·S = (1 s − τ)·R·η (3299.92 tokens), but Llama-3-70B's
    16-bit weights alone (2 B·70.6e9 = 141.2 GB) exceed the H100's 80 GiB = 85.9 GB at every prompt length: the
    question is refused (#24), not priced."""
    from generated import InfeasibleError, Q_
    from symbolic.analysis.solving import solve

    with pytest.raises(InfeasibleError, match="fails at every solution \\(3299.92\\)"):
        solve(Scenarios.Llama3_70B_ServingH100, "seq_len", "result.ttft", Q_(1, "s"))
    assert Scenarios.Llama3_70B_ServingH100.variant(seq_len=1).fits_need.to("GB").magnitude > 141.2


def test_the_flagship_entry_that_runs_at_fp8():
    """S = 2048 at 1 byte on one H100 (issue 42: the FP16 entry does not fit): prefill (2PS + 4·L·H·⌊d/H⌋·S²) =
    2.89178e14 + 1.09951e13 FLOPs at 1979e12 · 0.5, + 0.01 ms = 303.368 ms; KV 2·80·8·128·2048·1 = 335.54 MB;
    itl = (70.6e9 + 3.3554e8) / 3.35e12 + 80 · 0.01 ms = 21.9748 ms."""
    entry = Scenarios.Llama3_70B_Fp8ServingH100
    r, s = entry.result, 2048
    flops = 2 * P * s + 4 * L * H * (D // H) * s * s
    assert entry.fits is True
    assert r.ttft.to("ms").magnitude == pytest.approx((flops / (1979e12 * 0.5) + TAU) * 1e3, rel=1e-12)
    kv = 2 * L * KV_HEADS * HEAD * s * 1
    assert r.kv_cache_size.to("B").magnitude == pytest.approx(kv, rel=1e-15)
    assert r.itl.to("ms").magnitude == pytest.approx(((P + kv) / BW + L * 0.01e-3) * 1e3, rel=1e-12)
    assert r.itl.to("ms").magnitude == pytest.approx(21.97475, rel=1e-5)
