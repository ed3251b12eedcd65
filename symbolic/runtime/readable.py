"""A value's scale chosen for the person reading it: ``2.8689e+11 B`` reads as ``286.89 GB``, a TTFT of
``43118.5 ms`` as ``43.1185 s``.

Only the prefix of a unit moves, within its own family (decimal prefixes stay decimal, ``GiB`` stays
binary; bytes and FLOPs never go below their unit, seconds never above the second but for spans of
hours and days): the number a table prints is the same quantity, read at the scale where it has one
to three digits before the point. A unit outside these families (``µs/MB``, ``flop/B``) is printed as
declared. JSON and the Python API keep each output's declared unit; only text meant for a reader is
rescaled.
"""

from __future__ import annotations

import math

DECIMAL = (("p", 1e-12), ("n", 1e-9), ("µ", 1e-6), ("m", 1e-3), ("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9),
           ("T", 1e12), ("P", 1e15), ("E", 1e18))
BINARY = (("", 1.0), ("Ki", 2.0 ** 10), ("Mi", 2.0 ** 20), ("Gi", 2.0 ** 30), ("Ti", 2.0 ** 40), ("Pi", 2.0 ** 50))

# base unit -> the decimal prefixes it may take, smallest first (no millibytes, no kiloseconds)
FAMILIES: dict[str, tuple[str, ...]] = {
    "B": ("", "k", "M", "G", "T", "P", "E"),
    "B/s": ("", "k", "M", "G", "T", "P", "E"),
    "flop": ("", "k", "M", "G", "T", "P", "E"),
    "flop/s": ("", "k", "M", "G", "T", "P", "E"),
    "FLOP": ("", "k", "M", "G", "T", "P", "E"),
    "FLOP/s": ("", "k", "M", "G", "T", "P", "E"),
    "W": ("m", "", "k", "M", "G"),
    "J": ("m", "", "k", "M", "G", "T"),
    "Hz": ("", "k", "M", "G"),
    "s": ("p", "n", "µ", "m", ""),
}
BINARY_FAMILIES = ("B", "B/s")
HOUR, DAY = 3600.0, 86400.0


def split_unit(unit: str) -> tuple[str, str, tuple[tuple[str, float], ...]] | None:
    """``GB/s`` -> ("G", "B/s", DECIMAL); ``GiB`` -> ("Gi", "B", BINARY); None for another unit."""
    for base in sorted(FAMILIES, key=len, reverse=True):
        if not unit.endswith(base):
            continue
        prefix = unit[: len(unit) - len(base)]
        if base in BINARY_FAMILIES and prefix in dict(BINARY) and prefix:
            return prefix, base, BINARY
        if prefix.replace("K", "k").replace("u", "µ") in FAMILIES[base] or prefix == "":
            return prefix.replace("K", "k").replace("u", "µ"), base, DECIMAL
    return None


def readable(value: float, unit: str) -> tuple[float, str]:
    """``value`` in ``unit`` at the scale a reader takes in at a glance (the same quantity)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not unit or not math.isfinite(value) \
            or value == 0:
        return value, unit
    found = split_unit(unit)
    if found is None:
        return value, unit
    prefix, base, table = found
    scale = dict(table)
    if prefix not in scale:
        return value, unit
    in_base = value * scale[prefix]
    if base == "s" and abs(in_base) >= 3 * HOUR:  # a training run reads in hours or days, not 1.2e+06 s
        return (in_base / DAY, "days") if abs(in_base) >= 3 * DAY else (in_base / HOUR, "h")
    allowed = [(p, f) for p, f in table if table is BINARY or p in FAMILIES[base]]
    chosen = allowed[0]
    for candidate in allowed:
        if abs(in_base) >= candidate[1] * (1 - 1e-12):
            chosen = candidate
    if chosen[1] == scale[prefix]:
        return value, unit  # already at its scale: printed as given (an int stays exact)
    return in_base / chosen[1], f"{chosen[0]}{base}"
