"""``mlsysym search``: the table, --json, the axis grammar, usage errors (exit 2), the progress bar."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generated import Hardware, Models, Scenarios
from symbolic.cli import main
from symbolic.cli.search import parse_axis
from symbolic.runtime.search import EACH_PRECISION, every, search

ROOT = Path(__file__).resolve().parents[2]
DECODE = ["search", "Llama2_70B_DecodeH100", "--vary", "hardware=Cloud.*", "--vary", "tp_size=1..8:log2",
          "--where", "result.weight_bytes <= hardware.memory_capacity", "--minimize", "hardware.unit_cost * tp_size",
          "--top", "3"]


def test_table_and_json_agree_with_the_python_api(capsys: pytest.CaptureFixture[str]) -> None:
    expected = search(Scenarios.Llama2_70B_DecodeH100, {"hardware": every(Hardware.Cloud), "tp_size": [1, 2, 4, 8]},
                      "result.weight_bytes <= hardware.memory_capacity", minimize="hardware.unit_cost * tp_size",
                      top=3)
    assert main(["--json", *DECODE]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["inputs"]["hardware"] for row in data["rows"]] == [f"Hardware.{r.inputs['hardware'].path}"
                                                                   for r in expected.rows]
    assert (data["size"], data["invalid"], data["feasible"]) == (expected.size, expected.invalid, expected.feasible)
    assert main(DECODE) == 0
    text = capsys.readouterr().out
    assert f"{expected.size:,} points: {expected.evaluated:,} evaluated" in text
    assert "hardware.unit_cost * tp_size [dollar]" in text and "Hardware.Cloud." in text


def test_axes() -> None:
    cls = type(Scenarios.Llama2_70B_DecodeH100)
    assert parse_axis(cls, "hardware=Cloud.*")[1] == every(Hardware.Cloud)
    assert len(parse_axis(cls, "hardware=*")[1]) == sum(len(tier) for _, tier in Hardware.items())
    assert parse_axis(cls, "hardware=H100,Edge.Coral")[1] == [Hardware.Cloud.H100, Hardware.Edge.Coral]
    assert parse_axis(cls, "workload=Language.*,Mamba_130M")[1] == every(Models.Language) + [Models.StateSpace.Mamba_130M]
    assert parse_axis(cls, "peak_precision=each")[1] is EACH_PRECISION
    assert parse_axis(cls, "precision=fp16,fp8")[1] == ["fp16", "fp8"]
    assert parse_axis(cls, "batch_size=1..64:log2")[1].tolist() == [1, 2, 4, 8, 16, 32, 64]


@pytest.mark.parametrize("extra, message", [
    (["--vary", "hardware=Clod.*", "--minimize", "result.memory_time"], "unknown Hardware tier 'Clod'"),
    (["--vary", "tp_size=1..4", "--minimize", "result.memory_tim"], "unknown name 'result.memory_tim'"),
    (["--vary", "tp_size=1..4", "--where", "result.memory_time <= 3", "--minimize", "result.memory_time"],
     "give the number its unit"),
    (["--vary", "tp_size=1..4"], "needs an objective"),
    (["--vary", "tp_sise=1..4", "--minimize", "result.memory_time"], "did you mean tp_size"),
    (["--vary", "tp_size=1..4", "--minimize", "result.memory_time", "--top", "0"], "--top must be at least 1"),
    # read as a double, 2**53 + 1 was 2**53: the search ran there and reported a tp_size nobody gave
    (["--vary", "tp_size=9007199254740993", "--minimize", "result.memory_time"], "value 9007199254740993 is beyond 2**53"),
])
def test_usage_errors_exit_2(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "Llama2_70B_DecodeH100", *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_class_with_set_inputs_and_the_progress_bar() -> None:
    out = subprocess.run([sys.executable, "-m", "symbolic.cli", "search", "KernelFusionScenario",
                          "--set", "chain_length=2", "--vary", "dispatch=0us..1000us:lin=3000",
                          "--vary", "launch=0us..10us:lin=1000", "--minimize", "fused_overhead",
                          "--where", "fused_overhead >= 20 us", "--chunk", "50000", "--top", "2", "--progress"],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "3,000,000 points: 2,999,999 evaluated, 1 invalid (skipped)" in out.stdout
    assert "[####" in out.stderr and "3,000,000/3,000,000 points" in out.stderr  # the bar


def test_the_console_example_of_the_search_page(capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    page = (ROOT / "generated" / "docs" / "search.md").read_text(encoding="utf-8")
    block = page.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    command, summary, *reasons_and_table = block
    assert main(shlex.split(command.removeprefix("$ mlsysym "))) == 0
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith(summary + " (") and rest == reasons_and_table


def test_the_summary_says_how_many_feasible_points_an_undefined_objective_left_unranked(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "HierarchicalAllReduce8x8DgxH100", "--vary", "n_nodes=1..4",
                 "--minimize", "1 / (n_nodes - 2)"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("4 points: 4 evaluated, 0 invalid (skipped), 4 feasible (1 of them unranked: "
                            "the objective is undefined there"), first


def test_an_input_both_varied_and_set_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """The varied values used to replace the --set (or fixed=) one without a word."""
    assert main(["search", "Llama2_70B_DecodeH100", "--vary", "tp_size=1..4", "--set", "tp_size=2",
                 "--minimize", "result.memory_time"]) == 2
    assert "tp_size is given to both --vary and --set" in capsys.readouterr().err
    from symbolic.runtime.errors import ScenarioInputError

    with pytest.raises(ScenarioInputError, match="'tp_size' is both varied and fixed"):
        search(Scenarios.Llama2_70B_DecodeH100, {"tp_size": [1, 2]}, fixed={"tp_size": 2}, minimize="result.memory_time")
