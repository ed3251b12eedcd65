"""DecodeScenario: the eight registry entries by hand, the bottleneck, the compute-bound batch, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import DecodeScenario, Hardware, InfeasibleError, InputTypeError, MissingInputError, Models, ScenarioInputError, Scenarios
from symbolic.scenarios.inference.decode import DecodeScenario as Declared

BW, PEAK, FP8, CAP = 3.35e12, 989e12, 1979e12, 80 * 2**30  # H100: bytes/s, headline and FP8 rates, bytes (catalog §B)

ENTRIES = [  # entry, P, width b, batch B, tp t, rate R; spec §12.1 values: weight bytes, t_c, t_m, ratio
    ("Llama3_70B_DecodeH100", 7.06e10, 2, 1, 1, PEAK, 1.412e11, 0.14277047522750252, 42.149253731343286, 295.22388059701495),
    ("Llama2_70B_DecodeH100", 7e10, 2, 1, 1, PEAK, 1.4e11, 0.14155712841253792, 41.7910447761194, 295.2238805970149),
    ("Llama3_70B_DecodeH100Batch64", 7.06e10, 2, 64, 1, PEAK, 1.412e11, 9.137310414560162, 42.149253731343286,
     4.612873134328359),
    ("Llama3_70B_Int8DecodeH100", 7.06e10, 1, 1, 1, FP8, 7.06e10, 0.07134916624557858, 21.074626865671643,
     295.3731343283582),
    ("Llama2_70BDecodeFloorTp8", 7e10, 2, 1, 8, PEAK, 1.75e10, 0.01769464105156724, 5.223880597014925, 295.2238805970149),
    ("Llama2_70B_DecodeTwoH100", 7e10, 2, 1, 2, PEAK, 7e10, 0.07077856420626896, 20.8955223880597, 295.2238805970149),
    ("Gpt2XlDecodeH100", 1.5e9, 2, 1, 1, PEAK, 3e9, 0.003033367037411527, 0.8955223880597015, 295.2238805970149),
    ("Gpt2XlFp16DecodeOnH100", 1.5e9, 2, 1, 1, PEAK, 3e9, 0.003033367037411527, 0.8955223880597015, 295.2238805970149),
]


@pytest.mark.parametrize(("entry", "p", "b", "batch", "tp", "rate", "weights", "t_c", "t_m", "ratio"), ENTRIES)
def test_entries_by_hand(entry, p, b, batch, tp, rate, weights, t_c, t_m, ratio):
    """W = P·b/t, F = 2·P·B/t, t_c = F/R, t_m = W/β; I = 2B/b; attainable = min(R, β·I).

    A device's share of the weights, W, must fit in its 80 GiB (85.899 GB): 70B at FP16 on one H100 does
    not, so its step times are refused; the evaluator's numbers still match the reference's."""
    s = getattr(Scenarios, entry)
    if p * b / tp > CAP:
        assert s.fits is False and s.fits_need.to("byte").magnitude == pytest.approx(p * b / tp, rel=1e-15)
        for output in ("compute_time", "memory_time", "bound_ratio", "memory_share", "bottleneck"):
            with pytest.raises(InfeasibleError, match="each device's share of the weights must fit in its memory"):
                getattr(s.result, output)
        raw = s._evaluated()["result"]
        assert raw["compute_time"] == pytest.approx(t_c, rel=1e-12) and raw["memory_time"] == pytest.approx(t_m)
        assert s.result.intensity.to("flop/byte").magnitude == pytest.approx(2 * batch / b, rel=1e-15)
        return
    assert s.fits is True
    r = s.result
    assert r.weight_bytes.to("byte").magnitude == pytest.approx(p * b / tp, rel=1e-15) == pytest.approx(weights)
    assert r.flops_per_step.to("flop").magnitude == pytest.approx(2 * p * batch / tp, rel=1e-15)
    assert r.compute_time.to("ms").magnitude == pytest.approx(2 * p * batch / tp / rate * 1e3, rel=1e-12)
    assert r.compute_time.to("ms").magnitude == pytest.approx(t_c, rel=1e-12)
    assert r.memory_time.to("ms").magnitude == pytest.approx(p * b / tp / BW * 1e3, rel=1e-12)
    assert r.memory_time.to("ms").magnitude == pytest.approx(t_m, rel=1e-12)
    assert r.bound_ratio == pytest.approx(ratio, rel=1e-12)
    assert r.memory_share == pytest.approx(t_m / (t_m + t_c), rel=1e-12)
    assert r.intensity.to("flop/byte").magnitude == pytest.approx(2 * batch / b, rel=1e-15)
    attainable = min(rate, BW * 2 * batch / b)
    assert r.attainable_flops.to("flop/s").magnitude == pytest.approx(attainable, rel=1e-15)
    assert r.peak_fraction == pytest.approx(attainable / rate, rel=1e-12)
    assert r.bottleneck == "Memory"


def test_spec_shares_and_fractions():
    """memory_share and peak_fraction as listed in spec §12.1."""
    for entry, share, fraction in (("Llama3_70B_DecodeH100", 0.9966241749382778, 0.0033872598584428716),
                                   ("Llama3_70B_DecodeH100Batch64", 0.8218381253116172, 0.21678463094034378),
                                   ("Llama3_70B_Int8DecodeH100", 0.996625875006295, 0.0033855482566953004)):
        s = getattr(Scenarios, entry)  # the FP16 entries do not fit one H100: their shares are the evaluator's numbers
        raw = s._evaluated()["result"]
        assert raw["memory_share"] == pytest.approx(share, rel=1e-12)
        assert s.result.peak_fraction == pytest.approx(fraction, rel=1e-12)  # a roofline position: always there
        if s.fits:
            assert s.result.memory_share == pytest.approx(share, rel=1e-12)


def test_large_batches_are_compute_bound_and_a_tie_is_compute():
    s = Scenarios.Llama2_70B_DecodeTwoH100  # 70 GB of weights per device: it fits
    assert s.variant(batch_size=296).result.bottleneck == "Compute"
    assert s.variant(batch_size=295).result.bottleneck == "Memory"
    from generated import HardwareNode

    even = HardwareNode(name="even", precision_flops={"fp16": 4e12}, memory_bandwidth=2e12, peak_flops=4e12,
                        memory_capacity=1e12)
    tie = s.variant(hardware=even, batch_size=2)  # 2·P·2/4e12 = P·2/2e12: equal times
    assert tie.result.compute_time == tie.result.memory_time
    assert tie.result.bottleneck == "Compute"


def test_batch_at_which_decode_turns_compute_bound():
    """2·P·B/R = P·b/β at B = (R/β)·(b/2) = 295.22 for FP16 on an H100 (spec §2 closed forms)."""
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "batch_size", "result.compute_time", "result.memory_time",
                     Scenarios.Llama3_70B_DecodeH100._args)
    assert solution.values == [pytest.approx(PEAK / BW, rel=1e-12)]


def test_precisions_storage_keys_and_peak_keys():
    s = Scenarios.Llama3_70B_DecodeH100
    assert s.variant(precision="FP16").result.weight_bytes == s.result.weight_bytes  # any case
    assert s.variant(precision="int4").result.weight_bytes.to("byte").magnitude == pytest.approx(3.53e10)
    with pytest.raises(ScenarioInputError, match=r"'precision' is 'fp16_dense'; expected one of"):
        s.variant(precision="fp16_dense")
    with pytest.raises(InputTypeError, match="precision"):
        s.variant(precision=2)
    with pytest.raises(ScenarioInputError, match="peak_precision"):
        s.variant(peak_precision="no-such-rate")


def test_a_workload_without_a_parameter_count_is_refused_at_construction():
    with pytest.raises(MissingInputError, match="parameters"):
        Scenarios.Llama3_70B_DecodeH100.variant(workload=Models.Recommendation.DLRM)
    cnn = Scenarios.Llama3_70B_DecodeH100.variant(workload=Models.Vision.ResNet50)  # any workload with P works
    assert cnn.result.weight_bytes.to("byte").magnitude == pytest.approx(2.5557032e7 * 2)


def test_zero_batch_or_tensor_width_is_a_clear_error():
    for name in ("batch_size", "tp_size"):
        with pytest.raises(ScenarioInputError, match=name):
            Scenarios.Llama3_70B_DecodeH100.variant(**{name: 0})


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 4096), t=st.integers(1, 64), precision=st.sampled_from(["fp32", "bf16", "fp8", "int4"]),
       model=st.sampled_from(["GPT2", "Llama3_8B", "Llama3_405B", "DeepSeek_V3"]),
       peak=st.sampled_from(["peak", "fp8", "fp16"]))
def test_evaluator_equals_exact_sympy(b, t, precision, model, peak):
    s = DecodeScenario(workload=getattr(Models.Language, model), hardware=Hardware.Cloud.H100, precision=precision,
                       batch_size=b, tp_size=t, peak_precision=peak)
    assert_matches_exact(flatten(s._evaluated()), exact_outputs(Declared.model, s._args))


def test_the_flagship_entries_that_run():
    """Llama-3.1-70B as it runs on H100s (issue 42): P = 7.06e10 at 1 byte is 70.6 GB, inside the 80 GiB =
    85.899 GB; t_m = 70.6e9 / 3.35e12 = 21.0746 ms. At FP8 the FLOPs (2P = 141.2 GFLOP) run at 1979 TFLOP/s:
    71.349 µs. Split over two by tp, each holds 141.2e9 / 2 = 70.6 GB at 2 byte and does P = 70.6 GFLOP at
    989 TFLOP/s: 71.385 µs."""
    fp8 = Scenarios.Llama3_70B_Fp8DecodeH100
    assert fp8.fits is True and fp8.result.weight_bytes.to("GB").magnitude == pytest.approx(70.6)
    assert fp8.result.memory_time.to("ms").magnitude == pytest.approx(70.6e9 / 3.35e12 * 1e3)
    assert fp8.result.compute_time.to("µs").magnitude == pytest.approx(2 * 7.06e10 / 1979e12 * 1e6)
    two = Scenarios.Llama3_70B_DecodeTwoH100
    assert two.fits is True and two.result.weight_bytes.to("GB").magnitude == pytest.approx(70.6)
    assert two.result.compute_time.to("µs").magnitude == pytest.approx(7.06e10 / 989e12 * 1e6)
    assert str(two.result.bottleneck) == str(fp8.result.bottleneck) == "Memory"
