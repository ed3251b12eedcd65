"""The base class of every generated scenario class: validation, lazy evaluation, Quantities.

A generated class declares its inputs (``_specs`` numbers and lists, ``_nodes``,
``_datasets``, ``_scenarios``, ``_precisions``, ``_choices``), its ``_requirements``, ``_evaluate``
(the generated evaluator) and one descriptor per output. Building an instance validates
every input once and resolves structured inputs to numbers; the evaluator runs on first
access to any output, and its plain numbers are wrapped in Quantities on the way out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from symbolic.runtime.errors import (InfeasibleError, InputTypeError, MissingInputError, MlsysymError,
                                     ScenarioInputError, a_or_an)
from symbolic.runtime.feasibility import Bound, FitsSpec, check_bounds
from symbolic.runtime.inputs import describe
from symbolic.runtime.hardware import DatasetProfile, HardwareNode, is_fleet, precision_in, resolve_in
from symbolic.runtime.outputs import GroupOutput, ListOutput, Output, Result, SubScenario, TableOutput, _check_finite
from symbolic.runtime.display import Tabled
from symbolic.runtime.paths import infeasible_paths, mask_leaves
from symbolic.runtime.units import quantity
from symbolic.runtime.validation import (
    REQUIRED,
    ChoiceSpec,
    DatasetSpec,
    ListSpec,
    NodeSpec,
    PrecisionSpec,
    Requirement,
    ScenarioSpec,
    Spec,
    WorkloadSpec,
    coerce_list,
    coerce_number,
    list_argument,
    unknown_names,
)


class ScenarioBase(Tabled):
    """A named, validated, immutable set of inputs with derived outputs as attributes."""

    _specs: ClassVar[tuple[Spec, ...]] = ()
    _nodes: ClassVar[tuple[NodeSpec, ...]] = ()
    _datasets: ClassVar[tuple[DatasetSpec, ...]] = ()
    _workloads: ClassVar[tuple[WorkloadSpec, ...]] = ()
    _scenarios: ClassVar[tuple[ScenarioSpec, ...]] = ()
    _precisions: ClassVar[tuple[PrecisionSpec, ...]] = ()
    _choices: ClassVar[tuple[ChoiceSpec, ...]] = ()
    _requirements: ClassVar[tuple[Requirement, ...]] = ()
    _fits: ClassVar[tuple[FitsSpec, ...]] = ()  # what must fit where (symbolic.runtime.feasibility)
    _bounds: ClassVar[tuple[Bound, ...]] = ()  # declared output ranges
    _needs: ClassVar[dict[str, tuple[str, ...]]] = {}  # optional input -> inputs without which no output reads it
    _input_order: ClassVar[tuple[str, ...]] = ()
    _outputs: ClassVar[tuple[str, ...]] = ()
    _methods: ClassVar[tuple[str, ...]] = ()  # parameterised outputs, methods of an argument (runtime.methods)
    _evaluate: ClassVar[Callable[..., dict[str, Any]]]
    _gradient: ClassVar[Callable[..., dict[str, dict[str, Any]]]]

    __slots__ = ("name", "description", "_given", "_args", "_result", "_children")

    def __init__(self, *, name: str | None = None, description: str | None = None, **inputs: Any) -> None:
        cls = type(self)
        title = cls.__name__
        given, args = cls._resolve(inputs)
        for requirement in cls._requirements:
            _check(title, requirement, args)
        for optional, needed in cls._needs.items():  # an input no output would read is refused, not kept
            absent = [other for other in needed if given.get(other) is None]
            if given.get(optional) is not None and absent:
                raise ScenarioInputError(
                    f"{title}: input '{optional}' must be given with {' and '.join(map(repr, absent))}, and no output "
                    f"reads it without {'them' if len(absent) > 1 else 'it'}; give "
                    f"{' and '.join(map(repr, absent))} too, or leave '{optional}' out")
        if name is not None and not isinstance(name, str):
            raise InputTypeError(f"{title}: 'name' must be a string, got {name!r}")
        if description is not None and not isinstance(description, str):
            raise InputTypeError(f"{title}: 'description' must be a string, got {description!r}")
        object.__setattr__(self, "name", title if name is None else name)
        summary = (cls.__doc__ or "").split("\n")[0]
        object.__setattr__(self, "description", summary if description is None else description)
        object.__setattr__(self, "_given", {key: given[key] for key in cls.input_names()})
        object.__setattr__(self, "_args", args)
        object.__setattr__(self, "_result", None)
        object.__setattr__(self, "_children", None)

    @classmethod
    def _resolve(cls, inputs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The inputs validated (``given``) and the evaluator arguments they fill (``args``),
        before the cross-input requirements: what a constructor does, and what a search does
        for each combination of catalog entries it varies (its numbers vary around them)."""
        title = cls.__name__
        inputs = node_synonyms(cls, inputs)
        unknown_names(title, inputs, cls.input_names())
        if any(value is REQUIRED for value in inputs.values()):  # the generated signature's marker for "not given"
            inputs = {key: value for key, value in inputs.items() if value is not REQUIRED}
            _missing(cls, inputs)  # one error naming every missing input (the loops below meet them one by one)
        given: dict[str, Any] = {}
        args: dict[str, Any] = {}
        for spec in cls._specs:
            raw = inputs.get(spec.name, REQUIRED)
            if raw is None and spec.default is None:  # an optional input left out (the generated default)
                value = None
            elif raw is not REQUIRED:
                value = coerce_list(title, spec, raw) if isinstance(spec, ListSpec) else coerce_number(title, spec, raw)
            else:
                if spec.default is REQUIRED:
                    _missing(cls, inputs)
                value = spec.default
            given[spec.name] = value
            args[spec.name] = list_argument(title, spec, value, given) if isinstance(spec, ListSpec) else value
        for choice in cls._choices:
            if choice.name not in inputs and choice.default is REQUIRED:
                _missing(cls, inputs)
            given[choice.name], args[choice.argument] = choice.resolve(title, inputs.get(choice.name, REQUIRED))
        for precision in cls._precisions:
            if precision.name not in inputs and precision.default is REQUIRED:
                _missing(cls, inputs)
            given[precision.name] = _precision(title, precision, inputs.get(precision.name, precision.default))
        for node_spec in cls._nodes:
            node = inputs.get(node_spec.name)
            if node_spec.name not in inputs and not node_spec.optional:
                _missing(cls, inputs)
            if node is None and node_spec.optional:
                given[node_spec.name] = None
                args.update(dict.fromkeys(node_spec.fields.values()))
                continue
            if not (node_spec.fleet and is_fleet(node)):
                node = _instance(title, node_spec.name, node, HardwareNode,
                                 "a HardwareNode such as Hardware.Cloud.H100"
                                 + (" or a fleet such as Systems.Clusters.Frontier_8K" if node_spec.fleet else ""))
            given[node_spec.name] = node
            for what, argument in node_spec.fields.items():
                args[argument] = resolve_in(node, what, precision_in(given.get(node_spec.precision), given),
                                            scenario=title, input_name=node_spec.precision)
        for dataset_spec in cls._datasets:
            dataset = inputs.get(dataset_spec.name)
            if dataset is not None:
                _instance(title, dataset_spec.name, dataset, DatasetProfile, "a DatasetProfile such as Datasets.MNIST")
            given[dataset_spec.name] = dataset
            if dataset_spec.training_examples:
                args[dataset_spec.training_examples] = None if dataset is None else dataset.training_examples
        for workload_spec in cls._workloads:
            if workload_spec.name not in inputs:
                _missing(cls, inputs)
            given[workload_spec.name] = _workload(title, workload_spec, inputs.get(workload_spec.name), args)
        for scenario_spec in cls._scenarios:
            if scenario_spec.optional and inputs.get(scenario_spec.name) is None:
                given[scenario_spec.name] = None
                args.update(dict.fromkeys((*scenario_spec.arguments.values(), *scenario_spec.outputs.values())))
                continue
            if scenario_spec.name not in inputs:
                _missing(cls, inputs)
            inner = given[scenario_spec.name] = _instance(
                title, scenario_spec.name, inputs.get(scenario_spec.name), scenario_spec.scenario,
                a_or_an(scenario_spec.scenario.__name__))
            for shared in scenario_spec.same:  # the contained instance describes the same model as ours
                if inner._given[shared] != given[shared]:
                    raise ScenarioInputError(
                        f"{title}: input '{scenario_spec.name}' has {shared}={_named(inner._given[shared])}, but "
                        f"this {title} has {shared}={_named(given[shared])}; they must be the same (give "
                        f"{scenario_spec.name}={scenario_spec.name}.variant({shared}=...))")
            for inner_name, outer_name in scenario_spec.arguments.items():
                args[outer_name] = inner._args[inner_name]
            for path, outer_name in scenario_spec.outputs.items():
                try:
                    args[outer_name] = _output_number(inner, path)
                except MissingInputError as error:
                    raise MissingInputError(f"{title}: input '{scenario_spec.name}' cannot give its '{path}': "
                                            f"{error}") from None
        return given, args

    @classmethod
    def input_names(cls) -> tuple[str, ...]:
        """Every keyword this class accepts besides ``name`` and ``description``."""
        return cls._input_order

    def variant(self, **changes: Any) -> ScenarioBase:
        """A validated copy with ``changes`` applied (name and description kept unless given).

        A contained instance that must share an input with this one (``ScenarioInput(same=)``) and
        is not among the changes follows a change of that input: it is rebound to the new value."""
        changes = node_synonyms(type(self), changes)
        unknown_names(type(self).__name__, (k for k in changes if k not in ("name", "description")), self.input_names())
        merged = {"name": self.name, "description": self.description, **self._given, **changes}
        return type(self)(**bind_shared(type(self), merged, changes))

    def inputs(self) -> dict[str, Any]:
        """Every input by name: Quantities in their declared unit, numbers, nodes, keys."""
        return {name: getattr(self, name) for name in self.input_names()}

    def outputs(self) -> dict[str, Any]:
        """Every output by name, as the attributes return them (missing optional ones, and those of
        a setup that does not fit, skipped)."""
        result = {}
        for name in self._outputs:
            try:
                result[name] = getattr(self, name)
            except (MissingInputError, InfeasibleError):
                continue
        return result

    def evaluate(self) -> dict[str, Any]:
        """The evaluator's plain numbers in display units (tables and sub-scenarios as dicts).

        A fresh copy each call: changing it changes nothing in the instance (which may be a
        registry entry shared by the whole process). Where a ``Fits`` fails, the outputs it
        guards are None: they exist only for a setup that runs (reading one raises InfeasibleError).
        """
        result = _copy_tree(self._evaluated())
        if type(self)._fits:
            mask_leaves(result, infeasible_paths(self))
        return result

    def _evaluated(self) -> dict[str, Any]:
        """The cached evaluation (never handed out: see ``evaluate``)."""
        result = self._result
        if result is None:
            try:
                result = type(self)._evaluate(**self._args)
            except (ZeroDivisionError, OverflowError) as error:  # valid inputs beyond double precision
                from symbolic.runtime.undefined import where_fits  # the rare path: numpy only here

                # unless only outputs a failing Fits guards are undefined (a break-even that never comes)
                result = where_fits(type(self), self._args) if type(self)._fits else None
                if result is None:
                    raise ScenarioInputError(
                        f"{type(self).__name__}: these inputs under- or overflow double precision ({error}); "
                        f"inputs: {self._given}") from None
            _check_finite(self, result, "")
            if type(self)._bounds:
                check_bounds(self, result)
            object.__setattr__(self, "_result", result)
        return result

    @classmethod
    def _from_parent(cls, name: str, description: str, values: dict[str, Any]) -> ScenarioBase:
        """A contained scenario from its parent's evaluation: its inputs were computed by the
        parent's evaluator inside their declared domains, so they are not validated again."""
        child = cls.__new__(cls)
        given = {spec.name: values[spec.name] for spec in cls._specs}
        for attribute, value in (("name", name), ("description", description), ("_given", given),
                                 ("_args", dict(given)), ("_result", values), ("_children", None)):
            object.__setattr__(child, attribute, value)
        return child

    def __getattr__(self, name: str) -> Any:
        given = object.__getattribute__(self, "_given")
        if name not in given:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        value = given[name]
        if isinstance(value, dict):  # a keyed list input
            unit = next(spec.unit for spec in type(self)._specs if spec.name == name)
            return {key: quantity(v, unit) for key, v in value.items()} if unit else dict(value)
        for spec in type(self)._specs:
            if spec.name == name and spec.unit and value is not None:
                return [quantity(v, spec.unit) for v in value] if isinstance(value, list) else quantity(value, spec.unit)
        return list(value) if isinstance(value, list) else value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .variant({name}=...)")

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={_shown_input(value)}" for name, value in self.inputs().items())
        return f"{type(self).__name__}(name={self.name!r}, {shown})"

    def explain(self, output: str) -> Any:
        """``output`` as definition -> closed form -> numbers -> result, as ``mlsysym explain``
        prints it; in Jupyter the equations render as LaTeX. Needs the ``generator`` extra (sympy)."""
        from symbolic.runtime.extensions import extension  # the generator provides it (an entry point)

        return extension("explain", "explain")(self, output)

    # -- value semantics: equality, hashing, pickling, copying -----------------------------
    def __eq__(self, other: object) -> bool:
        """Equal when of one class with equal inputs; ``name`` and ``description`` are labels."""
        if type(other) is not type(self):
            return NotImplemented
        return self is other or self._given == other._given  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        """Hashes what ``__eq__`` compares, the inputs: a keyed input is a dict, equal whatever
        its key order (its evaluator list follows that order, so it cannot be hashed)."""
        return hash((type(self), tuple((key, _hashable(value)) for key, value in self._given.items())))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its state (inputs, resolved arguments, evaluation): immutable, and a
        contained scenario was built from its parent's values, not by the constructor."""
        return _restore, (type(self), self.name, self.description, self._given, self._args, self._result)

    def __copy__(self) -> ScenarioBase:
        return self  # immutable: a copy is the same value

    def __deepcopy__(self, memo: dict[int, Any]) -> ScenarioBase:
        return self


