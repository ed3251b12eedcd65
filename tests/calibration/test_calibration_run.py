"""A calibration run on fake probes, a fake clock and a fake load: verdicts and the node file."""

from __future__ import annotations

from pathlib import Path

import pytest

from symbolic.calibration import calibrate as calibration
from symbolic.calibration import probes
from symbolic.calibration.probes import Figure, Probe
from symbolic.calibration.timing import per_call
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.node_file import hardware_from_file, read_node_file

FACTS = {"cpu_model": "Test CPU 9000", "cores": 2, "memory": "16.0 GiB", "caches": ["L2 512 KiB (1 CPU)"],
         "blas": "openblas 0.3", "blas_kernel": "Haswell", "numpy": "2.0", "torch": "not installed"}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_probes(clock: Clock, matmul_seconds: list[float]) -> list[Probe]:
    """Probes whose calls take known fake times: a 1 GFLOP matmul taking matmul_seconds[block]
    (one entry per block), a 24 MB add in 2 ms, a tiny op in 1.5 µs."""
    blocks = iter(matmul_seconds)

    def tick(seconds: float) -> None:
        clock.now += seconds

    def matmul(clock_: Clock, min_time: float) -> dict[str, float]:
        seconds = next(blocks)
        return {"matmul_fp32_t1": 1e9 / per_call(lambda: tick(seconds), clock_, min_time) / 1e9}

    def stream(clock_: Clock, min_time: float) -> dict[str, float]:
        return {"stream_add_t1": 24e6 / per_call(lambda: tick(2e-3), clock_, min_time) / 1e9}

    def op(clock_: Clock, min_time: float) -> dict[str, float]:
        return {"numpy_op_alloc": per_call(lambda: tick(1.5e-6), clock_, min_time) * 1e6}

    return [Probe("matmul", {"matmul_fp32_t1": Figure("GFLOP/s", "a fake 1 GFLOP matmul")}, matmul),
            Probe("stream", {"stream_add_t1": Figure("GB/s", "a fake 24 MB add")}, stream),
            Probe("op", {"numpy_op_alloc": Figure("µs", "a fake tiny op")}, op)]


def run(matmul_seconds: list[float], load: tuple[float, float, float] = (0.2, 0.3, 0.3)) -> calibration.Calibration:
    clock = Clock()
    plan = calibration.Plan("test", blocks=len(matmul_seconds), min_time=0.01, matmul_n=8)
    return calibration.calibrate(plan, (1,), clock=clock, loadavg=lambda: load, facts=FACTS,
                                 chosen=fake_probes(clock, matmul_seconds))


def test_a_quiet_run_gives_medians_and_a_verdict() -> None:
    # matmul blocks of 20, 21 and 22 ms for 1 GFLOP: 50, 47.62 and 45.45 GFLOP/s; median 47.62,
    # spread (50 - 45.45) / 47.62 = 9.5 %
    result = run([0.020, 0.021, 0.022])
    assert result.refusal is None
    assert result.figures["matmul_fp32_t1"].median == pytest.approx(1 / 0.021)
    assert result.figures["matmul_fp32_t1"].spread == pytest.approx((1 / 0.020 - 1 / 0.022) * 0.021)
    assert result.figures["stream_add_t1"].median == pytest.approx(12.0)  # 24 MB in 2 ms
    assert result.figures["numpy_op_alloc"].median == pytest.approx(1.5)


def test_a_loaded_machine_is_refused_before_measuring() -> None:
    result = run([0.020, 0.020, 0.020], load=(3.1, 2.0, 1.0))
    assert result.refusal is not None
    assert "load average 3.10 before" in result.refusal and "2 cores" in result.refusal


def test_blocks_that_disagree_are_refused() -> None:
    # 20 ms, then 40 ms (another process took half the core), then 20 ms: spread (50 - 25) / 50 = 50 %
    result = run([0.020, 0.040, 0.020])
    assert result.refusal is not None and "matmul_fp32_t1 spread 50%" in result.refusal


def test_one_disturbed_block_of_seven_is_not_refused() -> None:
    # six blocks of 20 ms and one of 40 ms: rates 50 x 6 and 25; inclusive quartiles both 50, so the
    # spread is 0 % where (max - min) / median said 50 %; the median (50 GFLOP/s) ignores the block too
    result = run([0.020, 0.020, 0.040, 0.020, 0.020, 0.020, 0.020])
    assert result.refusal is None
    assert result.figures["matmul_fp32_t1"].median == pytest.approx(50.0)
    assert result.figures["matmul_fp32_t1"].spread == pytest.approx(0.0, abs=1e-12)


def test_three_disturbed_blocks_of_seven_are_refused() -> None:
    # 20 ms four times, 40 ms three times: rates sorted 25 25 25 50 50 50 50; quartiles 25 and 50,
    # median 50: spread 2 x 25 / 50 = 100 %
    result = run([0.020, 0.040, 0.020, 0.040, 0.020, 0.040, 0.020])
    assert result.refusal is not None and "matmul_fp32_t1 spread 100%" in result.refusal


def test_the_node_file_round_trips(tmp_path: Path) -> None:
    result = run([0.020, 0.021, 0.022])
    path = tmp_path / "node.toml"
    path.write_text(calibration.node_file(result, str(path)), encoding="utf-8")
    node = hardware_from_file(path)
    # 1 / 0.021 s per GFLOP = 47.62 GFLOP/s, written to four digits
    assert node.peak_flops.to("GFLOP/s").magnitude == pytest.approx(47.62)
    assert node.precision_flops["fp32"].to("GFLOP/s").magnitude == pytest.approx(47.62)
    assert node.memory_bandwidth.to("GB/s").magnitude == pytest.approx(12.0)
    assert node.memory_capacity.to("GiB").magnitude == pytest.approx(16.0)
    assert node.name.startswith("Test CPU 9000, 2 cores, 1 thread(s), measured ")
    read = read_node_file(path)
    assert read.host["cpu_model"] == "Test CPU 9000" and read.host["verdict"] == "ok"
    assert read.host["load_average_before"] == [0.2, 0.3, 0.3]
    assert read.measured["numpy_op_alloc"].value == "1.5 µs"
    assert read.measured["numpy_op_alloc"].method == "a fake tiny op"
    assert read.figure("stream_add_t1", "GB/s") == pytest.approx(12.0)
    with pytest.raises(ScenarioInputError, match="no measured figure 'torch_op'"):
        read.figure("torch_op", "µs")


