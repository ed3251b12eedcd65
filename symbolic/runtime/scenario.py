"""The base class of every generated scenario class: validation, lazy evaluation, Quantities.

A generated class declares ``_specs`` (numeric inputs), ``_nodes`` and ``_precisions``
(structured inputs), ``_evaluate`` (the generated evaluator) and one descriptor per
output. Building an instance validates every input once; the evaluator runs on first
access to any output and its plain numbers are wrapped in Quantities on the way out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from symbolic.runtime.errors import InputTypeError, MissingInputError
from symbolic.runtime.hardware import HardwareNode
from symbolic.runtime.units import Q_
from symbolic.runtime.validation import (
    REQUIRED,
    InputSpec,
    NodeSpec,
    PrecisionSpec,
    coerce_number,
    unknown_names,
)


class ScenarioBase:
    """A named, validated, immutable set of inputs with derived outputs as attributes."""

    _specs: ClassVar[tuple[InputSpec, ...]] = ()
    _nodes: ClassVar[tuple[NodeSpec, ...]] = ()
    _precisions: ClassVar[tuple[PrecisionSpec, ...]] = ()
    _outputs: ClassVar[tuple[str, ...]] = ()
    _evaluate: ClassVar[Callable[..., dict[str, Any]]]

    __slots__ = ("name", "description", "_given", "_args", "_result")

    def __init__(self, *, name: str | None = None, description: str | None = None, **inputs: Any) -> None:
        cls = type(self)
        title = cls.__name__
        unknown_names(title, inputs, cls.input_names())
        given: dict[str, Any] = {}
        args: dict[str, Any] = {}
        for spec in cls._specs:
            if spec.name in inputs:
                value = coerce_number(title, spec, inputs[spec.name])
            elif spec.default is REQUIRED:
                raise MissingInputError(f"{title}: required input '{spec.name}' ({spec.domain}) was not given")
            else:
                value = spec.default
            given[spec.name] = args[spec.name] = value
        for precision in cls._precisions:
            value = inputs.get(precision.name, precision.default)
            if value is REQUIRED:
                raise MissingInputError(f"{title}: required input '{precision.name}' (a precision key) was not given")
            if not isinstance(value, str):
                raise InputTypeError(
                    f"{title}: input '{precision.name}' got {type(value).__name__} {value!r}; "
                    "expected a precision key such as 'fp32'"
                )
            given[precision.name] = value
        for node_spec in cls._nodes:
            node = inputs.get(node_spec.name)
            if not isinstance(node, HardwareNode):
                raise (MissingInputError if node is None else InputTypeError)(
                    f"{title}: input '{node_spec.name}' got {node!r}; expected a HardwareNode "
                    "such as Hardware.Cloud.H100 or HardwareNode(name=..., precision_flops=..., memory_bandwidth=...)"
                )
            given[node_spec.name] = node
            if node_spec.peak:
                args[node_spec.peak] = node.peak_flops_per_second(
                    given[node_spec.precision], scenario=title, input_name=node_spec.precision
                )
            if node_spec.bandwidth:
                args[node_spec.bandwidth] = node.bandwidth_bytes_per_second
        if name is not None and not isinstance(name, str):
            raise InputTypeError(f"{title}: 'name' must be a string, got {name!r}")
        if description is not None and not isinstance(description, str):
            raise InputTypeError(f"{title}: 'description' must be a string, got {description!r}")
        object.__setattr__(self, "name", title if name is None else name)
        object.__setattr__(self, "description", (cls.__doc__ or "").split("\n")[0] if description is None else description)
        object.__setattr__(self, "_given", given)
        object.__setattr__(self, "_args", args)
        object.__setattr__(self, "_result", None)

    @classmethod
    def input_names(cls) -> tuple[str, ...]:
        """Every keyword this class accepts besides ``name`` and ``description``."""
        return (
            tuple(spec.name for spec in cls._specs)
            + tuple(node.name for node in cls._nodes)
            + tuple(precision.name for precision in cls._precisions)
        )

    def variant(self, **changes: Any) -> ScenarioBase:
        """A validated copy with ``changes`` applied (name and description kept unless given)."""
        unknown_names(type(self).__name__, (k for k in changes if k not in ("name", "description")), self.input_names())
        merged = {"name": self.name, "description": self.description, **self._given, **changes}
        return type(self)(**merged)

    def inputs(self) -> dict[str, Any]:
        """Every input by name: Quantities in their declared unit, numbers, nodes, keys."""
        return {name: getattr(self, name) for name in self.input_names()}

    def outputs(self) -> dict[str, Any]:
        """Every output by name, as the attributes return them."""
        return {name: getattr(self, name) for name in self._outputs}

    def evaluate(self) -> dict[str, Any]:
        """The evaluator's plain numbers in display units (tables and sub-scenarios as dicts)."""
        result = self._result
        if result is None:
            result = type(self)._evaluate(**self._args)
            object.__setattr__(self, "_result", result)
        return result

    def __getattr__(self, name: str) -> Any:
        given = object.__getattribute__(self, "_given")
        if name not in given:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        value = given[name]
        for spec in type(self)._specs:
            if spec.name == name and spec.unit and value is not None:
                return Q_(value, spec.unit)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .variant({name}=...)")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._given.items())
        return f"{type(self).__name__}(name={self.name!r}, {shown})"


class Output:
    """A scalar output: a Quantity in ``unit``, or a plain number when dimensionless."""

    def __init__(self, name: str, unit: str = "") -> None:
        self.name = name
        self.unit = unit

    def __get__(self, scenario: ScenarioBase | None, owner: type) -> Any:
        if scenario is None:
            return self
        value = scenario.evaluate()[self.name]
        return Q_(value, self.unit) if self.unit else value


class TableOutput(Output):
    """A dict-valued output: every entry a Quantity in the table's unit."""

    def __get__(self, scenario: ScenarioBase | None, owner: type) -> Any:
        if scenario is None:
            return self
        table = scenario.evaluate()[self.name]
        if not self.unit:
            return dict(table)
        return {key: Q_(value, self.unit) for key, value in table.items()}


class SubScenario:
    """A contained scenario, built from the values the parent's evaluator bound to its inputs."""

    def __init__(self, name: str, scenario: type[ScenarioBase], title: str, description: str) -> None:
        self.name = name
        self.scenario = scenario
        self.title = title
        self.description = description

    def __get__(self, parent: ScenarioBase | None, owner: type) -> Any:
        if parent is None:
            return self
        values = parent.evaluate()[self.name]
        inputs = {name: values[name] for name in self.scenario.input_names()}
        child = self.scenario(name=self.title.format(name=parent.name), description=self.description, **inputs)
        object.__setattr__(child, "_result", values)
        return child