def _restore(cls: type[ScenarioBase], name: str, description: str, given: dict[str, Any], args: dict[str, Any],
             result: dict[str, Any] | None) -> ScenarioBase:
    scenario = cls.__new__(cls)
    for attribute, value in (("name", name), ("description", description), ("_given", given), ("_args", args),
                             ("_result", result), ("_children", None)):
        object.__setattr__(scenario, attribute, value)
    return scenario


def _hashable(value: Any) -> Any:
    """An input as a hashable value equal where the input is: a dict as its set of items."""
    kind = type(value)
    if kind is dict:
        return frozenset((key, _hashable(item)) for key, item in value.items())
    if kind is list:
        return tuple(_hashable(item) for item in value)
    return value


def _shown_input(value: Any) -> str:
    """An input in a repr: Quantities as ``Q_(10, 'µs')``, lists of them as ``Q_([...], 'byte')``."""
    if type(value) is list and value and hasattr(value[0], "units"):
        return f"Q_({[v.magnitude for v in value]!r}, '{value[0].units:~P}')"
    if hasattr(value, "units") and hasattr(value, "magnitude"):
        return f"Q_({value.magnitude!r}, '{value.units:~P}')"
    return repr(value)


def _copy_tree(tree: Any) -> Any:
    """A copy of nested dicts and lists (the leaves, numbers and text, are immutable)."""
    kind = type(tree)
    if kind is dict:
        return {key: _copy_tree(value) for key, value in tree.items()}
    if kind is list:
        return [_copy_tree(value) for value in tree]
    return tree


