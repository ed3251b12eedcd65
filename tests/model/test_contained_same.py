"""A contained scenario of another model (issue 24, defect 4): ``ScenarioInput(..., same=("workload",))``.

ZeroShardingScenario reads the saved activations of an ActivationMemoryScenario; both take a workload,
and the activations must be of the model whose state is sharded. Given both and differing, the
instance is refused naming both; a variant (and the CLI's ``--set``) that changes only the
container's workload rebinds the contained instance to it.
"""

from __future__ import annotations

import pytest

from generated import Models, ScenarioInputError, Scenarios, ZeroShardingScenario


def test_another_models_activations_are_refused_naming_both():
    with pytest.raises(ScenarioInputError, match=r"input 'activations' has workload='GPT-3 \(175B\)', but this "
                                                 r"ZeroShardingScenario has workload='Llama-2-7B'"):
        Scenarios.Llama2_7B_ZeroStages64.variant(activations=Scenarios.Gpt3ActivationsMicrobatch1)
    with pytest.raises(ScenarioInputError, match="must be the same"):
        ZeroShardingScenario(workload=Models.Language.Llama2_7B, n_devices=64,
                             activations=Scenarios.Gpt3ActivationsMicrobatch1)


def test_a_changed_workload_rebinds_the_activations():
    """Llama-3-8B on 64 devices: ZeRO-3 state 16 B · 8.03e9 / 64 = 2.0075 GB, plus Llama-3-8B's own
    activations at micro-batch 1 (the activation scenario built directly), not GPT-3's."""
    gpt3 = Scenarios.Gpt3Zero3On64
    llama = gpt3.variant(workload=Models.Language.Llama3_8B)
    assert llama.activations.workload == Models.Language.Llama3_8B
    own = Scenarios.Gpt3ActivationsMicrobatch1.variant(workload=Models.Language.Llama3_8B).activations["full"]
    assert llama.result.activations == own
    assert llama.result.stage_state["ZeRO-3"].to("GB").magnitude == pytest.approx(16 * 8.03e9 / 64 / 1e9, rel=1e-12)
    total = llama.result.zero3_total_per_device.to("GB").magnitude
    assert total == pytest.approx(16 * 8.03e9 / 64 / 1e9 + own.to("GB").magnitude, rel=1e-12)
    assert gpt3.activations.workload == Models.Language.GPT3  # the entry itself is unchanged


def test_the_cli_set_rebinds_too(capsys):
    from symbolic.cli import main

    assert main(["--json", "eval", "ZeroShardingScenario", "--from", "Gpt3Zero3On64", "--set",
                 "workload=Llama3_8B"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    expected = Scenarios.Gpt3Zero3On64.variant(workload=Models.Language.Llama3_8B)
    assert out["inputs"]["activations"] == "GPT-3 activations at micro-batch 1, with workload=Llama-3.1-8B"
    assert out["outputs"]["result.zero3_total_per_device"]["value"] == pytest.approx(
        expected.result.zero3_total_per_device.to("GB").magnitude, rel=1e-12)
