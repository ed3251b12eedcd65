"""Issue 42 item 1: a measurement says what it was taken under, and refuses what cannot be trusted.

The CLI is run as a user runs it (``main([...])``: exit status, standard output and error); the load
comes from ``conditions.system_load``, replaced here, so no test depends on this machine's load; the
probes are fakes that return fixed figures at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symbolic.calibration import calibrate as calibration
from symbolic.calibration import conditions, here, machine
from symbolic.calibration.probes import Figure, Probe
from symbolic.cli import main

QUIET = (0.2, 0.2, 0.2)
BUSY = (5.9, 5.0, 4.0)  # the load, on a two-core machine
FACTS = {"cpu_model": "Test CPU 9000", "cores": 2, "memory": "16.0 GiB", "caches": ["L2 512 KiB (1 CPU)"],
         "blas": "openblas 0.3", "blas_kernel": "Haswell", "numpy": "2.0", "torch": "not installed",
         "max_hz": 3.7e9, "vector_bits": 256}


def fixed_probe(values: dict[str, list[float]], units: dict[str, str], calls: list[str]) -> list[Probe]:
    """One fake probe per figure, returning ``values[name][block]``: instant, no clock read."""
    chosen = []
    for name, series in values.items():
        blocks = iter(series)

        def block(clock: object, min_time: float, name: str = name, blocks: object = blocks) -> dict[str, float]:
            calls.append(name)
            return {name: next(blocks)}  # type: ignore[call-overload]

        chosen.append(Probe(name, {name: Figure(units[name], f"a fake {name}")}, block))
    return chosen


@pytest.fixture
def machine_under(monkeypatch: pytest.MonkeyPatch):
    """Set the load the run sees and the figures its probes return; returns the probes' calls."""
    calls: list[str] = []

    def configure(load: tuple[float, float, float], values: dict[str, list[float]]) -> list[str]:
        units = {name: ("GFLOP/s" if name.startswith("matmul") else "µs" if name.startswith("numpy") else "GB/s")
                 for name in values}
        monkeypatch.setattr(conditions, "system_load", lambda: load)
        monkeypatch.setattr(machine, "usable_cores", lambda: 2)
        monkeypatch.setattr("symbolic.cli.calibration.usable_cores", lambda: 2)
        monkeypatch.setattr(machine, "facts", lambda: dict(FACTS))
        monkeypatch.setattr(calibration, "standard_probes",
                            lambda plan, threads, facts, pool: fixed_probe(values, units, calls))
        return calls

    return configure


STEADY = {"matmul_fp32_t1": [50.0, 50.0, 50.0], "stream_add_t1": [12.0, 12.0, 12.0],
          "numpy_op_alloc": [1.5, 1.5, 1.5]}


