"""The space a search walks: numeric axes and one axis of catalog combinations, resolved once.

A space is the product of the varied inputs. Numeric inputs (ranges, powers of two, lists)
become float64 axes in each input's declared unit; structured inputs (hardware nodes,
workloads, precisions, choices, datasets, contained scenarios) are crossed into one axis of
*combinations*, each resolved once to the evaluator arguments it fills, exactly as the class
constructor resolves them. A value outside its input's domain and a combination the class
would refuse (a precision the node does not list, a workload without a needed field) are
dropped here and counted as invalid points: they are never evaluated.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from symbolic.runtime.errors import InputTypeError, ScenarioInputError
from symbolic.runtime.hardware import EXTRA_FIELDS, HardwareNode, is_fleet
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.units import is_quantity
from symbolic.runtime.validation import FLOAT_TINY, ListSpec, _is_number, _outside, _unwrapped, conversion_factor

EXACT_INTEGER = 2**53  # float64 holds every integer up to here exactly


class EachPrecision:
    """Stands for "every precision the node lists" (its own keys; ``peak`` for a node without a table)."""

    def __repr__(self) -> str:
        return "EACH_PRECISION"

    def __reduce__(self) -> str:
        return "EACH_PRECISION"


EACH_PRECISION = EachPrecision()
# Node fields a constraint or objective may read as ``<node input>.<field>``: (unit, how to read it).
NODE_ATTRIBUTES = {"memory_capacity": "byte", "memory_bandwidth": "byte/s", "peak_flops": "flop/s",
                   "precision_flops": "flop/s",
                   **{field: unit for field, (unit, _, _) in EXTRA_FIELDS.items()}}


def powers_of_two(low: float, high: float | None = None) -> list[int]:
    """Every power of two in [low, high]: ``powers_of_two(1, 64)`` is [1, 2, 4, ..., 64].

    Both bounds are values; the chart helper of the declarations, ``symbolic.model.powers_of_two(6)``,
    takes the last exponent instead, so one bound alone is refused rather than guessed at."""
    if high is None:
        raise ScenarioInputError(f"powers_of_two takes the lowest and the highest value: powers_of_two(1, {low!r}) "
                                 f"for the powers of two up to {low!r}; got only {low!r} (the declarations' chart "
                                 "helper symbolic.model.powers_of_two takes the last exponent instead)")
    if not (low > 0 and high >= low and math.isfinite(high)):
        raise ScenarioInputError(f"powers_of_two needs 0 < low <= high (finite), got {low!r}, {high!r}")
    return [2**k for k in range(math.ceil(math.log2(low)), math.floor(math.log2(high)) + 1)]


def every(namespace: Any) -> list[Any]:
    """Every entry of a catalog namespace (``every(Hardware.Cloud)``, ``every(Models.Language)``)."""
    return [entry for _, entry in namespace.items()]


def _kinds(cls: type[ScenarioBase]) -> dict[str, str]:
    kinds = {spec.name: "list" if isinstance(spec, ListSpec) else "number" for spec in cls._specs}
    for group, kind in ((cls._nodes, "node"), (cls._precisions, "precision"), (cls._choices, "choice"),
                        (cls._workloads, "workload"), (cls._datasets, "dataset"), (cls._scenarios, "scenario")):
        kinds.update({spec.name: kind for spec in group})
    return kinds


class Space:
    """The varied inputs of one scenario, checked and resolved (built once per process)."""

    def __init__(self, base: ScenarioBase, vary: dict[str, Any], names: Iterable[str] = ()) -> None:
        cls = self.cls = type(base)
        self.base = base
        title = cls.__name__
        if not isinstance(vary, dict) or not vary:
            raise ScenarioInputError(f"{title}: a search needs a non-empty dict of input name -> values to vary")
        kinds = _kinds(cls)
        specs = {spec.name: spec for spec in cls._specs}
        self.numeric: list[tuple[str, Any]] = []  # (name, float64 values in the declared unit)
        categorical: list[tuple[str, list[Any]]] = []
        numeric_size = kept_size = 1  # numeric points as given, and those inside every domain
        numeric_counts: list[tuple[str, int, int]] = []  # (name, values given, values kept)
        for name, given in vary.items():
            values = given
            if name not in kinds:
                import difflib

                close = difflib.get_close_matches(name, list(kinds), n=3)
                raise ScenarioInputError(f"{title}: cannot vary unknown input '{name}'"
                                         + (f"; did you mean {', '.join(close)}?" if close else "")
                                         + f" (inputs: {', '.join(kinds)})")
            if kinds[name] == "list":
                raise ScenarioInputError(f"{title}: cannot vary the list input '{name}' (fix it in the base)")
            if kinds[name] == "precision" and values is EACH_PRECISION:
                if not any(node.precision == name for node in cls._nodes):
                    raise ScenarioInputError(f"{title}: '{name}' is read by no hardware node; list its values")
                categorical.append((name, [EACH_PRECISION]))
                continue
            if kinds[name] in ("node", "workload", "dataset") and not isinstance(values, Mapping) and callable(
                    getattr(values, "items", None)):  # a catalog tier (Hardware.Cloud): every entry in it
                values = every(values)
            if isinstance(values, Mapping):  # iterating it would vary over its keys, silently
                raise ScenarioInputError(f"{title}: the values of '{name}' are a dict; give a list (or a range) of "
                                         "values to vary it over")
            # text and bytes are one (refused) value, not the characters or byte codes numpy and list() see
            single = isinstance(values, (str, bytes, bytearray, memoryview)) or not _iterable(values)
            items = [values] if single else list(values)
            if not items:
                raise ScenarioInputError(f"{title}: no values to vary '{name}' over")
            if kinds[name] == "number":
                kept = _numeric_axis(title, specs[name], items)
                self.numeric.append((name, kept))
                numeric_size *= len(items)
                kept_size *= len(kept)
                numeric_counts.append((name, len(items), len(kept)))
            else:
                fleets = any(node.name == name and node.fleet for node in cls._nodes)
                categorical.append((name, _checked_entries(title, name, kinds[name], items, fleets)))
        inputs = {spec.name for spec in cls._specs}
        self.referenced = [n for n in dict.fromkeys(names) if n in attribute_units(base) and n not in inputs]
        self.categorical = [name for name, _ in categorical]
        combos, self.combo_args, self.combo_attributes, tried, refused = self._combinations(categorical)
        self.combos = combos
        self.size = numeric_size * tried  # every point of the space as given, valid or not
        self.axes = ([("", len(combos))] if categorical else []) + [(n, len(v)) for n, v in self.numeric]
        self.valid_size = len(combos) * kept_size  # points inside every domain: the ones evaluated
        # why each point left out here is left out: {reason: points}, summing to size - valid_size
        self.skipped = {reason: count * numeric_size for reason, count in refused.items()}
        before = len(combos)  # a point outside several domains counts once, at its first such axis
        for position, (name, given_count, kept_count) in enumerate(numeric_counts):
            after = math.prod(given for _, given, _ in numeric_counts[position + 1:])
            if given_count > kept_count:
                reason = f"a value of '{name}' outside {specs[name].scalar_domain}"
                self.skipped[reason] = self.skipped.get(reason, 0) + before * (given_count - kept_count) * after
            before *= kept_count

    # -- the combinations of structured inputs ----------------------------------------------
    def _combinations(self, categorical: list[tuple[str, list[Any]]]) -> tuple[
            list[dict[str, Any]], dict[str, Any], dict[str, Any], int, dict[str, int]]:
        """The valid combinations, the evaluator arguments they fill and the referenced catalog
        fields (an array over the combinations each, or a number when nothing structured varies),
        how many combinations were tried, and why the others were refused ({reason: count})."""
        import itertools

        import numpy

        cls, title = self.cls, self.cls.__name__
        combos: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        tried = 0
        refused: dict[str, int] = {}
        for values in itertools.product(*(items for _, items in categorical)):
            for combo in self._expanded(dict(zip((n for n, _ in categorical), values, strict=True))):
                tried += 1
                given = {**self.base._given, **combo}
                try:
                    row = _structured_arguments(cls, given) if categorical else {}
                    row.update({name: _attribute(cls, given, name) for name in self.referenced})
                except ScenarioInputError as error:  # the class would refuse this combination: invalid, counted
                    reason = _without_title(str(error), title)
                    refused[reason] = refused.get(reason, 0) + 1
                    continue
                unset = [name for name in self.referenced if row[name] is None]
                if unset:  # a field the search reads is unset for this entry (e.g. a node without a price)
                    reason = f"'{unset[0]}' is not set for the entry (the search reads it)"
                    refused[reason] = refused.get(reason, 0) + 1
                    continue
                combos.append(combo)
                rows.append(row)
        columns: dict[str, Any] = {}
        for key in rows[0] if rows else ():
            column = [row[key] for row in rows]
            if not categorical:
                columns[key] = column[0]
            elif all(value is None for value in column):
                columns[key] = None
            elif any(value is None for value in column):
                raise ScenarioInputError(f"{title}: the varied entries differ in whether they set what '{key}' "
                                         "reads (an optional field); search them in separate runs")
            else:
                columns[key] = numpy.asarray(column, dtype=numpy.float64)
        arguments = {k: v for k, v in columns.items() if k not in self.referenced}
        return combos, arguments, {k: columns.get(k) for k in self.referenced}, tried, refused

    def _expanded(self, combo: dict[str, Any]) -> list[dict[str, Any]]:
        """A combination with ``EACH_PRECISION`` replaced by each precision its node lists."""
        for name, value in combo.items():
            if value is EACH_PRECISION:
                node_name = next(node.name for node in self.cls._nodes if node.precision == name)
                node = combo.get(node_name, self.base._given[node_name])
                return [c for key in _node_precisions(node) for c in self._expanded({**combo, name: key})]
        return [combo]

    def point(self, index: int) -> dict[str, Any]:
        """The inputs of the valid point ``index`` (row-major over ``axes``): numbers and entries."""
        import numpy

        position = numpy.unravel_index(index, [n for _, n in self.axes]) if self.axes else ()
        values: dict[str, Any] = {}
        offset = 0
        if self.categorical:
            values.update(self.combos[int(position[0])])
            offset = 1
        specs = {spec.name: spec for spec in self.cls._specs}
        for (name, axis), at in zip(self.numeric, position[offset:], strict=True):
            number = float(axis[int(at)])
            values[name] = int(number) if specs[name].integer else number
        return values


def _without_title(message: str, title: str) -> str:
    """A refusal's message without the class name it starts with (the search names the class)."""
    return message.removeprefix(f"{title}: ")


