"""The arithmetic of a measurement: time a call, summarise blocks, fit a fixed plus per-unit cost.

Every function takes the clock (a callable returning seconds) as an argument, so tests run the
same code on a fake clock and nothing here is ever timed by a unit test.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import NamedTuple

from symbolic.runtime.errors import MlsysymError

Clock = Callable[[], float]


def per_call(fn: Callable[[], object], clock: Clock, min_time: float, max_calls: int = 1 << 22) -> float:
    """Seconds per call of ``fn``: calls in a loop, doubling (or scaling up) the count until one
    timed loop lasts ``min_time``, so a call far shorter than the clock's resolution is still
    measured. The first loop also warms caches and allocators; only the last one counts."""
    if min_time <= 0:
        raise MlsysymError(f"per_call: min_time is {min_time!r}; expected a positive number of seconds")
    calls = 1
    while True:
        start = clock()
        for _ in range(calls):
            fn()
        elapsed = clock() - start
        if elapsed >= min_time or calls >= max_calls:
            return elapsed / calls
        # Aim 20 % past min_time from what this loop showed; at least double, at most 100x.
        scale = 1.2 * min_time / elapsed if elapsed > 0 else 100.0
        calls = min(max_calls, max(2 * calls, int(calls * min(scale, 100.0))))


class Figure(NamedTuple):
    """A figure measured in blocks: the median block, the spread, and every block's value."""

    median: float
    spread: float
    values: tuple[float, ...]

    @property
    def blocks(self) -> int:
        return len(self.values)


def summarize(values: Sequence[float]) -> Figure:
    """Median of the blocks and their spread: twice the interquartile range over the median.

    The quartiles are the inclusive ones, so with two or three blocks the spread is the full
    range, (max - min) / median; with seven, one block disturbed by another process (the one the
    median already ignores) leaves it unchanged, while three disturbed blocks show. 0 when every
    block agrees."""
    if not values:
        raise MlsysymError("summarize: no blocks were measured")
    if any(value < 0 for value in values):
        raise MlsysymError(f"summarize: a block measured a negative value ({min(values)!r})")
    median = statistics.median(values)
    spread = 0.0
    if len(values) > 1 and median > 0:
        low, _, high = statistics.quantiles(values, n=4, method="inclusive")
        spread = 2 * (high - low) / median
    return Figure(float(median), float(spread), tuple(float(value) for value in values))


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares ``y = fixed + per_unit * x``: (fixed, per_unit). At least two distinct x."""
    if len(xs) != len(ys) or len(set(xs)) < 2:
        raise MlsysymError(f"fit_line: needs at least two distinct x with one y each, got x={list(xs)}")
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = (sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
             / sum((x - mean_x) ** 2 for x in xs))
    return mean_y - slope * mean_x, slope