def test_calibrate_checks_the_load_before_it_measures(machine_under, tmp_path: Path, capsys) -> None:
    calls = machine_under(BUSY, STEADY)
    out = tmp_path / "node.toml"
    assert main(["calibrate", "--quick", "--threads", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("mlsysym: calibrate: not measured: the machine is too loaded to measure: load average 5.90 "
                   "before the run on 2 cores (limit 0.75 per core from other processes); nothing written "
                   "(--force measures anyway)\n")
    assert calls == [] and not out.exists()  # refused at once: not one block measured


def test_a_quiet_calibration_is_written_with_no_flag(machine_under, tmp_path: Path, capsys) -> None:
    machine_under(QUIET, STEADY)
    out = tmp_path / "node.toml"
    assert main(["calibrate", "--quick", "--threads", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "FLAGGED" not in text and "NOT TRUSTED" not in text and "verdict: ok" in text
    assert out.exists()


def test_an_impossible_cache_bandwidth_is_flagged_and_not_written(machine_under, tmp_path: Path, capsys) -> None:
    # one core at 3.7 GHz with 256-bit vectors moves at most 3 x 32 byte a cycle: 3.7e9 x 96 = 355.2 GB/s;
    # the 10.5 TB/s "L1 add" is 30 times that: a timing artefact (the call cost taken off a tiny time)
    machine_under(QUIET, {**STEADY, "add_l1": [10_500.0, 10_400.0, 10_600.0]})
    out = tmp_path / "node.toml"
    assert main(["calibrate", "--quick", "--threads", "1", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    first = captured.out.splitlines()[0]
    assert first.startswith("NOT TRUSTED: 1 figure flagged, first add_l1: 1.05e+04 GB/s is above the physical "
                            "ceiling of 355.2 GB/s (1 thread; 3.70 GHz x 256-bit vectors")
    row = next(line for line in captured.out.splitlines() if line.startswith("add_l1 "))
    assert "FLAGGED: 1.05e+04 GB/s is above the physical ceiling of 355.2 GB/s" in row
    assert not out.exists() and "nothing written (--force writes it anyway)" in captured.err
    assert main(["calibrate", "--quick", "--threads", "1", "--out", str(out), "--force"]) == 2
    assert "verdict = \"measured anyway: 1 figure flagged, first add_l1" in out.read_text(encoding="utf-8")


def test_a_peak_above_the_cores_fma_pipes_is_flagged(machine_under, capsys) -> None:
    # 3.7 GHz x 8 fp32 lanes x 2 (multiply-add) x 2 pipes = 118.4 GFLOP/s per thread
    machine_under(QUIET, {**STEADY, "matmul_fp32_t1": [150.0, 150.0, 150.0]})
    assert main(["calibrate", "--quick", "--threads", "1"]) == 2
    assert "matmul_fp32_t1: 150 GFLOP/s is above the physical ceiling of 118.4 GFLOP/s" in capsys.readouterr().out


def test_a_spread_beyond_the_limit_is_flagged_on_any_figure(machine_under, capsys) -> None:
    # the 302 % spread: blocks of 10, 40 and 13.3 GB/s, median 13.3: (40 - 10) / 13.3 = 225 %
    machine_under(QUIET, {**STEADY, "add_l2": [10.0, 40.0, 13.3]})
    assert main(["calibrate", "--quick", "--threads", "1"]) == 2
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("add_l2 "))
    assert row.endswith("FLAGGED: its blocks spread 226%, beyond the 25% limit")


NODE = """\
format = 1

[node]
name = "Test CPU, 1 thread"
memory_bandwidth = "10 GB/s"
peak_flops = "50 GFLOP/s"

[host]
threads = 1
verdict = "ok"

[measured.matmul_fp32_t1]
value = "50 GFLOP/s"
spread = 0.031
blocks = 7
method = "a fake matmul"
"""

ROWS = {"rows": [{"name": "fusion chain 1", "kind": "fusion", "quantity": "time",
                  "measured": {"value": 2.0, "unit": "µs"}, "predicted": {"value": 82.0, "unit": "µs"},
                  "error": 40.0, "repeat": 0.5}],
        "summary": {"fusion": {"points": 1, "median_abs_error": 40.0, "mean_abs_error": 40.0,
                               "max_abs_error": 40.0, "within_2x": 0, "within_20pct": 0, "noise": 0.5}},
        "calibration_blocks": [], "drift": {"matmul_fp32_t1": 0.05}}


@pytest.fixture
def validate_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``validate --here --node NODE`` with the load sequence given and the workloads' rows fixed."""
    node = tmp_path / "node.toml"
    node.write_text(NODE, encoding="utf-8")
    ran: list[bool] = []

    def configure(*loads: tuple[float, float, float]) -> list[bool]:
        readings = iter(loads)
        monkeypatch.setattr(conditions, "system_load", lambda: next(readings))
        monkeypatch.setattr("symbolic.cli.calibration.usable_cores", lambda: 2)
        monkeypatch.setattr(here, "run", lambda *a, **k: ran.append(True) or json.loads(json.dumps(ROWS)))
        return ran

    return node, configure


def test_validate_here_on_a_loaded_machine_measures_nothing(validate_here, capsys) -> None:
    node, configure = validate_here
    ran = configure(BUSY)
    assert main(["validate", "--here", "--node", str(node)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not ran
    assert captured.err == ("mlsysym: validate --here: not measured: the machine is too loaded to measure: load "
                            "average 5.90 before the run on 2 cores (limit 0.75 per core from other processes); "
                            "its errors would measure the other processes, not the model (--force measures "
                            "anyway)\n")


def test_a_run_that_became_loaded_says_so_at_the_top_and_fails(validate_here, capsys) -> None:
    node, configure = validate_here
    configure(QUIET, (4.2, 3.0, 1.0))  # quiet at the start; 4.2 - 1 (our own) > 0.75 x 2 at the end
    assert main(["validate", "--here", "--node", str(node)]) == 2
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == ("NOT TRUSTED: the machine is too loaded to measure: load average 4.20 after the run on 2 "
                        "cores (limit 0.75 per core from other processes): the errors below measure the machine's "
                        "other work, not the model")
    condition = (f"conditions: load average 0.20 before, 4.20 after on 2 cores; calibration ({node}): ok, spread "
                 "matmul_fp32_t1 3.1%; blocks between suites moved matmul_fp32_t1 5.0%")
    assert lines.count(condition) == 2  # under the rows and under the summary: every table carries them
    assert "not trusted: the machine is too loaded" in captured.err and "(--force accepts the run)" in captured.err


def test_force_accepts_the_run_but_still_says_so(validate_here, capsys) -> None:
    node, configure = validate_here
    configure(BUSY, BUSY)
    assert main(["validate", "--here", "--node", str(node), "--force"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NOT TRUSTED: the machine is too loaded to measure: load average 5.90 before the run")


def test_a_quiet_run_is_trusted_and_its_json_carries_the_conditions(validate_here, capsys) -> None:
    node, configure = validate_here
    configure(QUIET, (1.1, 0.5, 0.3))
    assert main(["--json", "validate", "--here", "--node", str(node)]) == 0
    found = json.loads(capsys.readouterr().out)["conditions"]
    assert found["trusted"] is True and found["problems"] == []
    assert found["load_before"] == [0.2, 0.2, 0.2] and found["load_after"] == [1.1, 0.5, 0.3]
    assert found["calibration_verdict"] == "ok" and found["calibration_spread"] == {"matmul_fp32_t1": 0.031}


def test_a_refused_calibration_makes_the_run_untrusted(validate_here, capsys) -> None:
    node, configure = validate_here
    node.write_text(NODE.replace('verdict = "ok"', 'verdict = "measured anyway: numpy_op_alloc spread 26%"'),
                    encoding="utf-8")
    configure(QUIET, QUIET)
    assert main(["validate", "--here", "--node", str(node)]) == 2
    assert capsys.readouterr().out.startswith(
        "NOT TRUSTED: the calibration's verdict is 'measured anyway: numpy_op_alloc spread 26%'")