def attribute_units(base: ScenarioBase) -> dict[str, str]:
    """The inputs a constraint or objective may read, each with its unit: numbers and choices
    by name, catalog fields as ``input.field`` (``hardware.memory_capacity``, ``workload.layers``)."""
    cls, given = type(base), base._given
    units = {spec.name: spec.unit for spec in cls._specs if not isinstance(spec, ListSpec)}
    units.update({choice.name: choice.unit for choice in cls._choices})
    for node in cls._nodes:
        units.update({f"{node.name}.{field}": unit for field, unit in NODE_ATTRIBUTES.items()})
    for workload in cls._workloads:
        for spec in getattr(type(given.get(workload.name)), "_fields", ()):
            if spec.kind in ("number", "int"):
                units[f"{workload.name}.{spec.name}"] = spec.unit
    for dataset in cls._datasets:
        units[f"{dataset.name}.training_examples"] = ""
    return units


def _iterable(values: Any) -> bool:
    try:
        iter(values)
    except TypeError:
        return False
    return not is_quantity(values) or getattr(values.magnitude, "ndim", 0) > 0


def _node_precisions(node: Any) -> tuple[str, ...]:
    if is_fleet(node):
        node = node.node.accelerator
    if not isinstance(node, HardwareNode):
        return ()
    return node.precisions or ("peak",)


