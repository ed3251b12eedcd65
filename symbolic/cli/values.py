"""Reading names and values from the command line: scenarios, hardware, numbers, ranges."""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase

class UsageError(Exception):
    """Bad usage or input on the command line (exit status 2)."""


def _nearest(name: str, known: Sequence[str], what: str) -> UsageError:
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else " (see `mlsysym list`)"
    return UsageError(f"unknown {what} {name!r}{hint}")


def instance(name: str) -> Any:
    """A registry entry by name."""
    from generated import Scenarios

    if name not in Scenarios:
        raise _nearest(name, list(Scenarios), "scenario")
    return getattr(Scenarios, name)


def scenario_class(name: str) -> type[ScenarioBase]:
    """A scenario class by name, or the class of a registry entry."""
    import generated

    classes = {cls.__name__: cls for cls in generated.SCENARIO_CLASSES}
    if name in classes:
        return classes[name]
    if name in generated.Scenarios:
        return type(getattr(generated.Scenarios, name))
    raise _nearest(name, list(classes) + list(generated.Scenarios), "scenario class")


def hardware_node(text: str) -> Any:
    from generated import Hardware

    parts = text.removeprefix("Hardware.").split(".")
    nodes = {f"{tier}.{key}": node for tier in Hardware for key, node in getattr(Hardware, tier).items()}
    if len(parts) == 2 and ".".join(parts) in nodes:
        return nodes[".".join(parts)]
    by_key = {path.split(".")[1]: node for path, node in nodes.items()}
    if len(parts) == 1 and parts[0] in by_key:
        return by_key[parts[0]]
    raise _nearest(text, list(by_key), "hardware node")


def number(text: str) -> Any:
    """``32`` -> 32, ``1e7`` -> 1e7, ``10us`` / ``3.35 TB/s`` -> a Quantity."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        from generated import Q_

        try:
            return Q_(text)
        except Exception as error:  # pint's parse errors are many types
            raise UsageError(f"cannot read {text!r} as a number or a quantity with a unit: {error}") from None
    if not math.isfinite(value):
        raise UsageError(f"{text!r} is not a finite number")
    return value


def parse_setting(cls: type[ScenarioBase], setting: str) -> tuple[str, Any]:
    """``name=value`` for an input of ``cls``, the value read as that input expects."""
    if "=" not in setting:
        raise UsageError(f"--set expects name=value, got {setting!r}")
    name, _, text = setting.partition("=")
    name, text = name.strip(), text.strip()
    kinds: dict[str, str] = {}
    for spec in cls._specs:
        kinds[spec.name] = "list" if hasattr(spec, "min_length") else "number"
    kinds.update({n.name: "node" for n in cls._nodes})
    kinds.update({d.name: "dataset" for d in cls._datasets})
    kinds.update({s.name: "scenario" for s in cls._scenarios})
    kinds.update({p.name: "text" for p in cls._precisions})
    kinds.update({c.name: "text" for c in cls._choices})
    if name not in kinds:
        raise _nearest(name, list(kinds), f"input of {cls.__name__}")
    kind = kinds[name]
    if text.lower() in ("none", "null", ""):
        return name, None
    if kind == "number":
        return name, number(text)
    if kind == "list":
        return name, [number(item) for item in text.strip("[]()").split(",") if item.strip()]
    if kind == "node":
        return name, hardware_node(text)
    if kind == "dataset":
        from generated import Datasets

        if text.removeprefix("Datasets.") not in Datasets:
            raise _nearest(text, list(Datasets), "dataset")
        return name, getattr(Datasets, text.removeprefix("Datasets."))
    if kind == "scenario":
        return name, instance(text.removeprefix("Scenarios."))
    return name, text


def build(cls: type[ScenarioBase], base: Any, settings: Sequence[str]) -> Any:
    changes = dict(parse_setting(cls, s) for s in settings)
    if base is None:
        return cls(**changes)
    if not changes:
        return base
    label = ", ".join(s.strip() for s in settings)
    return base.variant(name=f"{base.name}, with {label}", **changes)



def parse_vary(text: str) -> tuple[str, list[Any]]:
    """``name=1..4096:log2`` | ``name=a..b`` | ``name=a..b:step=s`` | ``name=a..b:lin=n`` | ``name=log=n`` | ``name=v1,v2``."""
    import numpy

    if "=" not in text:
        raise UsageError(f"--vary expects name=range, got {text!r}")
    name, _, spec = text.partition("=")
    spec = spec.strip()
    try:
        if ".." not in spec:
            return name.strip(), [number(item) for item in spec.split(",") if item.strip()]
        span, _, mode = spec.partition(":")
        start_text, _, stop_text = span.partition("..")
        start, stop = float(start_text), float(stop_text)
        if stop < start:
            raise UsageError(f"--vary {name}: the range {span} is empty")
        if mode == "log2":
            if start <= 0:
                raise UsageError(f"--vary {name}: log2 needs a positive start")
            powers = numpy.arange(math.ceil(math.log2(start)), math.floor(math.log2(stop)) + 1)
            values = (2.0 ** powers).tolist()
        elif mode.startswith("lin="):
            values = numpy.linspace(start, stop, int(mode[4:])).tolist()
        elif mode.startswith("log="):
            values = numpy.geomspace(start, stop, int(mode[4:])).tolist()
        elif mode.startswith("step=") or not mode:
            step = float(mode[5:]) if mode else 1.0
            if step <= 0:
                raise UsageError(f"--vary {name}: step must be positive")
            values = numpy.arange(start, stop + step / 2, step).tolist()
        else:
            raise UsageError(f"--vary {name}: unknown mode {mode!r} (log2, lin=N, log=N, step=S)")
    except ValueError as error:
        raise UsageError(f"--vary {text!r}: {error}") from None
    if not values:
        raise UsageError(f"--vary {name}: no values in {spec!r}")
    return name.strip(), [int(v) if float(v).is_integer() else v for v in values]
