"""Worked examples: a registry instance's quantities as formula = numbers = result.

The numbers come from the declaration itself: each instance's input values (catalog
references resolved, hardware nodes read at the instance's precision, a scenario input
replaced by the inputs of the instance it names) are exact rationals, every quantity is
evaluated exactly with sympy in base units in declaration order, and shown in its
display unit. The "numbers substituted" form prints the quantity's own definition with
each symbol replaced by its value, so it has the definition's structure term for term.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch
from fractions import Fraction
from typing import Any

import sympy

from symbolic.codegen.latex import DocsLatexPrinter, latex_names
from symbolic.analysis.dimensions import scale_of_unit
from symbolic.model.functions import Given, Len, MaxOver
from symbolic.model.instances import Instance
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
from symbolic.model.dependencies import closure, reads
from symbolic.model.refs import value_of
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.hardware import resolve_in
from symbolic.runtime.validation import REQUIRED

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
    precision_of = {node: given.get(p.name, p.default) for p in model.precisions for node in p.nodes}
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
            if default is None:
                value = None
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
    from symbolic.runtime.errors import MissingInputError

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
            items = [_number(quantity.expr.xreplace(at), evaluation) for at in entries(quantity, evaluation)]
            first = _number(quantity.limits[1], evaluation)
            lists[quantity.symbol] = (items, int(first))
            evaluation.shown[quantity.name] = [None if v is None else v / scale_of_unit(quantity.unit) for v in items]
            continue
        value = _number(quantity.expr, evaluation)
        env[quantity.symbol] = value
        evaluation.shown[quantity.name] = None if value is None else value / scale_of_unit(quantity.unit)
    return evaluation


def entries(quantity: Quantity, evaluation: Evaluation) -> list[dict[sympy.Basic, sympy.Integer]]:
    """The index values of each entry of a list output, in order (a grid's row by row)."""
    ranges = quantity.index_ranges()
    spans = [(index, range(int(_number(start, evaluation)), int(_number(stop, evaluation)) + 1))
             for index, start, stop in ranges]
    found: list[dict[sympy.Basic, sympy.Integer]] = [{}]
    for index, span in spans:
        found = [{**at, index: sympy.Integer(k)} for at in found for k in span]
    return found


def _number(expr: sympy.Basic, evaluation: Evaluation) -> Any:
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


# -- numbers as LaTeX ----------------------------------------------------------------------
_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_PREFIXABLE = {"flop/s": "FLOP/s", "byte/s": "B/s", "flop": "FLOP", "byte": "B"}


def unit_latex(unit: str) -> str:
    r"""A unit spelling as LaTeX: ``µs`` -> ``\mu\mathrm{s}``, ``TFLOP/s`` -> ``\mathrm{TFLOP/s}``."""
    if unit.startswith(("µ", "μ")):
        return rf"\mu\mathrm{{{unit[1:]}}}"
    return rf"\mathrm{{{unit}}}"


def number_latex(value: Any, digits: int = 4) -> tuple[str, bool]:
    """``(LaTeX, exact)``: integers below 10⁹ in full with thin-space groups, others to
    ``digits`` significant digits (scientific outside 10⁻³ … 10⁴)."""
    value = sympy.Rational(value)
    if value.is_Integer and abs(value) < 10**9:
        return f"{int(value):,}".replace(",", r"\,"), True
    number = float(value)
    if number == 0:
        return "0", True
    exponent = decade(abs(value))
    if -3 <= exponent < 4:
        text = f"{number:.{max(digits - 1 - exponent, 0)}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        shown = sympy.Rational(text)
        return text, shown == value
    mantissa = f"{number / 10**exponent:.{digits - 1}f}".rstrip("0").rstrip(".")
    if mantissa == "10":  # rounding carried into the next decade
        mantissa, exponent = "1", exponent + 1
    return rf"{mantissa} \times 10^{{{exponent}}}", False


def decade(value: sympy.Rational) -> int:
    """``floor(log10(value))`` of a positive rational as the pages have always shown it: in
    integer arithmetic, except within a relative 10⁻⁶ of a power of ten (not on it), where sympy's
    ``floor(log(value, 10))`` decides as before (it evaluates numerically, and can round up)."""
    numerator, denominator = int(value.p), int(value.q)
    exponent = len(str(numerator)) - len(str(denominator))  # within one of the answer
    while _at_least(numerator, denominator, exponent + 1):
        exponent += 1
    while not _at_least(numerator, denominator, exponent):
        exponent -= 1
    low, high = sympy.Rational(10) ** exponent, sympy.Rational(10) ** (exponent + 1)
    if (value != low and value / low - 1 < _NEAR) or 1 - value / high < _NEAR:
        return int(sympy.floor(sympy.log(value, 10)))
    return exponent


_NEAR = sympy.Rational(1, 10**6)


def _at_least(numerator: int, denominator: int, exponent: int) -> bool:
    """numerator / denominator ≥ 10^exponent."""
    if exponent >= 0:
        return numerator >= denominator * 10**exponent
    return numerator * 10**-exponent >= denominator


def quantity_latex(value: Any, unit: str) -> tuple[str, bool]:
    """A value in ``unit`` as LaTeX with its unit; large rates and sizes get an SI prefix."""
    value = sympy.Rational(value)
    if unit in _PREFIXABLE and not (value.is_Integer and abs(value) < 10**9):
        for factor, prefix in _PREFIXES:
            if abs(value) >= factor:
                text, is_exact = number_latex(value / exact(factor))
                return rf"{text}\,\mathrm{{{prefix}{_PREFIXABLE[unit]}}}", is_exact
    text, is_exact = number_latex(value)
    return (rf"{text}\,{unit_latex(unit)}" if unit else text), is_exact


def value_latex(value: Value, unit: str) -> tuple[str, bool]:
    """Any shown value (number, list, text, None) as LaTeX."""
    if value is None:
        return r"\text{absent}", True
    if isinstance(value, str):
        return r" \to ".join(value.split(" → ")), True
    if isinstance(value, list):
        shown = [quantity_latex(v, "") for v in value]
        inner = ", ".join(text for text, _ in shown)
        suffix = rf"\,{unit_latex(unit)}" if unit else ""
        return rf"\left({inner}\right){suffix}", all(is_exact for _, is_exact in shown)
    return quantity_latex(value, unit)


# -- the substituted formula -----------------------------------------------------------------
class NumbersLatexPrinter(DocsLatexPrinter):
    """Prints a definition with every symbol replaced by its value and unit."""

    def __init__(self, names: dict[sympy.Basic, str], evaluation: Evaluation, units: dict[sympy.Basic, str]) -> None:
        super().__init__(names)
        self._settings["mul_symbol"] = "dot"
        self._settings["mul_symbol_latex"] = r" \cdot "
        self._settings["mul_symbol_latex_numbers"] = r" \cdot "
        self.evaluation = evaluation
        self.units = units

    def _print_Indexed(self, expr: sympy.Indexed) -> str:
        values, first = self.evaluation.lists[expr.base]
        position = _number(expr.indices[0], self.evaluation)
        unit = self.units.get(expr.base, "")
        return _input_number(values[int(position) - first], unit)

    def _print_Len(self, expr: Len) -> str:
        return str(len(self.evaluation.lists[expr.args[0]][0]))


@dataclass(frozen=True)
class Step:
    """One row of a worked example."""

    name: str  # the quantity's path, e.g. "op_flops[relu]" or "result.weights_per_layer[2]"
    symbol: str  # LaTeX
    definition: str  # LaTeX of the definition ("" when the value is an input echo)
    substituted: str  # LaTeX with the numbers in ("" when it would repeat the result)
    result: str  # LaTeX of the value with its unit
    exact: bool  # False when the result is rounded
    unit: str

    @property
    def latex(self) -> str:
        """The whole row: symbol = definition = substituted = result."""
        parts = [self.symbol]
        parts += [p for p in (self.definition, self.substituted) if p]
        relation = "=" if self.exact else r"\approx"
        return " = ".join(parts) + f" {relation} {self.result}"


@dataclass(frozen=True)
class WorkedExample:
    key: str
    steps: tuple[Step, ...]


def worked_example(model: ScenarioModel, instance: Instance) -> WorkedExample:
    """Every public quantity of ``instance``, step by step, in declaration order."""
    evaluation = evaluate(model, instance_values(instance))
    names = latex_names(model)
    units: dict[sympy.Basic, str] = {decl.symbol: decl.spec.unit for decl in model.inputs}
    units.update({q.symbol: q.unit for q in model.quantities})
    numbers = dict(names)
    for symbol, value in evaluation.env.items():
        if symbol not in UNIT_SYMBOLS and value is not None:
            numbers[symbol] = _input_number(value, units.get(symbol, ""))
    printer = NumbersLatexPrinter(numbers, evaluation, units)
    symbol_printer = DocsLatexPrinter(names)
    steps: list[Step] = []
    for quantity in model.quantities:
        if quantity.hidden:
            continue
        steps.extend(_steps(quantity, evaluation, printer, symbol_printer))
    return WorkedExample(instance.key, tuple(steps))


def _input_number(base_value: Any, unit: str) -> str:
    """A value inside a formula: scientific notation is parenthesised, plain numbers are not."""
    text, _ = quantity_latex(base_value / scale_of_unit(unit), unit)
    return rf"\left({text}\right)" if r"\times" in text or text.startswith("-") else text


def _steps(quantity: Quantity, evaluation: Evaluation, printer: NumbersLatexPrinter,
           symbol_printer: DocsLatexPrinter) -> list[Step]:
    value = evaluation.shown[quantity.name]
    if isinstance(quantity, TextQuantity) or quantity.echo:
        result, is_exact = value_latex(value, quantity.unit)
        return [Step(quantity.name, quantity.latex, "", "", result, is_exact, quantity.unit)]
    if isinstance(quantity, ListQuantity):
        steps = []
        for at, item in zip(entries(quantity, evaluation), value, strict=True):
            where = "".join(f"[{k}]" for k in at.values())
            body = quantity.expr.xreplace(at)
            result, is_exact = value_latex(item, quantity.unit)
            steps.append(Step(f"{quantity.name}{where}", f"{quantity.latex}_{{{','.join(map(str, at.values()))}}}",
                              symbol_printer.doprint(body), _substituted(_expand_ranges(body, evaluation), printer, result),
                              result, is_exact,
                              quantity.unit))
        return steps
    result, is_exact = value_latex(value, quantity.unit)
    definition = symbol_printer.doprint(quantity.expr)
    if quantity.expr.is_Number or definition == quantity.latex:
        definition = ""
    if value is None:
        return [Step(quantity.name, quantity.latex, definition, "", result, True, quantity.unit)]
    expanded = _expand_ranges(quantity.expr, evaluation)
    return [Step(quantity.name, quantity.latex, definition, _substituted(expanded, printer, result), result,
                 is_exact, quantity.unit)]


def _substituted(expr: sympy.Basic, printer: NumbersLatexPrinter, result: str) -> str:
    text = printer.doprint(expr)
    bare = text.removeprefix(r"\left(").removesuffix(r"\right)")
    return "" if result in (text, bare) else text


def _expand_ranges(expr: sympy.Basic, evaluation: Evaluation) -> sympy.Basic:
    """Sums, products and maxima over an index, written out term by term at the evaluation's bounds."""
    def numeric(bound: sympy.Basic) -> sympy.Integer:
        return sympy.Integer(int(_number(bound, evaluation)))

    def expand(node: sympy.Basic) -> sympy.Basic:
        (index, start, stop), = node.limits
        first, last = int(numeric(start)), int(numeric(stop))
        terms = [node.function.xreplace({index: sympy.Integer(k)}) for k in range(first, last + 1)]
        if isinstance(node, MaxOver):
            return sympy.Max(*terms, evaluate=False) if len(terms) > 1 else terms[0]
        if isinstance(node, sympy.Product):
            return sympy.Mul(*terms, evaluate=False) if terms else sympy.Integer(1)
        return sympy.Add(*terms, evaluate=False) if terms else sympy.Integer(0)

    return expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product, MaxOver)), expand)
