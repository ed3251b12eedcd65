"""Hardware nodes and dataset profiles: the structured inputs of scenarios.

A node keeps each rate both as published (``"67.0 TFLOPs/s"``, for people) and as a
float in base units (flop/s, byte/s, byte) for the evaluators, so resolving a node to
numbers needs no pint. Precisions: a node's own keys (``fp16_dense``), the names of
``PRECISION_ALIASES`` (``bf16`` reads ``fp16_dense`` where that is the node's key; a sparse rate
is never taken for a dense one), ``peak`` (the headline rate every catalog node states), and
fallback chains ``"fp16|bf16|peak"``: the first name the node answers to, so a default can
work on every node and still say which rate it read.
"""

from __future__ import annotations

import re
from typing import Any

from symbolic.runtime.errors import InputTypeError, MissingInputError, MlsysymError, ScenarioInputError
from symbolic.runtime.provided import memory_type
from symbolic.runtime.records import catalog_entry
from symbolic.runtime.units import Q_
from symbolic.runtime.validation import InputSpec, coerce_number

_RATE = InputSpec("precision_flops", unit="flop/s", minimum=0, strict=True)
_BANDWIDTH = InputSpec("memory_bandwidth", unit="byte/s", minimum=0, strict=True)
_CAPACITY = InputSpec("memory_capacity", unit="byte", minimum=0, strict=True)
_PEAK = InputSpec("peak_flops", unit="flop/s", minimum=0, strict=True)
_TDP = InputSpec("tdp", unit="W", minimum=0, strict=True)
_EXAMPLES = InputSpec("training_examples", integer=True, minimum=0)
# Each precision name a node answers to, and the keys of the catalog (hardware.toml) it reads where the
# node has no key of that very name, in order. Grounded in what the keys mean: `<name>_dense` is
# the dense rate of <name>; `fp16_dense` (A100, H100, H100 PCIe, B200: NVIDIA tensor cores) is the
# dense 16-bit rate FP16 and BF16 share, and `fp16_sparse` its 2:4-sparse double, so `bf16` and
# `bf16_sparse` read them. A bare `fp16` key is not read for `bf16` (the P100 has no BF16 units),
# nor a bare `bf16` for `fp16` (TPU matrix units take BF16, not FP16); a sparse rate is read only
# by a sparse name, never for a dense one.
PRECISION_ALIASES: dict[str, tuple[str, ...]] = {
    "fp32": ("fp32_dense",),
    "tf32": ("tf32_dense",),
    "tf32_sparse": (),
    "bf16": ("bf16_dense", "fp16_dense"),
    "bf16_sparse": ("fp16_sparse",),
    "fp16": ("fp16_dense",),
    "fp16_sparse": (),
    "fp8": ("fp8_dense",),
    "fp8_sparse": (),
    "int8": ("int8_dense",),
    "int8_sparse": (),
    "fp4": ("fp4_dense",),
    "int4": ("int4_dense",),
}
PEAK = "peak"  # the headline rate (``peak_flops``)
CHAIN = "|"  # "fp16|bf16|peak": the first of these names the node answers to
# Scalar facts beyond the roofline: field -> (unit, strictly positive, integer)
EXTRA_FIELDS = {
    "tdp": ("W", True, False), "tdp_min": ("W", True, False), "tdp_max": ("W", True, False),
    "dispatch_tax": ("ms", False, False), "unit_cost": ("dollar", False, False),
    "unit_cost_max": ("dollar", False, False), "accelerator_count": ("", True, True),
}
DEFAULT_DISPATCH_TAX = "0.01 ms"  # the reference's HardwareNode default

# What a node resolves to for the evaluators, and each number's unit (base units).
NODE_FIELDS = {"peak": "flop/s", "peak_flops": "flop/s", "bandwidth": "byte/s", "capacity": "byte", "tdp": "W",
               "accelerators": "", "dispatch_tax": "s"}


def precision_in(value: Any, given: Any) -> Any:
    """A precision value with each ``{input}`` in it replaced by the key given for that input:
    a default ``"{precision}|peak"`` reads the rate of the weights' precision where the node
    lists one, else the headline peak (``given`` maps input names to what was given)."""
    if not isinstance(value, str) or "{" not in value:
        return value
    return re.sub(r"\{(\w+)\}", lambda match: str(given.get(match.group(1)) or ""), value)


def is_fleet(value: Any) -> bool:
    """A fleet record (``Systems.Clusters.*``): nodes of one accelerator kind, counted."""
    return type(value).__name__ == "Fleet" and hasattr(value, "resolved")


