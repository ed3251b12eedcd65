"""Differences from the reference that are right and now stated: sparse training compute at active
parameters, Quantities where the reference returns floats, and reference outputs left out."""

from __future__ import annotations

import pytest

from generated import Models, Q_, Scenarios
from symbolic.scenarios.discover import discover

MODELS = {module.model.name: module.model for module in discover()}


def test_sparse_training_compute_is_at_active_parameters_and_says_so():
    deepseek = Models.Language.DeepSeek_V3  # 6.71e11 parameters, 3.7e10 active, 1.48e13 training tokens
    run = Scenarios.Gpt3PretrainingFrontier8K.variant(workload=deepseek)
    assert run.result.total_flops.to("flop").magnitude == pytest.approx(6 * 3.7e10 * 1.48e13, rel=1e-12)  # 3.2856e24
    gpt3 = Scenarios.Gpt3DataParallel1K  # same batch tokens D: 6·3.7e10·D against GPT-3's 6·1.75e11·D
    ratio = gpt3.variant(workload=deepseek).result.step_flops / gpt3.result.step_flops
    assert ratio.to("").magnitude == pytest.approx(3.7e10 / 1.75e11, rel=1e-12)
    for scenario, output in (("TrainingRunScenario", "result.total_flops"),
                             ("DataParallelIntensityScenario", "result.flops_per_step"),
                             ("ParallelLayoutScenario", "result.step_flops"),
                             ("ClusterTrainingTimeScenario", "step_operations"),
                             ("TransformerBlockScenario", "six_p_step_flops")):
        differs = MODELS[scenario].differs
        stated = " ".join(why for name, why in differs.items() if name in (output, output.split(".")[-1]))
        assert any(words in stated for words in ("active parameters", "active ones", "work on a token")), (scenario, output)


def test_quantities_where_the_reference_returns_floats_are_stated():
    intensity = Scenarios.Gpt3DataParallelIntensity.result
    assert intensity.intensity.units == Q_(1, "byte/flop").units and intensity.balance.units == intensity.intensity.units
    assert Scenarios.Gpt2DataParallelOneNode.variant(node_hour_rate=Q_(32, "dollar/h")).result.cost.units == Q_(
        1, "dollar").units
    for scenario, name in (("DataParallelIntensityScenario", "result.intensity"),
                           ("DataParallelIntensityScenario", "result.balance"),
                           ("DataParallelScaleOutScenario", "result.cost"), ("AlphaBetaScenario", "bandwidths")):
        assert "reference" in MODELS[scenario].differs[name] and "Quantity" in MODELS[scenario].differs[name]


def test_outputs_the_reference_always_returns_none_are_named_left_out():
    assert set(MODELS["ServingScenario"].left_out) >= {"result.prefill_chunk_time", "result.decode_stall_bound"}
    assert "result.constraint_trace" in MODELS["DecodeScenario"].left_out
    for scenario in ("ServingScenario", "DecodeScenario"):
        from pathlib import Path

        page = (Path(__file__).parents[2] / "generated" / "docs" / "scenarios" / f"{scenario}.md").read_text()
        for name in MODELS[scenario].left_out:
            assert f"`{name}` (left out)" in page


def test_switch_fabric_entries_of_the_networking_spec():
    from generated import Systems

    fabric = Systems.SwitchFabric  # networking spec §1.3: HopLatency 0.6 µs, NdrSwitchPorts 64.0, optics 20 W
    assert fabric.HopLatency == Q_(0.6, "µs") and fabric.OpticsPluggable400G == Q_(20, "W")
    assert fabric.NdrSwitchPorts == Q_(64.0, "") and int(fabric.NdrSwitchPorts.magnitude) == 64
