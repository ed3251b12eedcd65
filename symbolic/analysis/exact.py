"""Exact evaluation of a declaration at one set of inputs: every quantity a rational, in base units.

A registry instance's input values (catalog references resolved, hardware nodes read at the
instance's precision, a scenario input replaced by the inputs of the instance it names) become
exact rationals, and every quantity is evaluated with sympy in declaration order and shown in
its display unit. The docs' worked examples and charts (``symbolic.codegen``), the derivations
and an entry's value taken from another entry's output (``Instance.output``) all read these
numbers, so none of them evaluates a formula a second way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch
from fractions import Fraction
from typing import Any

import sympy

from symbolic.analysis.dimensions import scale_of_unit
from symbolic.model.functions import Given, Len
from symbolic.model.instances import Instance, evaluate_outputs_with
from symbolic.model import (
    UNIT_SYMBOLS,
    ChoiceDecl,
    DatasetDecl,
    InputDecl,
    ListInput,
    ListQuantity,
    NodeDecl,
    Quantity,
    ScenarioInputDecl,
    ScenarioModel,
    StructuredDecl,
    TextQuantity,
    WorkloadDecl,
    _symbols,
)
from symbolic.model.arguments import argument_spec
from symbolic.model.dependencies import closure, reads
from symbolic.catalog.refs import value_of
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.hardware import precision_in, resolve_in
from symbolic.runtime.validation import REQUIRED
from symbolic.runtime.errors import MissingInputError, ScenarioInputError
from symbolic.runtime.validation import unknown_names

Value = Any  # an exact sympy number, a list of them, a string (text outputs) or None (absent)


# -- exact values ------------------------------------------------------------------------
def exact(value: Any) -> sympy.Rational:
    """An exact rational for a Python number (floats by their shortest decimal spelling)."""
    if isinstance(value, bool):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Rational(repr(value))
    if isinstance(value, sympy.Basic) and value.is_Number:
        return sympy.Rational(value)
    return sympy.Rational(Fraction(value))


def _in_unit(value: Any, unit: str) -> Any:
    """A given input value as an exact number (or list) in the input's declared unit."""
    if isinstance(value, (list, tuple)):
        return [_in_unit(item, unit) for item in value]
    if hasattr(value, "units") and isinstance(value.magnitude, Fraction):  # exact (another entry's output)
        return exact(value.magnitude) * scale_of_unit(str(value.units)) / scale_of_unit(unit)
    if hasattr(value, "units"):  # a pint Quantity
        return exact(value.to(unit or "dimensionless").magnitude)
    return exact(value)


def input_values(model: ScenarioModel, given: dict[str, Any]) -> dict[str, Value]:
    """Every declared input of ``model`` as an exact value in its declared unit.

    ``given`` maps input names to what an instance passes (numbers, Quantities, nodes,
    datasets, precision strings, other instances). Hardware numbers are read at the
    instance's precision; a scenario input resolves to the inputs of the instance it names.
    """
    structured = {item.name: item for item in model.structured}
    choices = {item.name: item.choice.default for item in model.structured if isinstance(item, ChoiceDecl)}
    keys = {**choices, **given}  # a default "{precision}|peak" reads the choice given (or defaulted)
    precision_of = {node: precision_in(given.get(p.name, p.default), keys) for p in model.precisions for node in p.nodes}
    base: dict[sympy.Basic, Any] = {}
    values: dict[str, Value] = {}
    arguments = {decl.name for decl in model.evaluator_inputs()}
    for decl in model.inputs:
        if decl.structured and decl.name not in arguments:
            continue  # a number of a structured input that no output reads
        if decl.structured:
            item = structured[decl.structured]
            value: Value = structured_value(item, decl, given.get(decl.structured), precision_of.get(decl.structured),
                                            model)
        elif given.get(decl.name) is not None:  # a variant may set an optional input back to None
            value = _in_unit(given[decl.name], decl.spec.unit)
        else:
            default = decl.spec.default
            if default is REQUIRED:
                raise DeclarationError(f"{model.name}: required input {decl.name} is not given")
            if default is None:  # a method's argument shows its example value
                example = argument_spec(decl).example if decl.argument else None
                if decl.argument and argument_spec(decl).key_of:
                    value = exact(0)  # a key: the first entry of its keyed input
                else:
                    value = None if example is None else _in_unit(example, decl.spec.unit)
            else:
                expr = sympy.sympify(default).xreplace(base)
                value = None if expr.free_symbols else exact(expr / scale_of_unit(decl.spec.unit))
        values[decl.name] = value
        if value is not None and not isinstance(value, list):
            base[decl.symbol] = value * scale_of_unit(decl.spec.unit)
    return values