def _numeric_axis(title: str, spec: Any, items: list[Any]) -> Any:
    """The values inside the input's domain as float64 in its unit; wrong types and units raise."""
    import numpy

    if len(items) > 1000 and (type(items[0]) in (float, int) or isinstance(items[0], (numpy.integer, numpy.floating))):
        # plain numbers: vectorised when all are (the dtype says so)
        try:
            array = numpy.asarray(items)
        except (TypeError, ValueError):
            array = None
        if array is not None and array.ndim == 1 and array.dtype.kind in "iuf":  # not bool, timedelta, object
            return _numeric_array(title, spec, array)
    kept = []
    for item in items:
        value = _unwrapped(item)
        if is_quantity(value):
            magnitude = _unwrapped(value.magnitude)
            if not _is_number(magnitude):
                raise InputTypeError(f"{title}: a value of '{spec.name}' is a Quantity of {type(magnitude).__name__} "
                                     f"{magnitude!r}; expected {spec.scalar_domain}")
            factor = conversion_factor(f"{title}: input '{spec.name}'", spec, value)
            value = magnitude * factor
            whole = isinstance(magnitude, numbers.Integral) and float(factor).is_integer()
            given = int(magnitude) * int(factor) if whole else None
        elif not _is_number(value):
            raise InputTypeError(f"{title}: a value of '{spec.name}' is {type(item).__name__} {item!r}; "
                                 f"expected {spec.scalar_domain}")
        else:
            magnitude = value
            given = int(value) if isinstance(value, numbers.Integral) else None
        try:
            value = float(value) + 0.0  # -0.0 becomes 0.0, as in variant()
        except OverflowError:  # an int, Fraction or Decimal beyond double range
            value = math.inf
        # the integer as given, not its double: 2**53 + 1 rounds to 2**53, which is not beyond it
        if spec.integer and math.isfinite(value) and abs(value if given is None else given) > EXACT_INTEGER:
            raise ScenarioInputError(f"{title}: '{spec.name}' value {item!r} is beyond 2**53, where a search's "
                                     "float64 arithmetic stops being exact for integers")
        underflow = value == 0 and magnitude != 0  # Decimal('1e-400'), 1e-308 fs in hours: no double but 0
        if not math.isfinite(value) or (spec.integer and not value.is_integer()) or _outside(spec, value) or (
                value and abs(value) < FLOAT_TINY) or underflow:
            continue  # outside the domain: invalid points, counted, never evaluated
        kept.append(value)
    return numpy.asarray(kept, dtype=numpy.float64)


