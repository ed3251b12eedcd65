"""How a scenario's docs page presents it: plain data a scenario module declares beside its math.

    chart = Sweep(instance="MnistTwoLayerTrainingStepOnH100", input="batch_size", values=powers_of_two(16),
                  series=(Series("compute_time", "compute floor"), ...),
                  xlabel="batch size", ylabel="time per step [µs]", caption="Compute, memory and host time ...")
    questions = (Question(solve_for="batch_size", where="compute_time", equals="memory_time"),)
    roofline = {"": "intensity"}  # where each registry instance sits on a roofline, by output

``symbolic/codegen/charts.py`` evaluates the named outputs exactly and draws them;
``symbolic/codegen/derivations.py`` answers the questions.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Series:
    """One line of a chart: ``Series("host.host_time", "host: dispatch and launch", dashed=True)``."""

    quantity: str  # the quantity's path, e.g. "host.host_time" or "result.total_time[host]"
    label: str
    dashed: bool = False
    color: str | None = None  # None: the style's next color


@dataclass(frozen=True, kw_only=True)
class Sweep:
    """One scenario chart: ``series`` against ``input`` at ``values`` (in the input's unit), for ``instance``."""

    instance: str  # the registry entry whose other inputs are held fixed
    input: str
    values: tuple[float, ...]
    series: tuple[Series, ...]
    xlabel: str
    ylabel: str
    caption: str
    logy: bool = True


@dataclass(frozen=True, kw_only=True)
class Question:
    """A question the Derivations section answers exactly: solve ``where == equals`` for ``solve_for``.

    ``equals`` is another output's path or a value with its unit (``"8 GiB"``, ``"1"``).
    """

    solve_for: str  # an input
    where: str  # an output's path
    equals: str


def powers_of_two(last: int) -> tuple[float, ...]:
    """1, 2, 4, ... 2**last."""
    return tuple(float(2**k) for k in range(last + 1))


def decades(first: int, last: int, per_decade: int = 4) -> tuple[float, ...]:
    """``per_decade`` log-spaced points per decade from 10**first to 10**last."""
    return tuple(float(f"{10 ** (k / per_decade):.6g}") for k in range(first * per_decade, last * per_decade + 1))
