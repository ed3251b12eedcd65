"""The measurement arithmetic on a fake clock: nothing here is timed."""

from __future__ import annotations

import pytest

from symbolic.calibration.timing import fit_line, per_call, summarize
from symbolic.runtime.errors import MlsysymError


class FakeClock:
    """A clock that moves only when a fake workload says it took time."""

    def __init__(self) -> None:
        self.now = 100.0
        self.calls = 0

    def __call__(self) -> float:
        return self.now

    def work(self, seconds: float) -> None:
        self.now += seconds
        self.calls += 1


def test_per_call_finds_the_cost_of_a_call_far_below_the_loop_time() -> None:
    clock = FakeClock()
    # 2.5 µs per call, a loop of at least 10 ms: 1 call, then 100 (growth capped at 100x), then
    # 100 x 1.2 x 10 ms / 0.25 ms = 4800 calls (12 ms), the loop that counts
    assert per_call(lambda: clock.work(2.5e-6), clock, 0.01) == pytest.approx(2.5e-6, rel=1e-12)
    # the loop grows until it lasts 10 ms: the last loop alone has at least 10 ms / 2.5 µs = 4000 calls
    assert clock.calls >= 4000


def test_per_call_of_a_slow_call_runs_it_once() -> None:
    clock = FakeClock()
    assert per_call(lambda: clock.work(0.5), clock, 0.1) == 0.5
    assert clock.calls == 1


def test_per_call_refuses_a_loop_time_of_zero() -> None:
    with pytest.raises(MlsysymError, match="min_time"):
        per_call(lambda: None, FakeClock(), 0)


def test_summarize_gives_the_median_and_the_spread_over_the_median() -> None:
    figure = summarize([10.0, 12.0, 11.0])
    # median 11; spread (12 - 10) / 11 = 0.181818...
    assert figure.median == 11.0
    assert figure.spread == pytest.approx(2 / 11)
    assert figure.blocks == 3
    assert summarize([4.0, 4.0]).spread == 0.0


def test_the_spread_of_seven_blocks_ignores_one_disturbed_block() -> None:
    # six blocks near 0.5 µs and one at 1.0 µs (another process ran): sorted 0.48 0.49 0.50 0.50
    # 0.51 0.52 1.00; inclusive quartiles at positions 1.5 and 4.5: 0.495 and 0.515; spread
    # 2 x 0.02 / 0.50 = 8 %, where (max - min) / median would say (1.00 - 0.48) / 0.50 = 104 %
    figure = summarize([0.50, 0.48, 1.00, 0.51, 0.49, 0.52, 0.50])
    assert figure.median == 0.50
    assert figure.spread == pytest.approx(0.08)
    # three of seven disturbed: sorted 0.48 0.49 0.50 0.51 1.0 1.0 1.0; quartiles 0.495 and 1.0;
    # median 0.51; spread 2 x 0.505 / 0.51 = 198 %
    assert summarize([0.50, 1.0, 0.48, 1.0, 0.51, 1.0, 0.49]).spread == pytest.approx(2 * 0.505 / 0.51)


def test_summarize_refuses_no_blocks_and_negative_times() -> None:
    with pytest.raises(MlsysymError, match="no blocks"):
        summarize([])
    with pytest.raises(MlsysymError, match="negative"):
        summarize([1.0, -1.0])


def test_fit_line_recovers_fixed_and_per_unit_costs() -> None:
    # backward() of 3, 10 and 34 graph nodes at 15 µs + 6 µs per node: 33, 75 and 219 µs
    fixed, per_node = fit_line([3, 10, 34], [33.0, 75.0, 219.0])
    assert fixed == pytest.approx(15.0)
    assert per_node == pytest.approx(6.0)


def test_fit_line_needs_two_distinct_points() -> None:
    with pytest.raises(MlsysymError, match="two distinct"):
        fit_line([2, 2], [1.0, 3.0])