def test_a_node_file_loads_where_a_catalog_node_does(tmp_path: Path) -> None:
    import generated

    path = tmp_path / "node.toml"
    path.write_text(calibration.node_file(run([0.020, 0.020, 0.020]), str(path)), encoding="utf-8")
    step = generated.Scenarios.MnistTwoLayerTrainingStepOnH100.variant(hardware=hardware_from_file(path))
    # the entry's op_flops: 2 x 6,422,528 + 3 x 81,920 + 2 x 4,096 + 960 + 640 = 13,100,608 FLOPs;
    # at 50 GFLOP/s (a 1 GFLOP matmul in 20 ms): 262.01216 µs
    assert step.compute_time.to("µs").magnitude == pytest.approx(262.01216)


def test_the_command_line_reads_a_node_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from symbolic.cli import main

    path = tmp_path / "node.toml"
    path.write_text(calibration.node_file(run([0.020, 0.020, 0.020]), str(path)), encoding="utf-8")
    assert main(["eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100",
                 "--set", f"hardware=@{path}", "--json"]) == 0
    assert '"compute_time"' in capsys.readouterr().out
    assert main(["eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100",
                 "--set", f"hardware=@{tmp_path / 'missing.toml'}"]) == 2
    assert "cannot read it" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "message"), [
    ("[node]\nname = 'x'\n", "'format' is None"),
    ("format = 1\n", "no \\[node\\] table"),
    ("format = 1\n[node]\nname = 'x'\nmemory_bandwidth = 20\npeak_flops = '1 GFLOP/s'\n", "node.memory_bandwidth is 20"),
    ("format = 1\n[node]\nname = 'x'\nmemory_bandwidth = '20 GB/s'\npeak_flops = '1 GFLOP/s'\ncolour = 'red'\n",
     "unknown fields \\['colour'\\]"),
    ("format = 1\n[node]\nname = 'x'\nmemory_bandwidth = '20 GB/s'\npeak_flops = '1 GB/s'\n", "peak_flops"),
    ("format = 1\n[node]\nname = 'x'\nmemory_bandwidth = '20 GB/s'\npeak_flops = '1 GFLOP/s'\n"
     "[measured.op]\nvalue = '1 µs'\nspread = -1\nblocks = 3\nmethod = 'm'\n", "measured.op.spread is -1"),
    ("format = 1\n[node\n", "not valid TOML"),
])
def test_a_bad_node_file_names_its_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioInputError, match=message):
        hardware_from_file(path)


def test_cache_levels_are_measured_inside_and_checked_below_their_middle() -> None:
    # L1 32 KiB: a quarter (8 KiB) and an eighth (4 KiB). L2 1 MiB: sqrt(32 KiB x 1 MiB) = 181.02 KiB,
    # checked at sqrt(32 KiB x 181.02 KiB) = 76.11 KiB. L3 480 MiB (a VM's whole socket): sqrt(2 MiB x
    # 480 MiB) = 30.98 MiB, checked at 7.87 MiB; a quarter would be 120 MiB, past the part that stays ours
    assert probes.level_working_sets([32768, 1 << 20]) == [(8192, 4096), (185363, 77935)]
    l3 = probes.level_working_sets([48 << 10, 2 << 20, 480 << 20])[2]
    assert l3[0] / 2 ** 20 == pytest.approx(30.98, abs=0.01) and l3[1] / 2 ** 20 == pytest.approx(7.87, abs=0.01)


def test_thread_counts_are_read_strictly() -> None:
    assert calibration.parse_threads(None, 2) == (1, 2)
    assert calibration.parse_threads(None, 1) == (1,)
    assert calibration.parse_threads("2,1,2", 2) == (2, 1)
    with pytest.raises(ScenarioInputError, match="'0' is not a positive integer"):
        calibration.parse_threads("1,0", 2)


def test_gemm_half_rows_is_the_median_of_d_times_the_rate_deficit() -> None:
    # a clock that moves 1 ms per reading makes every timed call take the same time, so a shape's rate
    # is its FLOPs: the 64^3 square 2 x 64^3, a shape with one dimension d 2 x d x 64^2, R / rate = 64 / d
    # and d (R / rate - 1) = 64 - d: 63, 60, 48 and 0 for d = 1, 4, 16, 64, three shapes each; the median
    # of the twelve is (48 + 60) / 2 = 54
    class Tick:
        now = 0.0

        def __call__(self) -> float:
            self.now += 1e-3
            return self.now

    probe = probes.skinny_gemm(64, 1)
    # the (64, 1) x (1, 64) outer product: 2 x 64^2 flop against 2 x 64^3, 1/64 of the square's rate
    # few rows or columns, two shapes each d: the median of 63, 63, 60, 60, 48, 48, 0, 0 is 54; a short inner
    # dimension d > 1: the median of 60, 48, 0 is 48
    assert probe.block(Tick(), 5e-4) == {"gemm_half_rows": pytest.approx(54.0), "gemm_half_inner": pytest.approx(48.0),
                                         "gemm_rank_one_efficiency": pytest.approx(1 / 64)}
