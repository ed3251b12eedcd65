"""The output descriptors of a generated scenario class: each output attribute is one of
these (a number or Quantity, a list, a table, a group, a contained scenario), reading the
evaluation its instance caches and wrapping plain numbers in Quantities on the way out.
``_check_finite`` refuses an evaluation with a number beyond double range, once per evaluation.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

from symbolic.runtime.errors import InfeasibleError, MissingInputError, ScenarioInputError
from symbolic.runtime.feasibility import refuse_infeasible
from symbolic.runtime.units import quantity
from symbolic.runtime.validation import FLOAT_MAX

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase


def _check_finite(scenario: ScenarioBase, values: Any, path: str) -> None:
    """Refuse an evaluation with a number outside double range anywhere (inputs are finite,
    so only overflow gets here), once per evaluation rather than on every read. Any numeric
    type is checked (the evaluators see builtins, but a number of another type must not slip by)."""
    for key, value in values.items() if type(values) is dict else enumerate(values):
        kind = type(value)
        if kind is dict or kind is list:
            _check_finite(scenario, value, f"{path}{key}.")
        elif kind is float:
            if value - value != 0.0:  # inf - inf and nan - nan are nan; cheaper than math.isfinite
                _overflowed(scenario, f"{path}{key}", value)
        elif kind is int:
            if not -FLOAT_MAX <= value <= FLOAT_MAX:
                _overflowed(scenario, f"{path}{key}", "beyond double range")
        elif value is not None and kind is not str and not _finite_number(value):
            _overflowed(scenario, f"{path}{key}", value)


def _finite_number(value: Any) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond double range
        return False
    except TypeError:  # not a real number: a complex or unknown number fails, anything else is not ours
        return not isinstance(value, numbers.Number)


def _overflowed(scenario: ScenarioBase, path: str, value: Any) -> None:
    raise ScenarioInputError(
        f"{type(scenario).__name__}: output '{path}' is {value} for these inputs (float overflow); "
        "the inputs are too large for double precision")


class Output:
    """A scalar output: a Quantity in ``unit``, or a plain number (or text) when dimensionless.

    When an optional input it needs is absent the value is None: ``if_missing="none"``
    returns None, ``"error"`` raises naming ``requires``.
    """

    def __init__(self, name: str, unit: str = "", *, requires: tuple[str, ...] = (), if_missing: str = "error",
                 alternatives: dict[str, tuple[str, ...]] | None = None, labels: tuple[Any, ...] = (),
                 guard: tuple[str, ...] = ()) -> None:
        self.name = name
        self.unit = unit
        self.requires = requires
        self.if_missing = if_missing
        self.alternatives = alternatives or {}  # a required input computed from these when they are given
        self.labels = labels  # text for the values 0, 1, ... of a choice
        self.guard = guard  # the Fits outputs it exists under (symbolic.runtime.feasibility)

    def __get__(self, scenario: ScenarioBase | None, owner: type) -> Any:
        if scenario is None:
            return self
        return self.read((scenario._result or scenario._evaluated())[self.name], scenario)

    def read(self, value: Any, scenario: ScenarioBase) -> Any:
        """``wrap``, after refusing an output that exists only for a setup that fits, when it does not."""
        if self.guard:
            refuse_infeasible(scenario, self.guard, self.name)
        return self.wrap(value, scenario)

    def wrap(self, value: Any, scenario: ScenarioBase) -> Any:
        if value is None:
            return self.missing(scenario)
        if self.labels:
            return self.labels[int(value)]
        return quantity(value, self.unit) if self.unit else value

    def missing(self, scenario: ScenarioBase) -> None:
        if self.if_missing == "none":
            return None
        def shown(source: str) -> str:  # `workload.context_length` -> the workload's 'context_length'
            owner, dot, field = source.partition(".")
            return f"the {owner}'s {field!r}" if dot else repr(source)

        def named(name: str) -> str:
            sources = self.alternatives.get(name)
            return repr(name) + (f" (or {' and '.join(shown(s) for s in sources)})" if sources else "")

        def absent(name: str) -> bool:
            args = scenario._args
            key = name.replace(".", "_")  # `workload.training_ops`, `hardware.tdp`: the evaluator's argument
            sources = self.alternatives.get(name, (key,))
            return args.get(key) is None and any(args.get(s.replace(".", "_")) is None for s in sources)

        missing = [r for r in self.requires if absent(r)] or list(self.requires)
        fields = any("." in r for r in missing)
        raise MissingInputError(
            f"{type(scenario).__name__}: output '{self.name}' needs input {' and '.join(named(r) for r in missing)}, "
            + ("which the given record does not set" if fields else "which was not given"))


class ListOutput(Output):
    """A list output, one entry per item: Quantities in ``unit``, or plain numbers.

    With ``keys`` (a list input's name) it is a dict: under the input's names when that
    input is keyed, else under its entries (``ring_time[64]`` for group size 64). With
    ``columns`` too it is a grid, given row by row: a dict by ``keys`` of dicts by ``columns``
    (``times["NDR"]["shard"]``).
    """

    def __init__(self, name: str, unit: str = "", *, keys: str = "", columns: str = "", **kwargs: Any) -> None:
        super().__init__(name, unit, **kwargs)
        self.keys = keys
        self.columns = columns

    def wrap(self, value: Any, scenario: ScenarioBase) -> Any:
        if value is None:
            return self.missing(scenario)
        items = [quantity(v, self.unit) for v in value] if self.unit else list(value)
        if not self.keys:
            return items
        if self.columns:
            columns = list(scenario._given[self.columns])
            width = len(columns)
            return {row: dict(zip(columns, items[n * width:(n + 1) * width], strict=True))
                    for n, row in enumerate(scenario._given[self.keys])}
        return dict(zip(scenario._given[self.keys], items, strict=True))


class TableOutput(Output):
    """A dict-valued output: every entry a Quantity in the table's unit.

    An entry that needs an absent optional input makes the whole table missing (raise
    naming the input, or None with ``if_missing="none"``), never a dict holding None.
    """

    def wrap(self, value: Any, scenario: ScenarioBase) -> Any:
        if value is None or any(entry is None for entry in value.values()):
            return self.missing(scenario)
        if not self.unit:
            return Entries(f"{type(scenario).__name__}.{self.name}", value)
        return Entries(f"{type(scenario).__name__}.{self.name}",
                       {key: quantity(entry, self.unit) for key, entry in value.items()})


class Entries(dict):  # type: ignore[type-arg]
    """A table's entries: a dict, also called with a key as the reference's methods of a key are
    (``s.activations("full")`` is ``s.activations["full"]``), an unknown key named with the keys there are."""

    def __init__(self, title: str, entries: dict[str, Any]) -> None:
        super().__init__(entries)
        self.title = title

    def __call__(self, key: str) -> Any:
        if not isinstance(key, str) or key not in self:
            raise ScenarioInputError(f"{self.title}: {key!r} is not one of its keys ({', '.join(map(repr, self))})")
        return self[key]

    def __reduce__(self) -> tuple[Any, ...]:
        return Entries, (self.title, dict(self))


class GroupOutput(Output):
    """A group of outputs read as attributes of one object, e.g. ``scenario.result.steps``."""

    def __init__(self, name: str, fields: tuple[Output, ...]) -> None:
        super().__init__(name)
        self.fields = fields

    def wrap(self, value: Any, scenario: ScenarioBase) -> Any:
        return Result(self.name, scenario, {field.name: (field, value[field.name]) for field in self.fields})


class Result:
    """The fields of a group output; each is wrapped (as a Quantity, list...) when read."""

    __slots__ = ("_title", "_scenario", "_fields")

    def __init__(self, title: str, scenario: ScenarioBase, fields: dict[str, tuple[Output, Any]]) -> None:
        self._title = title
        self._scenario = scenario
        self._fields = fields

    def __getattr__(self, name: str) -> Any:
        fields = object.__getattribute__(self, "_fields")
        if name not in fields:
            raise AttributeError(f"{self._title} has no field {name!r} (fields: {', '.join(fields)})")
        descriptor, value = fields[name]
        return descriptor.read(value, self._scenario)

    def fields(self) -> dict[str, Any]:
        """Every field by name (missing optional ones, and those of a setup that does not fit, skipped)."""
        result = {}
        for name in self._fields:
            try:
                result[name] = getattr(self, name)
            except (MissingInputError, InfeasibleError):
                continue
        return result

    def __dir__(self) -> list[str]:
        return list(self._fields)

    def __repr__(self) -> str:
        return f"<{type(self._scenario).__name__}.{self._title}: {', '.join(self._fields)}>"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._title == other._title and self._scenario == other._scenario  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self._title, self._scenario))

    def __reduce__(self) -> tuple[Any, ...]:
        return getattr, (self._scenario, self._title)  # read again from the (pickled) scenario


class SubScenario(Output):
    """A contained scenario, built from the values the parent's evaluator bound to its inputs."""

    def __init__(self, name: str, scenario: type[ScenarioBase], title: str, description: str,
                 guard: tuple[str, ...] = ()) -> None:
        super().__init__(name, guard=guard)
        self.scenario = scenario
        self.title = title
        self.description = description

    def wrap(self, value: Any, scenario: ScenarioBase) -> Any:
        children = scenario._children
        if children is None:
            children = {}
            object.__setattr__(scenario, "_children", children)
        if self.name not in children:  # built once per parent: instances are immutable
            children[self.name] = self.scenario._from_parent(
                self.title.format(name=scenario.name), self.description, value)
        return children[self.name]
