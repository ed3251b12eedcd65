"""Timing helpers: calibrated batches, candidates interleaved round by round, medians.

This machine has two noisy cores, so no candidate is timed in one block: every round
runs one batch of each candidate in turn (the order rotates between rounds), and the
median over rounds is reported. A batch repeats a call enough times to last a few
milliseconds, so that the clock's resolution and the loop overhead do not matter; the
garbage collector is off inside a batch, as in ``timeit``.
"""

from __future__ import annotations

import gc
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Measurement:
    """The per-call times of one candidate, one entry per round (seconds)."""

    name: str
    samples: list[float] = field(default_factory=list)
    calls_per_batch: int = 1

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "median_s": self.median, "samples_s": self.samples,
                "calls_per_batch": self.calls_per_batch, "rounds": len(self.samples)}


def _batch(func: Callable[[], object], number: int) -> float:
    """Seconds per call of ``number`` back-to-back calls, the collector off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            func()
        return (time.perf_counter() - start) / number
    finally:
        if enabled:
            gc.enable()


def calibrate(func: Callable[[], object], batch_seconds: float, max_calls: int = 1_000_000) -> int:
    """How many calls make one batch last about ``batch_seconds`` (at least one)."""
    func()  # warm caches, imports and lazy attributes
    per_call = _batch(func, 1)
    number = 1
    while per_call * number < batch_seconds / 4 and number < max_calls:
        number *= 4
        per_call = _batch(func, number)
    return max(1, min(max_calls, int(batch_seconds / max(per_call, 1e-9))))


def interleaved(candidates: dict[str, Callable[[], object]], rounds: int, batch_seconds: float = 0.004,
                max_calls: int = 1_000_000) -> dict[str, Measurement]:
    """Time every candidate in ``rounds`` rounds, one batch of each per round, rotating the order."""
    names = list(candidates)
    measured = {name: Measurement(name, calls_per_batch=calibrate(candidates[name], batch_seconds, max_calls))
                for name in names}
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            gc.collect()
            measured[name].samples.append(_batch(candidates[name], measured[name].calls_per_batch))
    return measured


def fresh_process(code: str, *args: str) -> dict[str, float]:
    """Run ``code`` in a new interpreter from the repository root; it prints one JSON dict."""
    completed = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                               check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"child process failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def fresh_rounds(children: dict[str, tuple[str, tuple[str, ...]]], rounds: int,
                 budget_seconds: float = math.inf) -> dict[str, list[dict[str, float]] | str]:
    """Run each child (code, argv) once per round, interleaved: its JSON dicts, or the error of a failed child.

    The first round also finds children that fail (a generator mid-edit, say); those are
    reported, not retried. Further rounds run while the estimate of one more round fits
    in ``budget_seconds`` (at least one round always runs).
    """
    results: dict[str, list[dict[str, float]] | str] = {name: [] for name in children}
    started = time.perf_counter()
    for round_number in range(rounds):
        elapsed = time.perf_counter() - started
        if round_number and elapsed + elapsed / round_number > budget_seconds:
            break
        names = [name for name, samples in results.items() if isinstance(samples, list)]
        shift = round_number % max(1, len(names))
        for name in names[shift:] + names[:shift]:
            code, argv = children[name]
            samples = results[name]
            assert isinstance(samples, list)
            try:
                samples.append(fresh_process(code, *argv))
            except RuntimeError as error:
                results[name] = str(error).strip().splitlines()[-1]
    return results
