"""Solving on one entry of a keyed list output (result.ring_time[64]); the CLI on keyed lists."""

from __future__ import annotations

import json

import pytest
import sympy

from generated import Q_, Scenarios
from symbolic.analysis import derive, solving
from symbolic.cli import main
from symbolic.analysis.list_entries import entry_form, entry_keys, missing_key
from symbolic.scenarios.distributed.alpha_beta import AlphaBetaScenario as AlphaBeta


def test_ring_and_tree_cross_where_the_exact_crossover_says():
    """Solving ring_time[64] = tree_time[64] for the message gives the declared crossover_exact[64]:
    (R − T)·α·β/(T − f) = 114 · 1e-5 s · 1e10 B/s / (12 − 1.96875) = 1.1364486 MB."""
    s = Scenarios.RingVsTreeSmallBuffer
    solution = solving.solve(s, "message", "result.ring_time[64]", "result.tree_time[64]")
    assert solution.values == [pytest.approx(114 * 1e5 / (12 - 1.96875) / 1e6, rel=1e-12)]
    assert solution.values[0] == pytest.approx(s.result.crossover_exact[64].to("MB").magnitude, rel=1e-12)
    eight = solving.solve(Scenarios.GradientBufferAllReduceNdr, "message", "result.ring_time[8]", "result.tree_time[8]")
    assert eight.values == [pytest.approx(0.1411764705882353, rel=1e-12)]  # MB: the position of 8 is 0


def test_an_entry_of_a_keyed_input_by_name():
    """compute_fractions[Ethernet] = 0.5 when t = B/β = 7e11 B / 1.25e10 B/s = 56 s."""
    solution = solving.solve(Scenarios.Gpt3GradientSync, "compute_time", "result.compute_fractions[Ethernet]", 0.5)
    assert solution.values == [pytest.approx(56.0, rel=1e-12)]
    nvlink = solving.solve(Scenarios.BufferTransfer10GB, "payload", "result.times[NVLink]", Q_(1, "ms"))
    assert nvlink.values == [pytest.approx(0.45, rel=1e-12)]  # 1 ms × 450 GB/s, in GB


def test_entries_need_an_instance_and_a_key_it_has():
    with pytest.raises(derive.DerivationError, match="no entry 'NVLink' here"):
        solving.solve(Scenarios.Gpt3WeightsColdStart, "payload", "result.times[NVLink]", Q_(1, "ms"))
    with pytest.raises(derive.DerivationError, match="known only at an instance"):
        solving.solve("TransferScenario", "payload", "result.times[NVLink]", Q_(1, "ms"))
    with pytest.raises(derive.DerivationError, match=r"name one entry with 2 keys"):
        derive.is_entry(AlphaBeta.model, "result.times[NDR]")
    keys = entry_keys({"links": {"a": 1}, "sizes": [64, 64, 8]})
    assert keys == {"links": ["a"], "sizes": ["64", "8"]}
    assert missing_key(AlphaBeta.model, "result.times[NDR][big]", {"alphas": ["NDR"], "messages": ["small"]}) == \
        "`big` among its `messages`"


def test_a_grid_entry_reads_its_row_and_column():
    """times[RoCE 400G][shard] at keys (NDR, RoCE 400G) × (control, shard): α₁ + M₁/β₁."""
    unit, form = entry_form(AlphaBeta.model, "result.times[RoCE 400G][shard]",
                            {"alphas": ["NDR", "RoCE 400G"], "messages": ["control", "shard"]})
    alphas, bandwidths, messages = (d.symbol for d in AlphaBeta.model.inputs)
    assert unit == "s"
    assert sympy.simplify(form - (alphas[1] + messages[1] / bandwidths[1])) == 0


def test_cli_eval_with_a_dict_and_solve_on_an_entry(capsys):
    assert main(["eval", "TransferScenario", "--from", "TensorParallelExchange1GB", "--set",
                 "links={NVLink: 900 GB/s}", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["outputs"]["result.times"]["value"] == [pytest.approx(1e9 / 900e9 * 1e3, rel=1e-12)]
    assert main(["solve", "RingVsTreeSmallBuffer", "--for", "message", "--where",
                 "result.ring_time[64]=result.tree_time[64]", "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    assert solved["values"] == [pytest.approx(1.1364485981308412, rel=1e-12)] and solved["unit"] == "MB"


def test_show_prints_keyed_lists_under_their_keys(capsys):
    assert main(["show", "AlphaBetaHdrNdrSmallMessage"]) == 0
    text = capsys.readouterr().out
    assert "{'HDR': {'small': 1.9e-06}, 'NDR': {'small': 1.7e-06}} s" in text
    assert "{'HDR': 37500, 'NDR': 75000} B" in text
