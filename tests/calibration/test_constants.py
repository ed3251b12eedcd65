"""`make validate-here` writes the registry's MeasuredCpu figures from the node file (no hand copy)."""

import tomllib

import pytest

from symbolic.calibration import constants
from symbolic.catalog import constant_records

NODE = """
format = 1
[host]
cpu_model = "Test CPU"
cores = 4
date = "2026-12-02T05:41:53Z"
load_average_before = [0.25, 0.1, 0.0]
load_average_after = [0.5, 0.2, 0.1]
verdict = "measured"
[measured.matmul_fp32_t1]
value = "91.06 GFLOP/s"
[measured.stream_triad_t1]
value = "15.76 GB/s"
[measured.fresh_allocation]
value = "82.8 µs/MB"
"""


def test_values_are_rewritten_and_nothing_else():
    original = constants.CONSTANTS.read_text()
    text, kept = constants.rewrite(original, tomllib.loads(NODE))
    assert kept == ["EagerTorchOp", "BackwardFixed", "BackwardPerNode"]  # torch figures not in this run
    parsed, before = tomllib.loads(text), tomllib.loads(original)
    assert parsed["MeasuredCpu"]["MatmulFp32"]["value"] == "91.06 GFLOP/s"
    assert parsed["MeasuredCpu"]["StreamTriad"]["value"] == "15.76 GB/s"
    assert parsed["MeasuredCpu"]["FreshAllocation"]["value"] == "82.8 µs/MB"
    assert parsed["MeasuredCpu"]["EagerTorchOp"] == before["MeasuredCpu"]["EagerTorchOp"]
    for section, entries in before.items():  # every other entry, value and doc, unchanged
        if section != "MeasuredCpu":
            assert parsed[section] == entries
    assert "Test CPU, 4 cores" in text and "load average 0.25 before" in text
    assert "kept from an earlier one): EagerTorchOp, BackwardFixed, BackwardPerNode" in text
    assert max(len(line) for line in text.splitlines() if line.startswith("#")) <= 120
    again, _ = constants.rewrite(text, tomllib.loads(NODE))  # idempotent: one header, not two
    assert again == text


def test_the_committed_figures_are_those_of_the_committed_node_file():
    node = tomllib.loads((constants.CONSTANTS.parents[2] / "benchmarks" / "this_machine_node.toml").read_text())
    values = {r.key: r.value for r in constant_records() if r.section == "MeasuredCpu"}
    for entry, figure in constants.FIGURES.items():
        if figure in node["measured"]:
            assert values[entry] == node["measured"][figure]["value"], entry


def test_a_constants_file_without_the_entries_is_refused():
    with pytest.raises(ValueError, match="no \\[MeasuredCpu.EagerTorchOp\\] entry"):
        constants.rewrite("[Other.X]\nvalue = '1'\n", tomllib.loads(NODE))
