"""ParallelLayoutScenario: the four GPT-3 layouts by hand, the differences from the reference, the bandwidth
question, domains, exact sympy."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import InfeasibleError, MissingInputError, Models, Q_, ScenarioInputError, Scenarios
from generated.parallel_layout import evaluate
from symbolic.analysis.solving import solve
from symbolic.scenarios.distributed.parallel_layout import ParallelLayoutScenario as Declared

P, D, PHI = 1.75e11, 2e6, 6.0  # GPT-3, tokens per step, FLOPs per parameter-token
RATE = 1979e12 * 0.5  # H100 fp8 at η = 0.5
G, BETA, OMEGA = 2 * P, 400e9 / 8, 0.75  # fp16 gradient bytes, NDR byte/s, overlap

# entry, t, p, d, m, rounded compute τ [s]; listed in distributed.md §9: step [s], efficiency, ZeRO-1 [GB]
LAYOUTS = [
    ("Gpt3DataParallel1K", 1, 1, 1024, 1, 2.1, 14.0, 0.15, 702.05078125),
    ("Gpt3TensorDataParallel1K", 8, 1, 128, 1, 2.1, 2.5375, 0.8275862068965517, 89.55078125),
    ("Gpt3ThreeDParallel1K", 8, 4, 32, 32, 2.1, 2.40625, 0.8727272727272728, 23.92578125),
    ("Gpt3ThreeDParallel16K", 8, 16, 128, 32, 0.1, 0.17421875, 0.5739910313901345, 5.596923828125),
]


MEMORY = 80.0  # GB: the entries' device_memory, the H100's 80 GiB read as 80 GB as the reference labels it
RUNS = LAYOUTS[2:]  # ZeRO-1 state 23.93 and 5.60 GB <= 80 GB
REFUSED = LAYOUTS[:2]  # ZeRO-1 state 702.05 and 89.55 GB > 80 GB
TIMES = ("compute_time", "allreduce_time", "hidden_time", "exposed_time", "step_time", "efficiency",
         "efficiency_no_overlap", "overlap_share", "fleet_mfu", "double_counted_mfu")


@pytest.mark.parametrize(("entry", "t", "p", "d", "m", "tau", "step", "efficiency", "zero1"), LAYOUTS)
def test_reference_values_of_the_evaluator(entry, t, p, d, m, tau, step, efficiency, zero1):
    """The evaluator's step and efficiency are the reference's for every entry, whether or not it fits;
    `fits_zero1` says which run: 4P/(t·p) + 12P/(t·p·d) byte against 80 GB."""
    values = evaluate(**getattr(Scenarios, entry)._args)
    assert values["result"]["step_time"] == pytest.approx(step, rel=1e-12)
    assert values["result"]["efficiency"] == pytest.approx(efficiency, rel=1e-12)
    assert values["fits_zero1_need"] == pytest.approx(zero1, rel=1e-12) and values["fits_zero1_have"] == MEMORY
    assert values["fits_zero1"] == (zero1 <= MEMORY)
    assert values["fits_need"] == pytest.approx(2800.0 / (t * p), rel=1e-15)  # 16 B·1.75e11/(t·p)
    assert values["fits"] == (2800.0 / (t * p) <= MEMORY)  # only the 16K layout's 21.875 GB fits without ZeRO


@pytest.mark.parametrize(("entry", "t", "p", "d", "m", "tau", "step", "efficiency", "zero1"), REFUSED)
def test_layouts_whose_zero1_state_does_not_fit_are_refused(entry, t, p, d, m, tau, step, efficiency, zero1):
    """Differs from the reference: 702.05 GB (4·1.75e11 + 12·1.75e11/1024 byte) and 89.55 GB
    (4·1.75e11/8 + 12·1.75e11/1024 byte) exceed 80 GB: no time, efficiency or MFU; the state stays."""
    s = getattr(Scenarios, entry)
    assert s.fits_zero1 is False and s.fits is False
    for name in TIMES:
        with pytest.raises(InfeasibleError, match=rf"'{name}' does not exist.*ZeRO stage 1.*needs {zero1:.6g} GB "
                                                  rf"and has 80 GB.*dp_size={d}"):
            getattr(s.result, name)
    r = s.result
    assert r.zero1_state_per_device.to("GB").magnitude == pytest.approx(zero1, rel=1e-12)
    assert r.state_per_device.to("GB").magnitude == pytest.approx(2800.0 / (t * p), rel=1e-15)
    assert r.step_flops.to("flop").magnitude == pytest.approx(2.1e18, rel=1e-15)
    assert r.min_devices_for_state == 35  # ⌈2800 GB / 80 GB⌉
    assert s.evaluate()["result"]["step_time"] is None


@pytest.mark.parametrize(("entry", "t", "p", "d", "m", "tau", "step", "efficiency", "zero1"), RUNS)
def test_layouts_by_hand(entry, t, p, d, m, tau, step, efficiency, zero1):
    """τ = round(φ·P·D/(N·R·η), 0.1 s); c = 2·G/(t·p)/β; h = min(ω·c, τ); bubble (p − 1)/(m + p − 1);
    T = τ/(1 − bubble) + c − h; e = τ/T; ZeRO-1 = 4P/(t·p) + 12P/(t·p·d) byte."""
    assert getattr(Scenarios, entry).fits_zero1 is True
    r = getattr(Scenarios, entry).result
    n = t * p * d
    assert r.n_devices == n and getattr(Scenarios, entry).n_devices == n
    unrounded = PHI * P * D / (n * RATE)
    assert round(unrounded, 1) == tau
    assert r.step_flops.to("flop").magnitude == pytest.approx(2.1e18, rel=1e-15)
    assert r.compute_time.to("s").magnitude == pytest.approx(tau, rel=1e-12)
    c = 2 * G / (t * p) / BETA
    hidden = min(OMEGA * c, tau)
    bubble = float(Fraction(p - 1, m + p - 1))
    assert r.gradient_bytes.to("GB").magnitude == pytest.approx(350.0, rel=1e-15)
    assert r.dp_shard.to("byte").magnitude == pytest.approx(G / (t * p), rel=1e-15)
    assert r.ring_bytes.to("byte").magnitude == pytest.approx(2 * (d - 1) / d * G / (t * p), rel=1e-12)
    assert r.allreduce_time.to("s").magnitude == pytest.approx(c, rel=1e-12)
    assert r.hidden_time.to("s").magnitude == pytest.approx(hidden, rel=1e-12)
    assert r.exposed_time.to("s").magnitude == pytest.approx(c - hidden, rel=1e-12)
    assert r.bubble == pytest.approx(bubble, rel=1e-12)
    assert r.step_time.to("s").magnitude == pytest.approx(tau / (1 - bubble) + c - hidden, rel=1e-12)
    assert r.step_time.to("s").magnitude == pytest.approx(step, rel=1e-12)
    assert r.efficiency == pytest.approx(efficiency, rel=1e-12)
    assert r.efficiency_no_overlap == pytest.approx(tau / (tau / (1 - bubble) + c), rel=1e-12)
    assert r.overlap_share == pytest.approx(hidden / c, rel=1e-12)
    assert r.state_total.to("GB").magnitude == pytest.approx(2800.0, rel=1e-15)
    assert r.state_per_device.to("GB").magnitude == pytest.approx(2800.0 / (t * p), rel=1e-15)
    assert r.zero1_state_per_device.to("GB").magnitude == pytest.approx(zero1, rel=1e-12)
    assert r.zero1_state_per_device.to("byte").magnitude == pytest.approx(4 * P / (t * p) + 12 * P / (t * p * d),
                                                                          rel=1e-12)
    assert r.fleet_mfu == pytest.approx(0.5 * efficiency, rel=1e-12)
    assert r.double_counted_mfu == pytest.approx(0.5 * efficiency**2, rel=1e-12)
    assert r.min_devices_for_state == 35 and type(r.min_devices_for_state) is int  # ⌈2800 GB / 80 GB⌉


def test_listed_values_of_the_data_parallel_layout():
    """distributed.md §9: ring_bytes 699.31640625 GB, hidden 2.1 s, no-overlap efficiency 3/23, share 0.15,
    fleet MFU 0.075, double-counted 0.01125; unrounded compute 2.0725429… s. The layout does not fit (702 GB of
    ZeRO-1 state per device): the class refuses the times, the evaluator still gives the reference's numbers."""
    s = Scenarios.Gpt3DataParallel1K
    assert s.result.ring_bytes.to("GB").magnitude == pytest.approx(699.31640625, rel=1e-12)
    r = evaluate(**s._args)["result"]  # display units: s, GB
    assert r["ring_bytes"] == pytest.approx(699.31640625, rel=1e-12)
    assert r["hidden_time"] == pytest.approx(2.1, rel=1e-12)
    assert r["efficiency_no_overlap"] == pytest.approx(0.13043478260869565, rel=1e-12)
    assert r["overlap_share"] == pytest.approx(0.15, rel=1e-12)
    assert r["fleet_mfu"] == pytest.approx(0.075, rel=1e-12) and r["double_counted_mfu"] == pytest.approx(0.01125,
                                                                                                          rel=1e-12)
    assert r["allreduce_time"] == pytest.approx(14.0, rel=1e-12)
    assert r["exposed_time"] == pytest.approx(11.9, rel=1e-12)
    unrounded = evaluate(**{**s._args, "window_resolution": None})["result"]["compute_time"]
    assert unrounded == pytest.approx(PHI * P * D / (1024 * RATE), rel=1e-12)
    assert unrounded == pytest.approx(2.0725429, rel=1e-7)


