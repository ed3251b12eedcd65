"""``validate --here`` on a small grid, timed by a fake clock: the rows, their errors, the summary and
the page's tables. The accuracy itself is a benchmark (the "This machine" page), never a test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symbolic.calibration import here, workloads
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.node_file import read_node_file

NODE = """\
format = 1

[node]
name = "Test CPU, 1 thread"
memory_bandwidth = "10 GB/s"
peak_flops = "50 GFLOP/s"

[node.precision_flops]
fp32 = "50 GFLOP/s"

[host]
cores = 2
data_cache_levels = ["l1", "l2"]
data_cache_bytes = [32768, 524288]

[measured.numpy_op_alloc]
value = "2 µs"
spread = 0.05
blocks = 3
method = "a tiny add"

[measured.numpy_op]
value = "1 µs"
spread = 0.05
blocks = 3
method = "a tiny add into an existing result"

[measured.numpy_call_mean]
value = "10 µs"
spread = 0.1
blocks = 3
method = "numpy.mean of a tiny array"

[measured.gemm_half_rows]
value = "30"
spread = 0.1
blocks = 3
method = "skinny multiplies"

[measured.fresh_allocation]
value = "400 µs/MB"
spread = 0.1
blocks = 3
method = "a fresh 64 MB add"

[measured.add_l1]
value = "40 GB/s"
spread = 0.0
blocks = 3
method = "an L1 add"

[measured.add_l2]
value = "30 GB/s"
spread = 0.0
blocks = 3
method = "an L2 add"
"""


class Clock:
    """Every reading 1 ms after the last: any timed loop of one call lasts 1 ms, whatever it ran."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1e-3
        return self.now


SMALL = here.Grid(hidden=(8,), batches=(2,), adam_sizes=(64,), chains=(1, 3), epoch_batches=(16,),
                  epoch_examples=64, min_time=5e-4, torch=False)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("node") / "node.toml"
    path.write_text(NODE, encoding="utf-8")
    return here.run(read_node_file(path), here.SUITES, SMALL, clock=Clock())


def test_every_suite_gives_rows_in_validates_form(run: dict) -> None:
    kinds = {row["kind"] for row in run["rows"]}
    assert kinds == {"mlp-numpy", "adam-numpy", "roofline", "fusion", "epoch"}
    for row in run["rows"]:
        assert set(row) >= {"name", "kind", "quantity", "measured", "predicted", "error", "repeat"}
        assert row["error"] == pytest.approx(row["predicted"]["value"] / row["measured"]["value"] - 1)
        assert row["repeat"] == pytest.approx(0, abs=1e-12)  # the fake clock makes both passes alike
    json.dumps(run)  # plain data throughout


def test_a_time_point_measures_one_loop_of_the_fake_clock(run: dict) -> None:
    # each loop of one call lasts 1 ms on the fake clock: 1000 µs for a step, 1 ms for an epoch
    mlp = next(row for row in run["rows"] if row["kind"] == "mlp-numpy")
    assert mlp["measured"] == {"value": pytest.approx(1000.0), "unit": "µs"}
    epoch = next(row for row in run["rows"] if row["kind"] == "epoch")
    assert epoch["measured"]["value"] == pytest.approx(1.0)


def test_the_mlp_prediction_uses_the_traced_counts(run: dict) -> None:
    mlp = next(row for row in run["rows"] if row["kind"] == "mlp-numpy")
    # the hand-written step: forward matmul, bias add, maximum, matmul, bias add, max, subtract, exp,
    # sum, divide, take_along_axis, log, negative, mean (14); backward subtract, divide, matmul, sum,
    # matmul, greater, multiply, matmul, sum (9). Every call at 2 µs but mean, which the node file
    # prices at 10 µs: forward (13 x 2 + 10) / 14 = 2.5714 µs a call. Host: (14 + 1) x 2.5714 + 9 x 2
    # = 56.571 µs
    assert mlp["counts"] == {"forward": 14, "backward": 9}
    assert mlp["host_us"] == pytest.approx(56.571, rel=1e-4)
    assert mlp["assumed_counts_us"] < mlp["predicted"]["value"]  # (4 + 1) calls at 2 µs
    assert mlp["gemm_half_rows"] == 30  # numpy's multiplies priced with the node file's figure


def test_fusion_predicts_one_dispatch_per_operation(run: dict) -> None:
    chains = {row["name"]: row["predicted"]["value"] for row in run["rows"] if row["kind"] == "fusion"}
    assert chains == {"fusion unfused chain of 1 tiny ops": pytest.approx(2.0),
                      "fusion unfused chain of 3 tiny ops": pytest.approx(6.0)}