def resolve_in(value: Any, what: str, precision: str | None = None, *, scenario: str = "",
               input_name: str = "precision") -> float | int | None:
    """``what`` of a node, or of a fleet's accelerator (``accelerators``: the fleet's total, 1 for a node)."""
    if is_fleet(value):
        if what == "accelerators":
            return int(value.resolved("total_accelerators"))
        value = value.node.accelerator
    return value.resolve(what, precision, scenario=scenario, input_name=input_name)


class HardwareNode:
    """A machine: peak rate per precision, memory bandwidth and (optionally) capacity.

    ``HardwareNode(name="My GPU", precision_flops={"fp32": Q_(67, "TFLOP/s")},
    memory_bandwidth=Q_(3.35, "TB/s"))``. Bare numbers are read as flop/s, byte/s, byte.
    """

    __slots__ = ("name", "path", "_rates", "_published", "_bandwidth", "_capacity", "_peak", "_extra",
                 "interconnect", "nvlink", "_memory")

    def __init__(
        self,
        name: str,
        precision_flops: dict[str, Any] | None = None,
        memory_bandwidth: Any = None,
        memory_capacity: Any = None,
        peak_flops: Any = None,
        interconnect: Any = None,
        nvlink: Any = None,
        **extra: Any,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise InputTypeError(f"HardwareNode: 'name' must be a non-empty string, got {name!r}")
        precision_flops = {} if precision_flops is None else precision_flops
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
        if memory_bandwidth is None:
            raise MissingInputError(f"{where}: 'memory_bandwidth' was not given (a data rate such as 3.35 TB/s)")
        bandwidth = float(coerce_number(where, _BANDWIDTH, memory_bandwidth))
        peak = None if peak_flops is None else float(coerce_number(where, _PEAK, peak_flops))
        if peak is None and not rates:
            raise MissingInputError(f"{where}: give 'peak_flops' or at least one 'precision_flops' rate")
        unknown = sorted(set(extra) - set(EXTRA_FIELDS))
        if unknown:
            raise ScenarioInputError(f"{where}: unknown fields {unknown} (fields: name, precision_flops, "
                                     f"memory_bandwidth, memory_capacity, peak_flops, interconnect, nvlink, "
                                     f"{', '.join(EXTRA_FIELDS)})")
        for field, value in extra.items():
            unit, strict, integer = EXTRA_FIELDS[field]
            if value is not None:
                coerce_number(where, InputSpec(field, unit, integer, 0, strict), value)
        for field, link in (("interconnect", interconnect), ("nvlink", nvlink)):
            if link is not None and "IOInterconnect" not in {kind.__name__ for kind in type(link).__mro__}:
                raise InputTypeError(f"{where}: '{field}' got {link!r}; expected an IOInterconnect")
        init = object.__setattr__
        init(self, "name", name)
        init(self, "path", "")
        init(self, "_rates", rates)
        init(self, "_published", {
            "precision_flops": dict(precision_flops),
            "memory_bandwidth": memory_bandwidth,
            "memory_capacity": memory_capacity,
            "peak_flops": peak_flops,
        })
        init(self, "_bandwidth", bandwidth)
        init(self, "_capacity", None if memory_capacity is None else coerce_number(where, _CAPACITY, memory_capacity))
        init(self, "_peak", peak)
        init(self, "_extra", {k: v for k, v in extra.items() if v is not None})
        init(self, "interconnect", interconnect)
        init(self, "nvlink", nvlink)
        init(self, "_memory", None)

    @classmethod
    def from_catalog(
        cls,
        path: str,
        name: str,
        precision_flops: dict[str, tuple[str, float]],
        memory_bandwidth: tuple[str, float],
        memory_capacity: tuple[str, float],
        peak_flops: tuple[str, float] | None = None,
        extra: dict[str, Any] | None = None,
        interconnect: Any = None,
        nvlink: Any = None,
    ) -> HardwareNode:
        """A catalog node from (published text, base-unit value) pairs; builds no Quantity."""
        node = cls.__new__(cls)
        init = object.__setattr__
        init(node, "name", name)
        init(node, "path", path)
        init(node, "_rates", {key: value for key, (_, value) in precision_flops.items()})
        init(node, "_published", {
            "precision_flops": {key: text for key, (text, _) in precision_flops.items()},
            "memory_bandwidth": memory_bandwidth[0],
            "memory_capacity": memory_capacity[0],
            "peak_flops": None if peak_flops is None else peak_flops[0],
        })
        init(node, "_bandwidth", memory_bandwidth[1])
        init(node, "_capacity", memory_capacity[1])
        init(node, "_peak", None if peak_flops is None else peak_flops[1])
        init(node, "_extra", dict(extra or {}))
        init(node, "interconnect", interconnect)
        init(node, "nvlink", nvlink)
        init(node, "_memory", None)
        return node

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"HardwareNode {self.name!r} is immutable; build a new HardwareNode")

    def __reduce__(self) -> tuple[Any, ...]:
        lookup = catalog_entry()
        if self.path and lookup is not None:  # a catalog node unpickles as the same node
            return (lookup, (f"Hardware.{self.path}",))
        return (_rebuilt, (HardwareNode, tuple((slot, getattr(self, slot)) for slot in HardwareNode.__slots__)))

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"HardwareNode {self.name!r} is immutable")

    # -- numbers for the evaluators (base units, no pint) --------------------------------
    def peak_flops_per_second(self, precision: str, *, scenario: str = "", input_name: str = "precision") -> float:
        """The peak rate at ``precision`` in flop/s; a clear error lists the names the node answers to."""
        key = self.precision_key(precision)
        if key == PEAK and self._peak is not None:
            return self._peak
        if key in self._rates:
            return self._rates[key]
        listed = ", ".join(self.precision_names) or "none"
        where = f"{scenario}: input '{input_name}'" if scenario else "precision"
        raise ScenarioInputError(
            f"{where} is {precision!r}, which {self.name} does not list; precisions it lists: {listed}") from None

    def precision_key(self, precision: Any) -> Any:
        """The key a precision name reads: the node's own key (any case), else the key
        ``PRECISION_ALIASES`` names for it; ``peak`` for the headline rate; for a chain
        ``"a|b|peak"`` the key of its first name the node answers to (else the name itself)."""
        if not isinstance(precision, str) or precision in self._rates:
            return precision
        if CHAIN in precision:
            keys = [self.precision_key(name.strip()) for name in precision.split(CHAIN)]
            return next((key for key in keys if self._answers(key)), precision)
        name = precision.lower()
        if name in self._rates or name == PEAK:
            return name
        return next((key for key in PRECISION_ALIASES.get(name, ()) if key in self._rates), name)

    def _answers(self, key: str) -> bool:
        return key in self._rates or (key == PEAK and self._peak is not None)

    @property
    def precision_aliases(self) -> dict[str, str]:
        """Each name of ``PRECISION_ALIASES`` this node answers to without a key of that name,
        and the key it reads (``{"bf16": "fp16_dense", ...}`` on an H100)."""
        return {name: key for name in PRECISION_ALIASES if name not in self._rates
                for key in [self.precision_key(name)] if key in self._rates}

    def resolve(self, what: str, precision: str | None = None, *, scenario: str = "",
                input_name: str = "precision") -> float | int | None:
        """The number ``what`` (a key of ``NODE_FIELDS``) in base units; clear errors when absent
        (``tdp``: None when the node states none, so only the outputs reading it are unavailable)."""
        if what == "accelerators":
            return 1
        if what == "dispatch_tax":  # every node has one (the reference's default when unset)
            return float(Q_(self.dispatch_tax).to("s").magnitude)
        if what == "tdp":
            tdp = self._extra.get("tdp")
            return None if tdp is None else float(Q_(tdp).to("W").magnitude if isinstance(tdp, str)
                                                   else coerce_number(self.name, _TDP, tdp))
        if what == PEAK:
            return self.peak_flops_per_second(precision, scenario=scenario, input_name=input_name)  # type: ignore[arg-type]
        if what == "bandwidth":
            return self._bandwidth
        if what == "capacity":
            if self._capacity is None:
                raise ScenarioInputError(f"{scenario + ': ' if scenario else ''}{self.name} has no memory_capacity; "
                                         "build the HardwareNode with one")
            return self._capacity
        if what == "peak_flops":
            if self._peak is None:
                raise ScenarioInputError(f"{scenario + ': ' if scenario else ''}{self.name} has no peak_flops; "
                                         "build the HardwareNode with one")
            return self._peak
        raise KeyError(what)

    @property
    def bandwidth_bytes_per_second(self) -> float:
        """Memory bandwidth in byte/s."""
        return self._bandwidth

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precision keys this node lists, in published order."""
        return tuple(self._rates)

    @property
    def precision_names(self) -> tuple[str, ...]:
        """Every precision name this node answers to: its own keys in published order, the alias
        names that read one of them (``precision_aliases``), and ``peak`` (the headline rate)."""
        return tuple(self._rates) + tuple(self.precision_aliases) + ((PEAK,) if self._peak is not None else ())

    @property
    def peak_flops(self) -> Any:
        """The headline peak rate as published (None for a custom node that states none)."""
        return _quantity(self._published["peak_flops"])

    @property
    def compute(self) -> Any:
        """``node.compute.peak_flops`` and ``node.compute.precision_flops``, as the reference spells them."""
        return _Compute(self.peak_flops, self.precision_flops)

    @property
    def memory(self) -> Any:
        """``node.memory.capacity``, ``.bandwidth`` and the derived ``.labeled_capacity``."""
        if self._memory is None:
            record = memory_type()
            if record is None:
                raise MlsysymError(f"{self.name}: node.memory is a record of the generated systems types; "
                                   "import generated (or mlsysym) first")
            capacity = self._published["memory_capacity"]
            memory = record(capacity=None if capacity is None else _quantity(capacity),
                                  bandwidth=_quantity(self._published["memory_bandwidth"]))
            object.__setattr__(self, "_memory", memory)
        return self._memory

    def __getattr__(self, name: str) -> Any:
        if name in EXTRA_FIELDS:
            value = self._extra.get(name, DEFAULT_DISPATCH_TAX if name == "dispatch_tax" else None)
            return _quantity(value) if value is not None and EXTRA_FIELDS[name][0] else value
        raise AttributeError(f"'HardwareNode' object has no attribute '{name}'")

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

    # Value semantics: equal by name and numbers (where it sits in the catalog is not part of
    # its value), hashable, and pickled as its state so a copy in another process is equal.
    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self is other or _state(self, ("path",)) == _state(other, ("path",))

    def __hash__(self) -> int:
        return hash((self.name, self._bandwidth))


class _Compute:
    """A node's compute rates under the reference's names."""

    __slots__ = ("peak_flops", "precision_flops")

    def __init__(self, peak_flops: Any, precision_flops: dict[str, Any]) -> None:
        self.peak_flops = peak_flops
        self.precision_flops = precision_flops


def _quantity(value: Any) -> Any:
    if isinstance(value, str):
        return Q_(value)
    if isinstance(value, (int, float)):
        return value
    return value


def _rebuilt(cls: Any, state: tuple[tuple[str, Any], ...]) -> Any:
    """An immutable record from its slots (what pickle and copy call)."""
    made = cls.__new__(cls)
    for slot, value in state:
        object.__setattr__(made, slot, value)
    return made


class DatasetProfile:
    """A dataset as scenarios see it: a name and, when known, its training-example count."""

    __slots__ = ("name", "path", "training_examples", "_details")

    def __init__(self, name: str, training_examples: Any = None, **details: Any) -> None:
        if not isinstance(name, str) or not name:
            raise InputTypeError(f"DatasetProfile: 'name' must be a non-empty string, got {name!r}")
        init = object.__setattr__
        init(self, "name", name)
        init(self, "path", "")
        init(self, "training_examples", None if training_examples is None
             else coerce_number(f"DatasetProfile '{name}'", _EXAMPLES, training_examples))
        init(self, "_details", dict(details))

    @classmethod
    def from_catalog(cls, path: str, **fields: Any) -> DatasetProfile:
        """A catalog dataset, remembering its registry name (``Datasets.<path>``)."""
        profile = cls(**fields)
        object.__setattr__(profile, "path", path)
        return profile

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"DatasetProfile {self.name!r} is immutable; build a new DatasetProfile")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"DatasetProfile {self.name!r} is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (DatasetProfile, tuple((slot, getattr(self, slot)) for slot in DatasetProfile.__slots__)))

    @property
    def details(self) -> dict[str, Any]:
        """The informational fields (a copy: the profile itself cannot change)."""
        return dict(self._details)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        details = object.__getattribute__(self, "_details")
        if name in details:
            return details[name]
        raise AttributeError(f"dataset {self.name!r} has no field {name!r} (fields: {', '.join(details)})")

    def __repr__(self) -> str:
        return f"DatasetProfile({self.path or self.name!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self is other or _state(self, ("path",)) == _state(other, ("path",))

    def __hash__(self) -> int:
        return hash((self.name, self.training_examples))


def _state(record: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A record's slots by name (those set), for equality and pickling."""
    return {name: object.__getattribute__(record, name) for name in type(record).__slots__
            if name not in leave_out and hasattr(record, name)}