@singledispatch
def structured_value(item: StructuredDecl, decl: InputDecl, owner: Any, precision: str | None,
                     model: ScenarioModel) -> Value:
    """The exact number ``decl`` resolves to from ``owner``, the value given for structured
    input ``item`` (None when left out); one handler per kind of structured input."""
    raise DeclarationError(f"{model.name}: input {item.name}: no worked-example handler for a {type(item).__name__}")


@structured_value.register
def _node(item: NodeDecl, decl: InputDecl, owner: Any, precision: str | None, model: ScenarioModel) -> Value:
    if owner is None and not item.optional:
        raise DeclarationError(f"{model.name}: no hardware node given for {decl.structured}")
    number = None if owner is None else resolve_in(owner, decl.resolves, precision)
    return None if number is None else exact(number)


@structured_value.register
def _workload(item: WorkloadDecl, decl: InputDecl, owner: Any, precision: str | None, model: ScenarioModel) -> Value:
    return _resolved(owner, decl.resolves)


@structured_value.register
def _choice(item: ChoiceDecl, decl: InputDecl, owner: Any, precision: str | None, model: ScenarioModel) -> Value:
    chosen = item.choice.default if owner is None else owner
    key = chosen.lower() if item.choice.case_insensitive else chosen
    return exact(item.choice.options[key])


@structured_value.register
def _dataset(item: DatasetDecl, decl: InputDecl, owner: Any, precision: str | None, model: ScenarioModel) -> Value:
    count = None if owner is None else owner.training_examples
    return None if count is None else exact(count)


@structured_value.register
def _scenario(item: ScenarioInputDecl, decl: InputDecl, owner: Any, precision: str | None,
              model: ScenarioModel) -> Value:
    if owner is None and item.optional:  # an optional scenario input left out
        return None
    assert item.scenario is not None and isinstance(owner, Instance)
    if decl.resolves.startswith("output:"):  # a number read from one of its outputs
        path = decl.resolves.removeprefix("output:")
        inner = owner.scenario.model
        return evaluate(inner, instance_values(owner), needed(inner, [path])).shown[path]
    return instance_values(owner)[decl.resolves]


def _resolved(record: Any, field: str) -> Value:
    """A workload's number for ``field`` (None when unset; the scenario decides if that is an error)."""
    try:
        number = record.resolved(field)
    except (MissingInputError, AttributeError):
        return None
    return exact(number)


def instance_values(instance: Instance) -> dict[str, Value]:
    """The input values of a registry instance (a variant's base inputs merged in)."""
    given = {name: value_of(value) for name, value in instance.all_inputs().items()}
    return input_values(instance.scenario.model, list_arguments(instance.scenario.model, given))