def test_one_replica_reduces_nothing():
    """Differs from the reference: with d = 1 there is no AllReduce (the reference charges 14 s for GPT-3, whose
    2800 GB of state do not fit one device; GPT-2's 16 B·1.5e9 = 24 GB do)."""
    assert Scenarios.Gpt3DataParallel1K.variant(dp_size=1).fits_zero1 is False
    r = Scenarios.Gpt3DataParallel1K.variant(dp_size=1, workload=Models.Language.GPT2).result
    tau = round(PHI * 1.5e9 * D / RATE, 1)  # 6·1.5e9·2e6/9.895e14 = 18.19 s → 18.2 s
    assert tau == 18.2
    assert r.allreduce_time.magnitude == 0 and r.exposed_time.magnitude == 0 and r.ring_bytes.magnitude == 0
    assert r.compute_time.to("s").magnitude == pytest.approx(tau, rel=1e-12)
    assert r.step_time == r.compute_time and r.efficiency == 1
    assert r.overlap_share == OMEGA


def test_window_rounding():
    """Nearest multiple of the window, at least one; no window means no rounding."""
    s = Scenarios.Gpt3ThreeDParallel1K  # 8·4·32 = 1024 devices
    x = PHI * P * D / (1024 * RATE)  # 2.0725... s
    assert s.variant(window_resolution=Q_(0.5, "s")).result.compute_time.to("s").magnitude == pytest.approx(2.0)
    assert s.variant(window_resolution=Q_(1, "ms")).result.compute_time.to("s").magnitude == pytest.approx(
        round(x, 3), rel=1e-12)
    assert s.variant(window_resolution=Q_(0.25, "ms")).result.compute_time.to("ms").magnitude == pytest.approx(
        round(x / 2.5e-4) * 0.25, rel=1e-12)
    # differs: a window longer than twice the compute gives one window, not 0 s
    assert s.variant(window_resolution=Q_(10, "s")).result.compute_time.to("s").magnitude == pytest.approx(10)
    assert s.variant(window_resolution=None).result.compute_time.to("s").magnitude == pytest.approx(x, rel=1e-12)


