"""TrainingRunScenario: the reference entry by hand, fleets and single nodes, overheads in order, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, InputTypeError, Models, Q_, ScenarioInputError, Scenarios, Systems, TrainingRunScenario
from symbolic.scenarios.runs.training_run import TrainingRunScenario as Declared


def test_gpt3_on_frontier_by_hand():
    """F = 6 · 175e9 · 300e9 = 3.15e23; 8192 H100s at 1979 TFLOP/s (fp8): peak time F/(8192·1979e12) s;
    ÷ 0.45, ÷ 0.56, then × 1.03, × 1.10, × 1.05 (runs.md §2)."""
    r = Scenarios.Gpt3PretrainingFrontier8K.result
    peak = 3.15e23 / (8192 * 1979e12) / 3600
    assert r.total_flops.to("flop").magnitude == pytest.approx(3.15e23, rel=1e-15)
    assert r.peak_time.to("h").magnitude == pytest.approx(peak, rel=1e-12)
    assert r.compute_time.to("h").magnitude == pytest.approx(peak / 0.45, rel=1e-12)
    scaled = peak / 0.45 / 0.56
    assert r.scaled_time.to("h").magnitude == pytest.approx(scaled, rel=1e-12)
    stages = {"checkpoint": scaled * 1.03, "failures": scaled * 1.03 * 1.1, "maintenance": scaled * 1.03 * 1.1 * 1.05}
    assert list(r.stage_times) == list(stages)
    for name, hours in stages.items():
        assert r.stage_times[name].to("h").magnitude == pytest.approx(hours, rel=1e-12)
    assert r.total_time.to("h").magnitude == pytest.approx(stages["maintenance"], rel=1e-12)
    assert r.delivered_fraction == pytest.approx(0.45 * 0.56 / (1.03 * 1.1 * 1.05), rel=1e-12)


def test_listed_values():
    r = Scenarios.Gpt3PretrainingFrontier8K.result
    listed = {"peak_time": 5.397247268191005, "compute_time": 11.993882818202232, "scaled_time": 21.41764788964684,
              "total_time": 25.479504811918364}
    for name, hours in listed.items():
        assert getattr(r, name).to("h").magnitude == pytest.approx(hours, rel=1e-9), name
    for name, hours in {"checkpoint": 22.060177326336245, "failures": 24.26619505896987,
                        "maintenance": 25.479504811918364}.items():
        assert r.stage_times[name].to("h").magnitude == pytest.approx(hours, rel=1e-9)
    assert r.delivered_fraction == pytest.approx(0.21182700794351284, rel=1e-9)


def test_fleets_nodes_and_overheads():
    base = Scenarios.Gpt3PretrainingFrontier8K
    one = base.variant(fleet=Hardware.Cloud.H100)  # a single node is a fleet of one
    assert one.result.peak_time.to("h").magnitude == pytest.approx(3.15e23 / 1979e12 / 3600, rel=1e-12)
    a100 = base.variant(fleet=Systems.Clusters.Training_1K_A100, precision="fp16")
    assert a100.result.peak_time.to("h").magnitude == pytest.approx(3.15e23 / (1024 * 312e12) / 3600, rel=1e-12)
    with pytest.raises(ScenarioInputError, match="'fp8', which NVIDIA A100 does not list"):
        base.variant(fleet=Systems.Clusters.Training_1K_A100)  # the reference silently uses the headline peak
    none = base.variant(overheads={})
    assert none.result.stage_times == {} and none.result.total_time == none.result.scaled_time
    swapped = base.variant(overheads={"maintenance": 0.05, "checkpoint": 0.03})
    assert list(swapped.result.stage_times) == ["maintenance", "checkpoint"]
    assert swapped.result.stage_times["maintenance"].magnitude == pytest.approx(
        base.result.scaled_time.magnitude * 1.05, rel=1e-12)
    for name, bad in (("local_efficiency", 0), ("local_efficiency", 1.5), ("scaling_efficiency", 0),
                      ("scaling_efficiency", 1.5), ("overheads", {"x": -1})):
        with pytest.raises(ScenarioInputError, match=name):
            base.variant(**{name: bad})
    with pytest.raises(InputTypeError, match="fleet"):
        base.variant(fleet=Systems.Nodes.DGX_H100)
    with pytest.raises(Exception, match="training_tokens"):
        base.variant(workload=Models.Language.GPT2)


def test_the_scaling_efficiency_question():
    """total = t_peak/(0.45·η_s)·1.03·1.1·1.05 = 24 h gives η_s = 0.56 · 25.4795.../24."""
    from symbolic.analysis.solving import solve

    answer = solve(Scenarios.Gpt3PretrainingFrontier8K, "scaling_efficiency", "result.total_time", Q_(24, "h"))
    assert answer.values == [pytest.approx(0.56 * 25.479504811918364 / 24, rel=1e-9)]


@settings(max_examples=40, deadline=None)
@given(eta_l=st.floats(1e-3, 1), eta_s=st.floats(1e-3, 1),
       overheads=st.dictionaries(st.sampled_from("abcde"), st.floats(0, 10, allow_subnormal=False), max_size=4),
       fleet=st.sampled_from(["Frontier_8K", "Training_1K", "Training_1K_B200"]))
def test_evaluator_equals_exact_sympy(eta_l, eta_s, overheads, fleet):
    s = TrainingRunScenario(workload=Models.Language.Llama2_70B, fleet=getattr(Systems.Clusters, fleet),
                            local_efficiency=eta_l, scaling_efficiency=eta_s, overheads=overheads)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)
