"""Reading names and values from the command line: scenarios, hardware, numbers, ranges."""

from __future__ import annotations

import difflib
import math
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from symbolic.cli.files import from_file
from symbolic.cli.usage import UsageError
import generated
from symbolic.runtime.errors import a_or_an, MlsysymError, ScenarioInputError
from symbolic.runtime.inputs import describe, input_specs
from symbolic.runtime.scenario import NODE_SYNONYMS
from symbolic.runtime.units import parse_quantity
from symbolic.runtime.validation import conversion_factor, ListSpec

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase

def _nearest(name: str, known: Sequence[str], what: str, listing: str = "mlsysym list") -> UsageError:
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    listed = ", ".join(known) if len(known) <= 30 else f"see `{listing}`"
    hint = f"; did you mean {', '.join(close)}?" if close else f" (known: {listed})"
    return UsageError(f"unknown {what} {name!r}{hint}")


def instance(name: str) -> Any:
    """A registry entry by name."""
    if name not in generated.Scenarios:
        raise _nearest(name, list(generated.Scenarios), "scenario")
    return getattr(generated.Scenarios, name)


def scenario_class(name: str) -> type[ScenarioBase]:
    """A scenario class by name, or the class of a registry entry."""

    classes = {cls.__name__: cls for cls in generated.SCENARIO_CLASSES}
    if name in classes:
        return classes[name]
    if name in generated.Scenarios:
        return type(getattr(generated.Scenarios, name))
    raise _nearest(name, list(classes) + list(generated.Scenarios), "scenario class")


def catalog_entry(root: str, text: str, what: str) -> Any:
    """The entry of catalog ``root`` (``Hardware``, ``Models``, ``Datasets``) that ``text`` names:
    its full path (``Models.Language.Llama3_70B``), the path without the root, or its key alone
    when no other tier has that key (``Llama3_70B``). Anything else is a UsageError with the
    nearest names."""

    catalog = getattr(generated, root)
    parts = text.strip().removeprefix(f"{root}.").split(".")
    tiered = all(isinstance(getattr(catalog, key), type(catalog)) for key in catalog)
    if not tiered:  # one level: Datasets.MNIST
        if len(parts) == 1 and parts[0] in catalog:
            return getattr(catalog, parts[0])
        raise _nearest(text, list(catalog), what, f"mlsysym list {root}")
    paths = {f"{tier}.{key}": (tier, key) for tier in catalog for key in getattr(catalog, tier)}
    if len(parts) == 2 and ".".join(parts) in paths:
        return getattr(getattr(catalog, parts[0]), parts[1])
    by_key: dict[str, list[tuple[str, str]]] = {}
    for tier, key in paths.values():
        by_key.setdefault(key, []).append((tier, key))
    if len(parts) == 1 and len(by_key.get(parts[0], ())) == 1:
        tier, key = by_key[parts[0]][0]
        return getattr(getattr(catalog, tier), key)
    if len(parts) == 1 and parts[0] in by_key:
        raise UsageError(f"{what} {text!r} is in several tiers; name one of "
                         f"{', '.join(f'{root}.{t}.{k}' for t, k in by_key[parts[0]])}")
    raise _nearest(text, list(by_key) + list(paths), what, f"mlsysym list {root}")


def hardware_node(text: str) -> Any:
    return catalog_entry("Hardware", text, "hardware node")


def keyed_numbers(text: str, what: str) -> dict[str, Any]:
    """``a:1, b:2 ms`` (or ``{a: 1, b: 2}``) -> ``{"a": 1, "b": Q_(2, "ms")}``; a repeated or
    empty name, or an entry without ``:``, is a UsageError naming ``what``."""
    body = text.strip().removeprefix("{").removesuffix("}")
    entries: dict[str, Any] = {}
    for i, item in enumerate(body.split(",")):
        key, colon, value = item.partition(":")
        key = key.strip().strip("'\"")
        if not colon or not key:
            raise UsageError(f"{what} entry [{i}]: expected name:value (e.g. 'nvlink:900 GB/s, ib:50 GB/s'), "
                             f"got {item.strip()!r}")
        if key in entries:
            raise UsageError(f"{what}: the name {key!r} is given twice")
        entries[key] = number(value, f"{what} entry {key!r}")
    return entries


def number(text: str, what: str = "value") -> Any:
    """``32`` -> 32, ``1e7`` -> 1e7, ``10us`` / ``3.35 TB/s`` -> a Quantity, read by the one parser
    the Python API uses too (``symbolic.runtime.units.parse_quantity``); anything else is a
    UsageError naming ``what``."""

    try:
        return parse_quantity(text, what)
    except ScenarioInputError as error:
        raise UsageError(str(error)) from None