def _numeric_array(title: str, spec: Any, items: Any) -> Any:
    """``_numeric_axis`` for a long axis of plain numbers, vectorised (the same rules)."""
    import numpy

    if items.dtype.kind in "iu" and spec.integer and numpy.any((items > EXACT_INTEGER) | (items < -EXACT_INTEGER)):
        raise ScenarioInputError(f"{title}: a value of '{spec.name}' is beyond 2**53, where a search's "
                                 "float64 arithmetic stops being exact for integers")  # checked before it rounds
    try:
        values = numpy.asarray(items, dtype=numpy.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"{title}: the values of '{spec.name}' are not all numbers; "
                             f"expected {spec.scalar_domain}") from None
    if spec.integer and numpy.any(numpy.isfinite(values) & (numpy.abs(values) > EXACT_INTEGER)):
        raise ScenarioInputError(f"{title}: a value of '{spec.name}' is beyond 2**53, where a search's "
                                 "float64 arithmetic stops being exact for integers")
    keep = numpy.isfinite(values) & ((numpy.abs(values) >= FLOAT_TINY) | (values == 0))
    if spec.integer:
        keep &= values == numpy.floor(values)
    if spec.minimum is not None:
        keep &= (values > spec.minimum) if spec.strict else (values >= spec.minimum)
    if spec.maximum is not None:
        keep &= (values < spec.maximum) if spec.strict_maximum else (values <= spec.maximum)
    return values[keep] + 0.0  # -0.0 becomes 0.0


def _checked_entries(title: str, name: str, kind: str, items: list[Any], fleets: bool = False) -> list[Any]:
    expected: Any = {"node": HardwareNode, "precision": str, "choice": str}.get(kind)
    for item in items:
        if kind == "node" and fleets and is_fleet(item):
            continue
        if kind in ("node", "workload", "dataset") and callable(getattr(item, "items", None)):
            raise InputTypeError(f"{title}: a value of '{name}' is the catalog tier {getattr(item, '_title', 'given')}, "
                                 f"not one entry; vary '{name}' over one tier (Models.Language) or list entries")
        wrong = (expected is not None and not isinstance(item, expected)) or (
            kind in ("workload", "scenario", "dataset") and isinstance(item, (str, int, float)))
        if wrong:
            hint = (" (a catalog entry such as Hardware.Cloud.H100, or every(Hardware.Cloud) for a tier"
                    + (", or a fleet such as Systems.Clusters.Frontier_8K)" if fleets else ")")) if kind == "node" else ""
            kind = "node or fleet" if fleets else kind
            raise InputTypeError(f"{title}: a value of '{name}' is {type(item).__name__} {item!r}; "
                                 f"expected a {kind} entry{hint}")
    return items


def _structured_arguments(cls: type[ScenarioBase], given: dict[str, Any]) -> dict[str, Any]:
    """The evaluator arguments that structured inputs fill, resolved by the constructor's own
    code (``ScenarioBase._resolve``): a fleet where the input takes one, a contained scenario's
    outputs as well as its inputs, exactly as an instance reads them."""
    numbers = {spec.name for spec in cls._specs}
    return {name: value for name, value in cls._resolve(given)[1].items() if name not in numbers}


def _attribute(cls: type[ScenarioBase], given: dict[str, Any], name: str) -> Any:
    """A referenced input or catalog field of one combination, as a number in its unit (None when unset)."""
    owner, _, field = name.partition(".")
    value = given.get(owner)
    if not field:  # a choice: the number its option stands for
        choice = next((c for c in cls._choices if c.name == owner), None)
        return None if choice is None else choice.resolve(cls.__name__, value)[1]
    if value is None:
        return None
    if is_fleet(value):  # a fleet's fields are its accelerator's, as the evaluator reads them
        value = value.node.accelerator
    if isinstance(value, HardwareNode):
        if field in EXTRA_FIELDS:
            raw = getattr(value, field)
            return None if raw is None else (raw.to(EXTRA_FIELDS[field][0]).magnitude if is_quantity(raw) else raw)
        if field == "precision_flops":
            precision = next(n.precision for n in cls._nodes if n.name == owner)
            return value.resolve("peak", given.get(precision), scenario=cls.__name__, input_name=precision)
        what = {"memory_capacity": "capacity", "memory_bandwidth": "bandwidth", "peak_flops": "peak_flops"}[field]
        try:
            return value.resolve(what, scenario=cls.__name__)
        except ScenarioInputError:
            return None
    if field == "training_examples":
        return getattr(value, "training_examples", None)
    return value.resolved(field) if value.has(field) else None
