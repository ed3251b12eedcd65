"""How a scenario's docs page draws it: plain data a scenario module declares beside its math.

    chart = Sweep("MnistTwoLayerTrainingStepOnH100", "batch_size", powers_of_two(16),
                  (Series("compute_time", "compute floor"), ...), "batch size", "time per step [µs]",
                  "Compute, memory and host time against batch size.")
    roofline = {"": "intensity"}  # where each registry instance sits on a roofline, by output

``symbolic/codegen/charts.py`` evaluates the named outputs exactly and draws them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Series:
    quantity: str  # the quantity's path, e.g. "host.host_time" or "result.total_time[host]"
    label: str
    dashed: bool = False
    color: str | None = None  # None: the style's next color


@dataclass(frozen=True)
class Sweep:
    """One scenario chart: ``series`` against ``input`` at ``values`` (in the input's unit)."""

    instance: str
    input: str
    values: tuple[float, ...]
    series: tuple[Series, ...]
    xlabel: str
    ylabel: str
    caption: str
    logy: bool = True


def powers_of_two(last: int) -> tuple[float, ...]:
    """1, 2, 4, ... 2**last."""
    return tuple(float(2**k) for k in range(last + 1))


def decades(first: int, last: int, per_decade: int = 4) -> tuple[float, ...]:
    """``per_decade`` log-spaced points per decade from 10**first to 10**last."""
    return tuple(float(f"{10 ** (k / per_decade):.6g}") for k in range(first * per_decade, last * per_decade + 1))