def parse_setting(cls: type[ScenarioBase], setting: str) -> tuple[str, Any]:
    """``name=value`` for an input of ``cls``, the value read as that input expects."""
    if "=" not in setting:
        raise UsageError(f"--set expects name=value, got {setting!r}")
    name, _, text = setting.partition("=")
    name, text = name.strip(), text.strip()

    kinds = {info.name: info.kind for info in describe(cls)}
    if name not in kinds and kinds.get(NODE_SYNONYMS.get(name, "")) == "node":  # hardware= for an accelerator
        name = NODE_SYNONYMS[name]
    if name not in kinds:
        raise _nearest(name, list(kinds), f"input of {cls.__name__}")
    kind = kinds[name]
    if text.lower() in ("none", "null", ""):
        return name, None
    if text.startswith("@"):  # a file, read by the loader of this kind of input (symbolic.cli.files)
        return name, from_file(kind, text, f"--set {name}")
    if kind in ("number", "integer"):
        return name, number(text, f"--set {name}")
    if kind == "list" and input_specs(cls)[name].keyed:
        return name, keyed_numbers(text, f"--set {name}")
    if kind == "list":
        items = text.removeprefix("[").removesuffix("]").removeprefix("(").removesuffix(")").split(",")
        return name, [number(item, f"--set {name} entry [{i}]") for i, item in enumerate(items)]
    catalogs = {"node": ("Hardware", "hardware node"), "dataset": ("Datasets", "dataset"),
                "workload": ("Models", "workload")}
    fleets = {n.name for n in cls._nodes if n.fleet}
    if kind == "node" and name in fleets and text.startswith("Systems."):  # a fleet, where the node input takes one
        return name, catalog_entry("Systems", text, f"fleet (--set {name})")
    if kind in catalogs:
        root, label = catalogs[kind]
        return name, catalog_entry(root, text, f"{label} (--set {name})")
    if kind == "scenario":
        return name, instance(text.removeprefix("Scenarios."))
    return name, text


def once_each(pairs: Any, flag: str) -> dict[str, Any]:
    """``(name, value)`` pairs as a dict; a name given twice is a UsageError (the later one
    would silently replace the first)."""
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise UsageError(f"{flag} {name} is given twice; give each input once")
        result[name] = value
    return result


def built(name: str, settings: Sequence[str], start: str | None = None) -> Any:
    """The instance a command works on: ``name`` a registry entry, or a class built from
    ``settings`` alone, or from the entry ``start`` (``--from``, of that class); ``--set``
    settings applied on top, each read as its input expects."""

    cls = scenario_class(name)
    start = start or (name if name in generated.Scenarios else None)
    base = instance(start) if start else None
    if base is not None and type(base) is not cls:
        raise UsageError(f"--from {start} is {a_or_an(type(base).__name__)}, not {a_or_an(cls.__name__)}")
    return build(cls, base, settings, start)


def build(cls: type[ScenarioBase], base: Any, settings: Sequence[str], key: str | None = None) -> Any:
    changes = once_each((parse_setting(cls, s) for s in settings), "--set")
    if base is None:
        return cls(**changes)
    if not changes:
        return base
    label = ", ".join(s.strip() for s in settings)
    # the entry's title describes the entry ("Llama-3.1-70B decode on one H100"), which the settings may
    # have made false: name the starting point by its key, and what changed
    return base.variant(name=f"from {key or base.name}, with {label}", **changes)



# A sweep's grid is held in memory: every output column of every point, 8 bytes each.
GRID_BYTES = 2**30


