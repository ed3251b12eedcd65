"""RooflinePointScenario: the reference entries by hand, the measured placement, precisions, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, MissingInputError, Q_, RooflinePointScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.roofline_point import RooflinePointScenario as Declared

H100_PEAK, H100_BW, A100_PEAK, A100_BW = 989e12, 3.35e12, 312e12, 2039e9  # catalog: flop/s, byte/s

ENTRIES = [  # entry, peak, bandwidth, intensity; runs.md §9: attainable (flop/s), peak_fraction
    ("Gpt2XlDecodeH100Roofline", H100_PEAK, H100_BW, 3e9 / (1.5e9 * 2), 3.35e12, 0.0033872598584428716),
    # an unfused LayerNorm over T = 8,192 prefill tokens: 2T / (T + 1) flop/byte
    ("Gpt2XlLayerNormH100Roofline", H100_PEAK, H100_BW, 2 * 8192 / (8192 + 1), 6699182228731.845, 0.006773692850082755),
    # ResNet-50's 2048 -> 1000 head at batch 32, FP16: 2BKN / ((KN + BK + BN) · 2 byte)
    ("ResNet50ClassifierHeadH100Roofline", H100_PEAK, H100_BW,
     2 * 32 * 2048 * 1000 / ((2048 * 1000 + 32 * 2048 + 32 * 1000) * 2), 102326691325617.47, 0.10346480417150401),
    ("KernelAt200FlopPerByteA100", A100_PEAK, A100_BW, 200, 3.12e14, 1.0),
    ("KernelAt200FlopPerByteH100", H100_PEAK, H100_BW, 200, 6.7e14, 0.6774519716885743),
    ("LayerNormMeasuredH100", H100_PEAK, H100_BW, 5e12 / 2.8e12, 5982142857142.857, 0.006048678318647986),
]


@pytest.mark.parametrize(("entry", "peak", "bw", "intensity", "attainable", "fraction"), ENTRIES)
def test_entries_by_hand(entry, peak, bw, intensity, attainable, fraction):
    """attainable = min(p, β·I); peak_fraction = attainable / p; ridge = p / β."""
    s = getattr(Scenarios, entry)
    assert s.point_intensity.to("flop/byte").magnitude == pytest.approx(intensity, rel=1e-15)
    assert s.peak.to("flop/s").magnitude == pytest.approx(peak, rel=1e-15)
    assert s.ridge.to("flop/byte").magnitude == pytest.approx(peak / bw, rel=1e-12)
    assert s.attainable.to("flop/s").magnitude == pytest.approx(min(peak, bw * intensity), rel=1e-12)
    assert s.attainable.to("flop/s").magnitude == pytest.approx(attainable, rel=1e-12)
    assert s.peak_fraction == pytest.approx(fraction, rel=1e-12)


def test_borrowed_intensities_as_listed():
    """runs.md §9: 1.9997558891736849 (= 16384/8193) and 30.545280992721633 flop/byte, computed from their counts."""
    layer_norm = Scenarios.Gpt2XlLayerNormH100Roofline.point_intensity.to("flop/byte").magnitude
    assert layer_norm == pytest.approx(16384 / 8193, rel=1e-15) == 1.9997558891736849
    head = Scenarios.ResNet50ClassifierHeadH100Roofline.point_intensity.to("flop/byte").magnitude
    assert head == pytest.approx(30.545280992721633, rel=1e-15)


def test_ridges_as_listed():
    """runs.md §9: H100 ridge 295.2238805970149, A100 153.01618440411968 flop/byte."""
    assert Scenarios.KernelAt200FlopPerByteH100.ridge.magnitude == pytest.approx(295.2238805970149, rel=1e-12)
    assert Scenarios.KernelAt200FlopPerByteA100.ridge.magnitude == pytest.approx(153.01618440411968, rel=1e-12)


def test_measured_kernel_and_bandwidth_utilization():
    """5 TFLOP/s over 2.8 TB/s: I = 1.7857142857142858; 2.8 / 3.35 = 0.835820895522388 of the bandwidth."""
    s = Scenarios.LayerNormMeasuredH100
    assert s.point_intensity.magnitude == pytest.approx(1.7857142857142858, rel=1e-15)
    assert s.bandwidth_utilization == pytest.approx(0.835820895522388, rel=1e-12)
    stated = s.variant(intensity=10)  # a stated intensity wins; the readings still give the utilization
    assert stated.point_intensity.magnitude == 10 and stated.bandwidth_utilization == pytest.approx(2.8 / 3.35)
    for entry in ("Gpt2XlDecodeH100Roofline", "KernelAt200FlopPerByteA100"):
        with pytest.raises(MissingInputError, match="achieved_bandwidth"):
            _ = getattr(Scenarios, entry).bandwidth_utilization


def test_precisions_edges_and_bad_input():
    base = Scenarios.KernelAt200FlopPerByteH100
    assert base.variant(precision=None).peak == base.peak  # None reads the headline peak, as in the reference
    int8 = base.variant(precision="int8")  # 1979 TOPS gives the same ridge as 1979 TFLOP/s
    assert int8.ridge.magnitude == pytest.approx(1979e12 / 3.35e12, rel=1e-12)
    assert int8.peak.to("TFLOP/s").magnitude == pytest.approx(1979)
    assert base.variant(intensity=0).attainable.magnitude == 0 and base.variant(intensity=0).peak_fraction == 0
    with pytest.raises(ScenarioInputError, match="precision.*'xx'.*lists"):
        base.variant(precision="xx")
    with pytest.raises(ScenarioInputError, match="intensity"):
        base.variant(intensity=Q_(-1, "flop/byte"))
    with pytest.raises(MissingInputError, match="intensity"):
        _ = RooflinePointScenario(hardware=Hardware.Cloud.H100).attainable


def test_the_ridge_question():
    """Solving β·I = p for I gives the ridge p/β: the intensity where the kernel turns compute-bound."""
    from symbolic.analysis.solving import solve

    answer = solve(Scenarios.KernelAt200FlopPerByteA100, "intensity", "memory_roof", "peak")
    assert answer.values == [pytest.approx(312e12 / 2039e9, rel=1e-12)] and answer.unit == "flop/byte"
    half = solve(Scenarios.KernelAt200FlopPerByteH100, "intensity", "peak_fraction", 0.5)
    assert half.values == [pytest.approx(989e12 / 3.35e12 / 2, rel=1e-12)]


@settings(max_examples=50, deadline=None)
@given(intensity=st.none() | st.floats(0, 1e5, allow_subnormal=False), rate=st.floats(0, 1e4, allow_subnormal=False), bw=st.floats(1e-3, 0.8),
       node=st.sampled_from(["H100", "A100", "B200", "V100"]))
def test_evaluator_equals_exact_sympy(intensity, rate, bw, node):
    s = RooflinePointScenario(hardware=getattr(Hardware.Cloud, node), intensity=intensity, achieved_rate=rate,
                              achieved_bandwidth=bw)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)


def test_cache_level_by_hand():
    """An add (1 flop per 24 bytes) on a 100 GFLOP/s node with 20 GB/s of DRAM and a 500 kB cache level
    at 48 GB/s: a 300 kB working set runs at 48 / 24 = 2 GFLOP/s, a 1 MB one at 20 / 24 = 0.8333 GFLOP/s;
    without a cache level the attainable rate is the DRAM one and level_attainable is None."""
    from generated import HardwareNode

    node = HardwareNode(name="Test CPU", precision_flops={"fp32": 1e11}, memory_bandwidth=2e10, peak_flops=1e11)
    fits = RooflinePointScenario(hardware=node, intensity=Q_(1, "flop") / Q_(24, "byte"), working_set=3e5,
                                 cache_capacity=5e5, cache_bandwidth=Q_(48, "GB/s"))
    assert fits.level_attainable.to("GFLOP/s").magnitude == pytest.approx(2)
    assert fits.level_bandwidth.to("GB/s").magnitude == pytest.approx(48)
    spills = fits.variant(working_set=1e6)
    assert spills.level_attainable.to("GFLOP/s").magnitude == pytest.approx(20 / 24)
    plain = fits.variant(working_set=None)
    assert plain.level_attainable is None
    assert plain.level_bandwidth.to("GB/s").magnitude == pytest.approx(20)
    assert plain.attainable.to("GFLOP/s").magnitude == pytest.approx(20 / 24)


def test_one_call_of_a_kernel_adds_its_host_cost_to_the_level_it_fits_in():
    """200 flop/byte over a 1 MB working set on an H100: 2e8 flop. Without a cache level its bytes take
    1e6 / 3.35e12 = 0.29851 µs at HBM and its FLOPs 2e8 / 989e12 = 0.20222 µs, so the call is 0.29851 µs
    plus a 5 µs dispatch = 5.29851 µs: 2e8 / 5.29851e-6 = 37,746 GFLOP/s. In a 2 MB cache at 10 TB/s the
    bytes take 0.1 µs and the FLOPs bound it: 5.20222 µs."""
    base = Scenarios.KernelAt200FlopPerByteH100
    call = base.variant(working_set=Q_(1, "MB"), dispatch=5)
    assert call.kernel_flops.to("flop").magnitude == pytest.approx(2e8)
    assert call.kernel_time.to("µs").magnitude == pytest.approx(5.29851, rel=1e-5)
    assert call.kernel_rate.to("GFLOP/s").magnitude == pytest.approx(37746, rel=1e-4)
    cached = call.variant(cache_capacity=Q_(2, "MB"), cache_bandwidth=Q_(10, "TB/s"))
    assert cached.kernel_time.to("µs").magnitude == pytest.approx(5.20222, rel=1e-5)
    with pytest.raises(MissingInputError, match="working_set"):  # no working set: no call to price
        _ = base.kernel_rate