def list_arguments(model: ScenarioModel, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with each list input as the evaluator reads it: a keyed input's values in its
    key order (or that of the input it is aligned to), a unique list's repeats collapsed."""
    result = dict(given)
    for decl in model.inputs:
        spec, value = decl.spec, given.get(decl.name)
        if not isinstance(spec, ListInput) or value is None:
            continue
        if spec.keyed:
            result[decl.name] = [value[key] for key in (given[spec.aligned_to] if spec.aligned_to else value)]
        elif spec.unique:
            result[decl.name] = list(dict.fromkeys(value))
    return result


@dataclass
class Evaluation:
    """Every symbol of a model at one set of inputs, exactly, in base units."""

    model: ScenarioModel
    env: dict[sympy.Basic, Any]  # symbol -> exact base value (None when absent)
    lists: dict[sympy.Basic, tuple[list[Any], int]]  # list base -> (base values, first index)
    shown: dict[str, Value]  # quantity name -> value in its display unit (lists: per item)
    inputs: dict[str, Value]  # input name -> value in its declared unit

    def base(self, name: str) -> Any:
        """A scalar quantity's exact value in base units (hidden steps included)."""
        quantity = next(q for q in self.model.quantities if q.name == name)
        return self.env[quantity.symbol]


def needed(model: ScenarioModel, names: list[str]) -> set[str]:
    """The named quantities and every quantity they are computed from."""
    by_symbol = {q.symbol: q for q in model.quantities}
    by_symbol.update({q.symbol.label: q for q in model.quantities if isinstance(q.symbol, sympy.IndexedBase)})
    start = [q for q in model.quantities if q.name in names]
    reached = closure(set().union(*(reads(q) for q in start)), by_symbol)
    return {q.name for q in start} | {by_symbol[s].name for s in reached if s in by_symbol}


def evaluate(model: ScenarioModel, inputs: dict[str, Value], only: set[str] | None = None) -> Evaluation:
    """Every quantity of ``model`` at ``inputs`` (exact numbers in declared units).

    ``only`` limits the work to those quantities (see ``needed``); the others are absent.
    """
    env: dict[sympy.Basic, Any] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
    lists: dict[sympy.Basic, tuple[list[Any], int]] = {}
    for decl in model.inputs:
        value = inputs.get(decl.name)
        scale = scale_of_unit(decl.spec.unit)
        if isinstance(decl.symbol, sympy.IndexedBase):
            lists[decl.symbol] = ([v * scale for v in value], 0) if value is not None else ([], 0)
            lists[decl.symbol.label] = lists[decl.symbol]
        else:
            env[decl.symbol] = None if value is None else value * scale
    evaluation = Evaluation(model, env, lists, {}, dict(inputs))

    for quantity in model.quantities:
        if only is not None and quantity.name not in only:
            continue
        if isinstance(quantity, TextQuantity):
            items = lists[quantity.expr][0]
            evaluation.shown[quantity.name] = quantity.separator.join(str(v) for v in items)
            continue
        if isinstance(quantity.symbol, sympy.IndexedBase) and quantity.echo:
            lists[quantity.symbol] = lists[quantity.expr]
            evaluation.shown[quantity.name] = [v / scale_of_unit(quantity.unit) for v in lists[quantity.expr][0]]
            continue
        if isinstance(quantity, ListQuantity):
            items = [number_at(quantity.expr.xreplace(at), evaluation) for at in entries(quantity, evaluation)]
            first = number_at(quantity.limits[1], evaluation)
            lists[quantity.symbol] = (items, int(first))
            # an entry reading an absent optional input: the whole list is absent, as the evaluator's
            evaluation.shown[quantity.name] = (None if any(v is None for v in items)
                                               else [v / scale_of_unit(quantity.unit) for v in items])
            continue
        value = number_at(quantity.expr, evaluation)
        env[quantity.symbol] = value
        evaluation.shown[quantity.name] = None if value is None else value / scale_of_unit(quantity.unit)
    return evaluation


def entries(quantity: Quantity, evaluation: Evaluation) -> list[dict[sympy.Basic, sympy.Integer]]:
    """The index values of each entry of a list output, in order (a grid's row by row)."""
    ranges = quantity.index_ranges()
    spans = [(index, range(int(number_at(start, evaluation)), int(number_at(stop, evaluation)) + 1))
             for index, start, stop in ranges]
    found: list[dict[sympy.Basic, sympy.Integer]] = [{}]
    for index, span in spans:
        found = [{**at, index: sympy.Integer(k)} for at in found for k in span]
    return found


def number_at(expr: sympy.Basic, evaluation: Evaluation) -> Any:
    """``expr`` at the evaluation's values (None when it reads an absent value)."""
    env, lists = evaluation.env, evaluation.lists
    if expr.has(Given):  # Output(..., otherwise=): the first branch only where its inputs are given
        expr = expr.replace(lambda e: isinstance(e, Given), lambda e: sympy.true if all(
            env.get(s) is not None for s in e.inputs()) else sympy.false)
    reads = _symbols(expr)
    if any(s in env and env[s] is None for s in reads):
        return None
    result = expr.xreplace({s: v for s, v in env.items() if v is not None and s in reads})
    if not result.is_Number:  # sums, maxima, lengths and list entries are left
        result = result.replace(lambda e: isinstance(e, Len), lambda e: sympy.Integer(len(lists[e.args[0]][0])))
        result = result.doit()
        result = result.replace(lambda e: isinstance(e, sympy.Indexed),
                                lambda e: lists[e.base][0][int(e.indices[0]) - lists[e.base][1]])
        result = result.doit()
    if not result.is_Number and result.is_number and result.is_real:  # logarithms: exact when they cancel
        result = sympy.nsimplify(sympy.expand_log(result, force=True))
        if not result.is_Number:  # irrational (log 1000/log 2, 2^(-1/20)): 40 significant digits, as a rational
            result = sympy.Rational(str(result.evalf(40)))
    if not result.is_Number:
        raise DeclarationError(f"{evaluation.model.name}: could not evaluate {expr} to a number")
    return result


def output_value(instance: Instance, path: str) -> Value:
    """One output of a registry entry, exactly, in its display unit (None when unavailable)."""
    model = instance.scenario.model
    return evaluate(model, instance_values(instance), needed(model, [path])).shown[path]


def _check_declared(model: ScenarioModel, inputs: dict[str, Any]) -> None:
    """Unknown names, and each plain number against its symbol's domain (integer, positive, nonnegative):
    the checks a generated class makes first, so a wrong value is named, not evaluated."""
    unknown_names(model.name, inputs, model.input_order)
    for decl in model.inputs:
        if decl.name not in inputs or decl.structured or isinstance(decl.symbol, sympy.IndexedBase):
            continue
        value = inputs[decl.name]
        number = getattr(value, "magnitude", value)
        if not isinstance(number, (int, float, Fraction)) or isinstance(number, bool):
            continue
        symbol = decl.symbol
        wrong = ("an integer" if symbol.is_integer and number != int(number) else
                 "a positive number" if symbol.is_positive and not number > 0 else
                 "a number ≥ 0" if symbol.is_nonnegative and not number >= 0 else None)
        if wrong:
            raise ScenarioInputError(f"{model.name}: input '{decl.name}' is {value!r}; expected {wrong}")


def evaluate_declared(scenario: Any, **inputs: Any) -> dict[str, tuple[Value, str]]:
    """A declared scenario (a ``Scenario`` subclass, as written in a module, never generated) evaluated
    exactly at ``inputs``: every output ``name: (value, unit)``, the value an exact sympy number in its
    display unit (None where absent). The way to explore a scenario in an installed copy, where
    ``python -m symbolic.generate`` (which writes the fast evaluator and the class that takes keywords)
    needs a checkout; inputs are validated as a registry entry's are."""
    model = scenario.model
    _check_declared(model, inputs)
    entry = Instance(scenario, name=scenario.__name__, description="evaluated exactly, without generation",
                     **inputs)
    shown = evaluate(model, instance_values(entry)).shown
    return {quantity.name: (shown.get(quantity.name), quantity.unit) for quantity in model.quantities
            if not quantity.hidden and not quantity.bound_input}


evaluate_outputs_with(output_value)  # an entry's value taken from another's output (Instance.output)
