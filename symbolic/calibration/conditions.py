"""The conditions a measurement was taken under, and the figures no machine can produce.

A figure is only as good as the machine was quiet: every run reads the load before it measures
(and refuses to start when other processes already hold the cores), again after, and carries both,
its verdict and its spread into every table it feeds. A figure above what the cores can physically
do (more FLOP/s than their vector units issue, more bytes than their load and store ports move) is
a timing artefact, never a property of the machine: it is flagged, and never written without
``--force``.

The load is read through ``system_load`` looked up at call time, so a test (or a user asking "what
would happen under load") replaces that one function instead of loading the machine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple


def system_load() -> tuple[float, float, float]:
    """The OS's 1, 5 and 15 minute load averages (zeros where the OS has none)."""
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def current_load() -> tuple[float, float, float]:
    """The load now, through ``system_load`` (read at call time: the one place a test replaces)."""
    return system_load()


# Our own probe adds about one runnable process to the 1-minute average while it runs, so the load
# seen after a run is judged net of it.
OWN_LOAD_AFTER = 1.0


def too_loaded(load: tuple[float, float, float], cores: int, max_per_core: float, when: str) -> str | None:
    """Why ``load`` (read ``when``: "before" or "after" the run) is too high to measure on, or None."""
    others = load[0] - (OWN_LOAD_AFTER if when == "after" else 0.0)
    if others > max_per_core * cores:
        return (f"the machine is too loaded to measure: load average {load[0]:.2f} {when} the run on "
                f"{cores} cores (limit {max_per_core:.2f} per core from other processes)")
    return None


# -- physical bounds --------------------------------------------------------------------------------
# Without a frequency from the OS, no CPU core clocks above 6 GHz (the fastest shipped boost is 6.2 GHz);
# without its vector flags, the widest x86 vectors are 512 bits. Both bounds are then generous: they
# catch the impossible (10 TB/s from one core), not the merely optimistic.
CEILING_HZ = 6.2e9
WIDEST_VECTOR_BITS = 512
FMA_UNITS = 2          # two FMA pipes per core (Intel since Haswell, AMD since Zen 2): the most shipped
LOAD_STORE_VECTORS = 3  # two vector loads and one vector store per cycle


class Bounds(NamedTuple):
    """What one core (one thread) can physically do, per second."""

    flops_fp32: float
    bytes_per_second: float
    why: str


def bounds(facts: Mapping[str, Any]) -> Bounds:
    """One core's ceilings from the facts the OS gave (``max_hz``, ``vector_bits``), else the widest."""
    hz = _number(facts.get("max_hz")) or CEILING_HZ
    bits = int(_number(facts.get("vector_bits")) or WIDEST_VECTOR_BITS)
    flops = hz * (bits / 32) * 2 * FMA_UNITS            # fp32 lanes x (multiply + add) x pipes
    moved = hz * LOAD_STORE_VECTORS * bits / 8           # bytes through the load/store ports
    why = (f"{hz / 1e9:.2f} GHz x {bits}-bit vectors: {flops / 1e9:.0f} GFLOP/s fp32 and "
           f"{moved / 1e9:.0f} GB/s per core")
    return Bounds(flops, moved, why)


def _number(value: Any) -> float | None:
    """A fact as a positive number, or None where the OS said "unknown"."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def threads_of(name: str) -> int:
    """The thread count a figure's name carries (``matmul_fp32_t2`` -> 2), else one."""
    head, _, count = name.rpartition("_t")
    return int(count) if head and count.isdigit() else 1


def flags(values: Mapping[str, tuple[float, str, float]], facts: Mapping[str, Any],
          max_spread: float) -> dict[str, str]:
    """Each figure that cannot be trusted, with why: ``values`` maps a name to (median, unit, spread).

    Above the cores' physical ceiling (GFLOP/s against the FMA pipes, GB/s against the load/store
    ports, times the figure's threads), or its blocks spread beyond the refusal limit."""
    ceiling = bounds(facts)
    found: dict[str, str] = {}
    for name, (value, unit, spread) in values.items():
        threads = threads_of(name)
        limit = {"GFLOP/s": ceiling.flops_fp32 / 1e9 / (2 if "fp64" in name else 1),  # fp64: half the lanes
                 "GB/s": ceiling.bytes_per_second / 1e9}.get(unit)
        if limit is not None and value > limit * threads:
            found[name] = (f"{value:.4g} {unit} is above the physical ceiling of {limit * threads:.4g} {unit} "
                           f"({threads} thread{'s' if threads > 1 else ''}; {ceiling.why})")
        elif spread > max_spread:
            found[name] = f"its blocks spread {spread:.0%}, beyond the {max_spread:.0%} limit"
    return found


def load_text(before: tuple[float, ...], after: tuple[float, ...] | None, cores: int) -> str:
    """``load average 0.21 before, 1.10 after on 2 cores``: the one way every table says it."""
    return (f"load average {before[0]:.2f} before" + (f", {after[0]:.2f} after" if after is not None else "")
            + f" on {cores} core{'s' if cores != 1 else ''}")