def test_device_memory_defaults_to_the_accelerator_and_other_precisions():
    s = Scenarios.Gpt3DataParallel1K
    # the H100's 80 GiB = 85.899 GB: ⌈2800/85.899⌉ = ⌈32.6⌉ = 33 devices
    assert s.variant(device_memory=None).result.min_devices_for_state == 33
    assert s.variant(device_memory=None).fits_zero1_have.to("GB").magnitude == pytest.approx(85.89934592, rel=1e-12)
    assert s.variant(device_memory=Q_(79, "GB")).result.min_devices_for_state == math.ceil(2800 / 79)
    fp32 = Scenarios.Gpt3ThreeDParallel1K.variant(gradient_precision="FP32").result
    assert fp32.gradient_bytes.to("GB").magnitude == pytest.approx(700.0, rel=1e-15)
    assert fp32.allreduce_time.to("s").magnitude == pytest.approx(0.875, rel=1e-12)  # 2·700 GB/32/50 GB/s


def test_the_zero1_limit_by_hand():
    """GPT-3 at t = 8, p = 1 on 80 GB: ZeRO-1 state 87.5 + 2100/(8·d) GB never fits (87.5 > 80); at t = 8,
    p = 2 it is 43.75 + 131.25/d GB: d = 3 gives 87.5 GB (refused), d = 4 gives 76.5625 GB (runs)."""
    s = Scenarios.Gpt3TensorDataParallel1K
    assert s.variant(dp_size=4096).fits_zero1 is False  # 87.5 + 0.0641 GB
    above, below = s.variant(pp_size=2, dp_size=3), s.variant(pp_size=2, dp_size=4)
    assert above.fits_zero1_need.to("GB").magnitude == pytest.approx(87.5, rel=1e-12) and above.fits_zero1 is False
    with pytest.raises(InfeasibleError, match="needs 87.5 GB and has 80 GB"):
        _ = above.result.step_time
    assert below.fits_zero1_need.to("GB").magnitude == pytest.approx(76.5625, rel=1e-12) and below.fits_zero1 is True
    assert below.fits is False  # without ZeRO: 2800/16 = 175 GB
    assert below.result.step_time.to("s").magnitude > 0
    # a sweep: NaN where the layout does not fit
    from symbolic.runtime.sweep import sweep

    table = sweep(s.variant(pp_size=2), {"dp_size": [3, 4]})
    assert math.isnan(table["result.step_time"][0]) and table["result.step_time"][1] > 0
    assert table["fits_zero1"].tolist() == [0, 1]