def parse_vary(cls: type[ScenarioBase], text: str) -> tuple[str, Any]:
    """``name=RANGE`` for a numeric input of ``cls``: the values as a float64 array in the
    input's declared unit. RANGE is ``a..b`` (step 1), ``a..b:step=s``, ``a..b:lin=n``,
    ``a..b:log=n``, ``a..b:log2`` or ``v1,v2,...``; each value one number with an optional
    unit (``dispatch=1us..10us:lin=4``, ``dispatch=1us,5us``)."""
    import numpy

    if "=" not in text:
        raise UsageError(f"--vary expects name=range, got {text!r}")
    name, _, spec_text = (part.strip() for part in text.partition("="))
    specs = {spec.name: spec for spec in cls._specs if not isinstance(spec, ListSpec)}
    if name not in specs:
        raise _nearest(name, list(specs), f"numeric input of {cls.__name__} to vary")
    spec = specs[name]
    what = f"--vary {name}"

    def read(item: str) -> Any:
        value = number(item, what)
        if isinstance(value, int) and not -sys.float_info.max <= value <= sys.float_info.max:
            raise UsageError(f"{what}: {item.strip()!r} is beyond the range of double precision")
        if hasattr(value, "units"):
            try:
                value = value.magnitude * conversion_factor(f"{what}: {item.strip()!r}", spec, value)
            except MlsysymError as error:
                raise UsageError(str(error)) from None
            if not math.isfinite(value) or (value == 0 and number(item).magnitude != 0):
                raise UsageError(f"{what}: {item.strip()!r} is beyond the range of double precision in "
                                 f"{spec.unit}" if value else f"{what}: {item.strip()!r} is below the range of "
                                 f"double precision in {spec.unit} (it would be read as 0)")
        return value if isinstance(value, int) else float(value)  # an int past 2**53 as given: a search refuses it

    if ".." not in spec_text:
        items = [item for item in spec_text.split(",")]
        if not spec_text or any(not item.strip() for item in items):
            raise UsageError(f"{what}: expected a range a..b or values v1,v2,..., got {spec_text!r}")
        values = [read(item) for item in items]
        inexact = any(isinstance(v, int) and float(v) != v for v in values)  # float64 would round it unseen
        return name, numpy.array(values, dtype=object if inexact else numpy.float64)
    span, _, mode = spec_text.partition(":")
    start_text, _, stop_text = span.partition("..")
    start, stop = float(read(start_text)), float(read(stop_text))  # a range's points are float64 arithmetic
    if stop < start:
        raise UsageError(f"{what}: the range {span} is empty (the end is below the start)")
    count, values = _range(what, start, stop, mode.strip(), read)
    if count == 0:
        raise UsageError(f"{what}: no values in {spec_text!r}")
    return name, values()


def _range(what: str, start: float, stop: float, mode: str, read: Any) -> tuple[int, Any]:
    """The number of points of a range and a function making them (called once it is known to fit)."""
    import numpy

    def count_of(text: str) -> int:
        if not re.fullmatch(r"[+-]?\d+", text.strip()) or int(text) < 1:
            raise UsageError(f"{what}: {mode!r} needs a whole number of points ≥ 1")
        return _limited(what, int(text))

    if mode == "log2":
        if start <= 0:
            raise UsageError(f"{what}: log2 needs a positive start")
        first, last = math.ceil(math.log2(start)), math.floor(math.log2(stop))
        return max(0, last - first + 1), lambda: 2.0 ** numpy.arange(first, last + 1)
    if mode.startswith("lin="):
        n = count_of(mode[4:])
        return n, lambda: numpy.linspace(start, stop, n)
    if mode.startswith("log="):
        n = count_of(mode[4:])
        if start <= 0:
            raise UsageError(f"{what}: log=N needs a positive start")
        return n, lambda: numpy.geomspace(start, stop, n)
    if mode.startswith("step=") or not mode:
        step = float(read(mode[5:])) if mode else 1.0
        if not step > 0:
            raise UsageError(f"{what}: step must be positive")
        # the points start + k·step up to stop: floor, with room for a quotient rounded just below a whole
        # number (0.7 / 0.1 is 6.999...), and never past stop (ceil(2.6 + 0.5) would take 1..3.6 up to 4)
        n = math.floor(_limited(what, (stop - start) / step) + 1e-9) + 1
        return n, lambda: numpy.minimum(start + step * numpy.arange(n), stop)
    raise UsageError(f"{what}: unknown mode {mode!r} (log2, lin=N, log=N, step=S)")


def _limited(what: str, count: Any) -> Any:
    if not count < GRID_BYTES // 8:  # also catches an infinite count
        raise UsageError(f"{what}: {count:.4g} values are more than a sweep holds in memory; "
                         "use a coarser step or fewer points")
    return count


def check_grid(counts: dict[str, int], columns: int) -> int:
    """The number of grid points, refused (with the count and a hint) when the table would not fit."""
    points = math.prod(counts.values())
    if points * columns * 8 > GRID_BYTES:
        sizes = " x ".join(f"{n} {name}" for name, n in counts.items())
        raise UsageError(f"the grid has {points:,} points ({sizes}) x {columns} columns, more than "
                         f"{GRID_BYTES // 2**20} MiB in memory; vary fewer values, pick columns with --outputs, "
                         "or split the sweep into several runs")
    return points