def bind_shared(cls: type[ScenarioBase], merged: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``merged`` with every contained instance that shares a changed input (``same=``), and is not
    changed itself, rebound to the new value: what ``variant``, the CLI's ``--set`` and the calculator do."""
    for spec in cls._scenarios:
        inner = merged.get(spec.name)
        if spec.name in changes or not isinstance(inner, ScenarioBase):
            continue
        moved = {shared: merged[shared] for shared in spec.same if shared in changes and shared in merged}
        if moved and any(inner._given.get(k) != v for k, v in moved.items()):
            label = ", ".join(f"{key}={getattr(value, 'name', value)}" for key, value in moved.items())
            try:
                merged = {**merged, spec.name: inner.variant(name=f"{inner.name}, with {label}", **moved)}
            except MlsysymError:  # the new value does not suit it: the constructor names what is wrong
                continue
    return merged


def _named(value: Any) -> str:
    """An input value in a message: a record or node by its name."""
    name = getattr(value, "name", None)
    return repr(name) if isinstance(name, str) and not isinstance(value, str) else repr(value)


def _missing(cls: type[ScenarioBase], inputs: dict[str, Any]) -> None:
    """Raise one error naming every required input that was not given (not only the first),
    each with what it takes: the rows ``mlsysym list`` shows, so no kind of input is left out."""
    needed = [f"'{info.name}' ({info.expects})" for info in describe(cls) if info.required and info.name not in inputs]
    if needed:
        inputs_word = "a required input was" if len(needed) == 1 else f"{len(needed)} required inputs were"
        raise MissingInputError(f"{cls.__name__}: {inputs_word} not given: {', '.join(needed)}")


def _precision(title: str, spec: PrecisionSpec, value: Any) -> str:
    if value is None and spec.default is not REQUIRED:  # None means "not given", as in the reference's signatures
        value = spec.default
    if value is REQUIRED:
        raise MissingInputError(f"{title}: required input '{spec.name}' (a precision key) was not given")
    if not isinstance(value, str):
        raise InputTypeError(f"{title}: input '{spec.name}' got {type(value).__name__} {value!r}; "
                             "expected a precision key such as 'fp32'")
    return value


def _output_number(inner: ScenarioBase, path: str) -> Any:
    """The number of the contained instance's output ``path`` in its display unit; reading the
    attribute first lets the instance name an input it lacks (MissingInputError)."""
    parts = path.replace("]", "").replace("[", ".").split(".")
    getattr(inner, parts[0])
    value: Any = inner._result or inner._evaluated()
    for part in parts:
        value = value[part]
    if value is None:  # a table entry the attribute read did not reject
        raise MissingInputError(f"{type(inner).__name__}: output '{path}' needs an input that was not given")
    return value


def _instance(title: str, name: str, value: Any, kind: type, expected: str) -> Any:
    if not isinstance(value, kind):
        error = MissingInputError if value is None else InputTypeError
        raise error(f"{title}: input '{name}' got {value!r}; expected {expected}")
    return value


def _workload(title: str, spec: WorkloadSpec, value: Any, args: dict[str, Any]) -> Any:
    """Check the record's type, then read each field or derived quantity the evaluator needs."""
    kinds = {kind.__name__ for kind in type(value).__mro__}
    if not kinds & set(spec.types) or not hasattr(value, "resolved"):
        accepted = " or ".join(spec.types)
        error = MissingInputError if value is None else InputTypeError
        raise error(f"{title}: input '{spec.name}' got {value!r}; expected a {accepted} such as a Models entry")
    for field in spec.required:
        if not value.has(field):
            raise MissingInputError(f"{title}: input '{spec.name}' is {value!r}, whose {field} is not set "
                                    "(nor implied by its other fields); this scenario needs it")
    for field, argument in spec.fields.items():
        args[argument] = value.resolved(field) if value.has(field) else None
    return value


def _check(title: str, requirement: Requirement, args: dict[str, Any]) -> None:
    if not requirement.applies(args):
        return
    values = [args[name] for name in requirement.names]
    missing = requirement.absent(args)
    if missing:
        raise MissingInputError(f"{title}: {requirement.message} ({', '.join(missing)} not given)")
    if not requirement.check(*values):
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(requirement.names, values, strict=True))
        if requirement.unless:  # the optional input that would waive it is missing
            raise MissingInputError(f"{title}: {requirement.message}; got {shown} and no '{requirement.unless}'")
        raise ScenarioInputError(f"{title}: {requirement.message}; got {shown}")


# The descriptors live in symbolic.runtime.outputs; named here too, where code has long imported them from.
__all__ = ["GroupOutput", "ListOutput", "Output", "Result", "ScenarioBase", "SubScenario", "TableOutput"]


# Most scenarios call their device `hardware`; the reference's parallel-layout solver calls it `accelerator`.
# Either name reaches a class's one node input under the other name, so a user need not know which.
NODE_SYNONYMS = {"hardware": "accelerator", "accelerator": "hardware"}


def node_synonyms(cls: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """``inputs`` with ``hardware`` read as ``accelerator`` (or back) where the class has only the other,
    as a node input; both names given is refused (two values for one input)."""
    names = set(cls.input_names())
    nodes = {spec.name for spec in getattr(cls, "_nodes", ())}
    renamed = dict(inputs)
    for alias, canonical in NODE_SYNONYMS.items():
        if alias in renamed and alias not in names and canonical in nodes:
            if canonical in renamed:
                raise ScenarioInputError(f"{cls.__name__}: '{alias}' and '{canonical}' name the same input; give one")
            renamed[canonical] = renamed.pop(alias)
    return renamed