def test_a_roofline_point_reads_the_cache_level_it_fits_in(run: dict) -> None:
    l1 = next(row for row in run["rows"] if row["name"].startswith("roofline multiply l1"))
    # an eighth of L1: 170 elements, 4,080 bytes, 170 flop. 4,080 B at 40 GB/s = 0.102 µs (the
    # 170 flop at 50 GFLOP/s take 0.0034 µs), plus the 1 µs call: 170 flop / 1.102 µs = 0.15426 GFLOP/s
    assert l1["level"] == "l1" and l1["predicted"]["value"] == pytest.approx(0.15426, rel=1e-4)
    l2 = next(row for row in run["rows"] if row["name"].startswith("roofline multiply l2"))
    # L2 measured at sqrt(32 KiB x 512 KiB) = 128 KiB, checked at sqrt(32 KiB x 128 KiB) = 64 KiB
    assert l2["name"] == "roofline multiply l2 (65520 B)" and l2["level"] == "l2"
    dram = next(row for row in run["rows"] if row["name"].startswith("roofline multiply dram"))
    # 16 x 512 KiB = 8,388,608 bytes: 349,525 elements, 8,388,600 bytes at 10 GB/s = 838.86 µs, plus
    # 1 µs: 349,525 flop / 839.86 µs = 0.41617 GFLOP/s
    assert dram["level"] == "dram" and dram["predicted"]["value"] == pytest.approx(0.41617, rel=1e-4)


def test_adam_reads_the_cache_level_its_state_fits_in(run: dict) -> None:
    adam = next(row for row in run["rows"] if row["name"] == "adam numpy in-place N=6e+01")
    # 64 parameters: weights, gradients and two moments, 4 x 64 x 4 B = 1,024 B, fit in the 32 KiB L1.
    # 31 values x 64 x 4 B = 7,936 B at L1's 40 GB/s = 0.1984 µs, plus 13 calls at 2 µs: 26.1984 µs
    assert adam["level"] == "l1" and adam["bandwidth_gbs"] == pytest.approx(40.0)
    assert adam["predicted"]["value"] == pytest.approx(0.0261984)


def test_the_summary_counts_points_and_errors(run: dict) -> None:
    fusion = run["summary"]["fusion"]
    errors = sorted(abs(row["error"]) for row in run["rows"] if row["kind"] == "fusion")
    # measured 1 ms = 1000 µs per chain, predicted 2 and 6 µs: errors -0.998 and -0.994
    assert errors == pytest.approx([0.994, 0.998])
    assert fusion["points"] == 2 and fusion["median_abs_error"] == pytest.approx(0.996)
    assert fusion["within_2x"] == 0 and fusion["noise"] == pytest.approx(0, abs=1e-12)
    assert [block["suite"] for block in run["calibration_blocks"]][-1] == "end"


def test_the_page_tables_come_from_the_rows(run: dict, tmp_path: Path) -> None:
    from symbolic.codegen import machine_page

    path = tmp_path / "run.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    page = machine_page.machine_run(path)
    assert page is not None
    assert page["counts"] == [{"kind": "mlp-numpy", "forward": 14, "backward": 9, "assumed_forward": 4,
                               "assumed_backward": 5}]
    assert {(r["kind"], r["regime"]) for r in page["regimes"]} >= {("fusion", "host")}
    left = page["left"]
    assert all(item["kind"] == "mlp-numpy" for item in left)


def test_suites_are_read_strictly() -> None:
    assert here.parse_suites("mlp, adam,mlp") == ("mlp", "adam")
    with pytest.raises(ScenarioInputError, match="'gpu' is not a suite"):
        here.parse_suites("mlp,gpu")


def test_the_adam_tracer_counts_values_moved() -> None:
    # in place: 13 operations; values read + written per parameter: m*=b1 (2), g*(1-b1) (2), m+=tmp (3),
    # v*=b2 (2), g*g (3), *(1-b2) (2), v+=tmp (3), sqrt (2), /c (2), +eps (2), m/tmp (3), *-s (2), w+=tmp (3)
    counts = workloads.adam_counts(64, inplace=True)
    assert counts.ops == {"forward": 13} and counts.values == 31 and counts.fresh == 0
    fresh = workloads.adam_counts(64, inplace=False)
    assert fresh.fresh == 13  # every operation returns a new array
