"""Hardware nodes and dataset profiles: the structured inputs of scenarios.

A node keeps each rate both as published (``"67.0 TFLOPs/s"``, for people) and as a
float in base units (flop/s, byte/s, byte) for the evaluators, so resolving a node to
numbers needs no pint.
"""

from __future__ import annotations

from typing import Any

from symbolic.runtime.errors import InputTypeError, ScenarioInputError
from symbolic.runtime.units import Q_
from symbolic.runtime.validation import InputSpec, coerce_number

_RATE = InputSpec("precision_flops", unit="flop/s", minimum=0, strict=True)
_BANDWIDTH = InputSpec("memory_bandwidth", unit="byte/s", minimum=0, strict=True)
_CAPACITY = InputSpec("memory_capacity", unit="byte", minimum=0, strict=True)
_EXAMPLES = InputSpec("training_examples", integer=True, minimum=0)

# What a node resolves to for the evaluators, and each number's unit (base units).
NODE_FIELDS = {"peak": "flop/s", "bandwidth": "byte/s", "capacity": "byte"}


class HardwareNode:
    """A machine: peak rate per precision, memory bandwidth and (optionally) capacity.

    ``HardwareNode(name="My GPU", precision_flops={"fp32": Q_(67, "TFLOP/s")},
    memory_bandwidth=Q_(3.35, "TB/s"))``. Bare numbers are read as flop/s, byte/s, byte.
    """

    __slots__ = ("name", "path", "_rates", "_published", "_bandwidth", "_capacity")

    def __init__(
        self,
        name: str,
        precision_flops: dict[str, Any],
        memory_bandwidth: Any,
        memory_capacity: Any = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise InputTypeError(f"HardwareNode: 'name' must be a non-empty string, got {name!r}")
        if not isinstance(precision_flops, dict):
            raise InputTypeError(
                f"HardwareNode '{name}': 'precision_flops' must be a dict of precision -> rate, "
                f"got {type(precision_flops).__name__}"
            )
        where = f"HardwareNode '{name}'"
        rates = {}
        for key, rate in precision_flops.items():
            if not isinstance(key, str):
                raise InputTypeError(f"{where}: precision keys must be strings, got {key!r}")
            spec = InputSpec(f"precision_flops[{key!r}]", unit="flop/s", minimum=0, strict=True)
            rates[key] = float(coerce_number(where, spec, rate))
        self.name = name
        self.path = ""
        self._rates = rates
        self._published = {
            "precision_flops": dict(precision_flops),
            "memory_bandwidth": memory_bandwidth,
            "memory_capacity": memory_capacity,
        }
        self._bandwidth = float(coerce_number(where, _BANDWIDTH, memory_bandwidth))
        self._capacity = (
            None if memory_capacity is None else coerce_number(where, _CAPACITY, memory_capacity)
        )

    @classmethod
    def from_catalog(
        cls,
        path: str,
        name: str,
        precision_flops: dict[str, tuple[str, float]],
        memory_bandwidth: tuple[str, float],
        memory_capacity: tuple[str, float],
    ) -> HardwareNode:
        """A catalog node from (published text, base-unit value) pairs; builds no Quantity."""
        node = cls.__new__(cls)
        node.name = name
        node.path = path
        node._rates = {key: value for key, (_, value) in precision_flops.items()}
        node._published = {
            "precision_flops": {key: text for key, (text, _) in precision_flops.items()},
            "memory_bandwidth": memory_bandwidth[0],
            "memory_capacity": memory_capacity[0],
        }
        node._bandwidth = memory_bandwidth[1]
        node._capacity = memory_capacity[1]
        return node

    # -- numbers for the evaluators (base units, no pint) --------------------------------
    def peak_flops_per_second(self, precision: str, *, scenario: str = "", input_name: str = "precision") -> float:
        """The peak rate at ``precision`` in flop/s; a clear error lists the node's keys."""
        try:
            return self._rates[precision]
        except (KeyError, TypeError):
            listed = ", ".join(self._rates) if self._rates else "none"
            where = f"{scenario}: input '{input_name}'" if scenario else "precision"
            raise ScenarioInputError(
                f"{where} is {precision!r}, which {self.name} does not list; "
                f"precisions it lists: {listed}"
            ) from None

    def resolve(self, what: str, precision: str | None = None, *, scenario: str = "",
                input_name: str = "precision") -> float:
        """The number ``what`` (a key of ``NODE_FIELDS``) in base units; clear errors when absent."""
        if what == "peak":
            return self.peak_flops_per_second(precision, scenario=scenario, input_name=input_name)  # type: ignore[arg-type]
        if what == "bandwidth":
            return self._bandwidth
        if what == "capacity":
            if self._capacity is None:
                raise ScenarioInputError(f"{scenario + ': ' if scenario else ''}{self.name} has no memory_capacity; "
                                         "build the HardwareNode with one")
            return self._capacity
        raise KeyError(what)

    @property
    def bandwidth_bytes_per_second(self) -> float:
        """Memory bandwidth in byte/s."""
        return self._bandwidth

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precision keys this node lists, in published order."""
        return tuple(self._rates)

    # -- Quantities for people -----------------------------------------------------------
    @property
    def precision_flops(self) -> dict[str, Any]:
        """Peak rate per precision as published (e.g. ``67.0 TFLOPs/s``, ``1979 TOPS``)."""
        return {key: _quantity(value) for key, value in self._published["precision_flops"].items()}

    @property
    def memory_bandwidth(self) -> Any:
        """Memory bandwidth as published (e.g. ``3.35 TB/s``)."""
        return _quantity(self._published["memory_bandwidth"])

    @property
    def memory_capacity(self) -> Any:
        """Memory capacity as published, or None when not given."""
        value = self._published["memory_capacity"]
        return None if value is None else _quantity(value)

    def ridge_point(self, precision: str) -> Any:
        """Peak rate over bandwidth at ``precision``, in flop/byte."""
        return Q_(self.peak_flops_per_second(precision) / self._bandwidth, "flop/byte")

    def __repr__(self) -> str:
        return f"HardwareNode({self.path or self.name!r})" if self.path else f"HardwareNode({self.name!r})"


def _quantity(value: Any) -> Any:
    if isinstance(value, str):
        return Q_(value)
    if isinstance(value, (int, float)):
        return value
    return value


class DatasetProfile:
    """A dataset as scenarios see it: a name and, when known, its training-example count."""

    __slots__ = ("name", "path", "training_examples", "details")

    def __init__(self, name: str, training_examples: Any = None, **details: Any) -> None:
        if not isinstance(name, str) or not name:
            raise InputTypeError(f"DatasetProfile: 'name' must be a non-empty string, got {name!r}")
        self.name = name
        self.path = ""
        self.training_examples = (
            None
            if training_examples is None
            else coerce_number(f"DatasetProfile '{name}'", _EXAMPLES, training_examples)
        )
        self.details = details

    @classmethod
    def from_catalog(cls, path: str, **fields: Any) -> DatasetProfile:
        """A catalog dataset, remembering its registry name (``Datasets.<path>``)."""
        profile = cls(**fields)
        profile.path = path
        return profile

    def __getattr__(self, name: str) -> Any:
        details = object.__getattribute__(self, "details")
        if name in details:
            return details[name]
        raise AttributeError(f"dataset {self.name!r} has no field {name!r} (fields: {', '.join(details)})")

    def __repr__(self) -> str:
        return f"DatasetProfile({self.path or self.name!r})"
