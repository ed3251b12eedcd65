"""Every input of a generated scenario class, whatever its kind, described from its spec.

A generated class keeps its inputs in one tuple per kind (``_specs`` for numbers and lists,
``_nodes``, ``_choices``, ...). ``input_specs`` gathers them by name and ``describe`` says what
each one takes: its kind, unit, domain, default and whether it must be given. ``mlsysym list``
prints it and ``--set`` reads a value by the kind it names, so what the command line shows
and what it accepts come from one place. A spec type without a describer here is an error,
not a row left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from symbolic.runtime.errors import DeclarationError, a_or_an
from symbolic.runtime.units import label
from symbolic.runtime.validation import (
    REQUIRED,
    ChoiceSpec,
    DatasetSpec,
    InputSpec,
    ListSpec,
    NodeSpec,
    PrecisionSpec,
    ScenarioSpec,
    WorkloadSpec,
    _plain,
)

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase

# The class attributes holding a generated class's input specs, one per kind.
SPEC_GROUPS = ("_specs", "_choices", "_precisions", "_nodes", "_datasets", "_workloads", "_scenarios")

class InputInfo(NamedTuple):
    """What one input takes. ``default`` is the value used when it is left out (a number, a
    list, an option's or precision's key; None when there is none), ``default_rule`` the
    rule that computes it instead ("" when none); ``unit`` is the spelling its numbers are
    read in ("" when plain); ``domain`` says what is accepted, without the unit."""

    name: str
    kind: str
    unit: str
    domain: str
    default: Any
    default_rule: str
    required: bool
    doc: str

    @property
    def expects(self) -> str:
        """What it takes in words, its unit included: ``a number > 0 µs``, ``one of fp16 (2 B), ...``."""
        numeric = self.kind in ("number", "integer", "list") and self.unit
        return f"{self.domain} {self.unit}" if numeric else self.domain


def input_specs(cls: type[ScenarioBase]) -> dict[str, Any]:
    """Every input spec of ``cls`` by name, in the order the class takes its keywords."""
    specs = {spec.name: spec for group in SPEC_GROUPS for spec in getattr(cls, group)}
    missing = [name for name in cls.input_names() if name not in specs]
    if missing:
        raise DeclarationError(f"{cls.__name__}: no spec for input(s) {', '.join(missing)}")
    return {name: specs[name] for name in cls.input_names()}


def describe(cls: type[ScenarioBase]) -> list[InputInfo]:
    """What every input of ``cls`` takes, in the order the class takes its keywords."""
    infos = []
    for spec in input_specs(cls).values():
        describer = _DESCRIBERS.get(type(spec))
        if describer is None:
            raise DeclarationError(f"{cls.__name__}: input {spec.name!r} is a {type(spec).__name__}, "
                                   "which symbolic.runtime.inputs cannot describe")
        infos.append(describer(cls, spec))
    return infos


def _number(cls: type[ScenarioBase], spec: InputSpec) -> InputInfo:
    return _numeric("integer" if spec.integer else "number", spec)


def _list(cls: type[ScenarioBase], spec: ListSpec) -> InputInfo:
    return _numeric("list", spec)


def _numeric(kind: str, spec: InputSpec | ListSpec) -> InputInfo:
    """A number or list: ``default`` None is an optional input, or one its ``default_rule`` computes."""
    default = list(spec.default) if isinstance(spec.default, (tuple, list)) else spec.default
    required = spec.default is REQUIRED
    return InputInfo(spec.name, kind, spec.unit, spec._replace(unit="").domain, None if required else default,
                     spec.default_rule, required, spec.doc)


def _choice(cls: type[ScenarioBase], spec: ChoiceSpec) -> InputInfo:
    required = spec.default is REQUIRED
    unit = label(spec.unit)
    options = ", ".join(f"{key} ({_plain(number)}{' ' + unit if unit else ''})" for key, number in spec.options.items())
    domain = f"one of {options}{' (any case)' if spec.case_insensitive else ''}"
    return InputInfo(spec.name, "choice", spec.unit, domain, None if required else spec.default, "", required,
                     spec.doc)


def _precision(cls: type[ScenarioBase], spec: PrecisionSpec) -> InputInfo:
    nodes = [node.name for node in cls._nodes if node.precision == spec.name]
    rates = " and ".join(f"{node}.precision_flops" for node in nodes) or "a node's precision_flops"
    required = spec.default is REQUIRED
    return InputInfo(spec.name, "precision", "", f"a key of {rates}, such as fp32", None if required else spec.default,
                     "", required, spec.doc)


def _node(cls: type[ScenarioBase], spec: NodeSpec) -> InputInfo:
    domain = "a hardware node such as Hardware.Cloud.H100" + (
        ", or a fleet such as Systems.Clusters.Frontier_8K" if spec.fleet else "")
    return InputInfo(spec.name, "node", "", domain, None, "", not spec.optional, spec.doc)


def _workload(cls: type[ScenarioBase], spec: WorkloadSpec) -> InputInfo:
    needs = f" with {', '.join(spec.required)} set" if spec.required else ""
    domain = f"{' or '.join(a_or_an(t) for t in spec.types)} (e.g. a Models entry){needs}"
    return InputInfo(spec.name, "workload", "", domain, None, "", True, spec.doc)


def _dataset(cls: type[ScenarioBase], spec: DatasetSpec) -> InputInfo:
    return InputInfo(spec.name, "dataset", "", "a dataset such as Datasets.MNIST", None, "", False, spec.doc)


def _scenario(cls: type[ScenarioBase], spec: ScenarioSpec) -> InputInfo:
    return InputInfo(spec.name, "scenario", "", f"{a_or_an(spec.scenario.__name__)} (a registry entry)", None, "",
                     not spec.optional, spec.doc)


_DESCRIBERS: dict[type, Callable[[Any, Any], InputInfo]] = {
    InputSpec: _number, ListSpec: _list, ChoiceSpec: _choice, PrecisionSpec: _precision, NodeSpec: _node,
    WorkloadSpec: _workload, DatasetSpec: _dataset, ScenarioSpec: _scenario,
}