def test_question_link_bandwidth_at_which_the_allreduce_equals_compute():
    """2·(G/(t·p))/β = τ: at 8 × 4 × 32 the shard is 2·175e9 B/32 = 10.9375 GB, so β = 2·10.9375/2.1 = 10.4167 GB/s."""
    solution = solve(Scenarios.Gpt3ThreeDParallel1K, "link_bandwidth", "result.allreduce_time", "result.compute_time")
    assert solution.values == [pytest.approx(21.875 / 2.1, rel=1e-12)]


def test_solve_refuses_a_layout_that_does_not_fit():
    """Pure data parallelism would need β = 2·350/2.1 = 333.3 GB/s, but its ZeRO-1 state, 702.05 GB, never fits
    in 80 GB whatever the link bandwidth: the question is refused, not priced."""
    with pytest.raises(InfeasibleError, match="needs 702.051 GB and has 80 GB"):
        solve(Scenarios.Gpt3DataParallel1K, "link_bandwidth", "result.allreduce_time", "result.compute_time")
    with pytest.raises(InfeasibleError, match="needs 702.051 GB and has 80 GB"):
        solve(Scenarios.Gpt3DataParallel1K, "link_bandwidth", "result.allreduce_time", Q_(1, "s"))


def test_solve_refuses_just_above_the_zero1_limit():
    """At 8 × 2 × 3 the ZeRO-1 state is 43.75 + 131.25/3 = 87.5 GB > 80 GB: refused, whatever β."""
    s = Scenarios.Gpt3TensorDataParallel1K.variant(pp_size=2, dp_size=3)
    with pytest.raises(InfeasibleError, match="needs 87.5 GB and has 80 GB"):
        solve(s, "link_bandwidth", "result.allreduce_time", "result.compute_time")


def test_cli_solve_refuses_without_a_traceback(capsys):
    from symbolic.cli import main

    code = main(["solve", "Gpt3DataParallel1K", "--for", "link_bandwidth",
                 "--where", "result.allreduce_time=result.compute_time"])
    err = capsys.readouterr().err
    assert code != 0 and "needs 702.051 GB and has 80 GB" in err and "Traceback" not in err


@pytest.mark.parametrize(("changes", "error", "match"), [
    ({"dp_size": 0}, ScenarioInputError, "'dp_size' got 0"),
    ({"microbatches": 0}, ScenarioInputError, "'microbatches' got 0"),
    ({"local_efficiency": 0}, ScenarioInputError, "'local_efficiency' got 0"),
    ({"overlap_fraction": 1.5}, ScenarioInputError, "'overlap_fraction' got 1.5"),
    ({"link_bandwidth": 0}, ScenarioInputError, "'link_bandwidth' got 0"),
    ({"batch_tokens": 0}, ScenarioInputError, "'batch_tokens' got 0"),
    ({"window_resolution": 0}, ScenarioInputError, "'window_resolution' got 0"),
    ({"window_resolution": 0.1}, None, ""),  # a bare number is read in seconds
    ({"device_memory": Q_(1, "s")}, ScenarioInputError, "device_memory"),
    ({"gradient_precision": "fp16_dense"}, ScenarioInputError, "fp16_dense"),
    ({"precision": "fp4"}, ScenarioInputError, "fp4"),
    ({"workload": Models.Recommendation.DLRM}, MissingInputError, "parameters"),
])
def test_domains(changes, error, match):
    if error is None:
        assert Scenarios.Gpt3ThreeDParallel1K.variant(**changes).result.compute_time.to("s").magnitude == pytest.approx(2.1)
        return
    with pytest.raises(error, match=match):
        _ = Scenarios.Gpt3ThreeDParallel1K.variant(**changes).result


@settings(max_examples=40, deadline=None)
@given(t=st.integers(1, 64), p=st.integers(1, 64), d=st.integers(1, 4096), m=st.integers(1, 256),
       tokens=st.floats(1e3, 1e8), eta=st.floats(1e-3, 1), beta=st.floats(1e-2, 1e4), omega=st.floats(0, 1, allow_subnormal=False),
       window=st.none() | st.floats(1e-4, 10), memory=st.none() | st.floats(1, 1e3))
def test_evaluator_equals_exact_sympy(t, p, d, m, tokens, eta, beta, omega, window, memory):
    args = {**Scenarios.Gpt3DataParallel1K._args, "tp_size": t, "pp_size": p, "dp_size": d, "microbatches": m,
            "batch_tokens": tokens, "local_efficiency": eta, "link_bandwidth": beta, "overlap_fraction": omega,
            "window_resolution": window, "device_memory": memory}
    got = flatten(evaluate(**args))
    exact = {name: value for name, value in exact_outputs(Declared.model, args).items()
             if not name.startswith("pipeline.")}  # the contained pipeline schedule is a hidden step
    assert set(got) == set(exact)
    assert_matches_exact(got, exact, rel=1e-9)
