"""Worked examples: a registry instance's quantities as formula = numbers = result.

The numbers come from the declaration itself, evaluated exactly (``symbolic.analysis.exact``:
rationals in base units, in declaration order, shown in each display unit). The "numbers
substituted" form prints the quantity's own definition with each symbol replaced by its
value, so it has the definition's structure term for term.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from symbolic.runtime.readable import DECIMAL, readable, split_unit

from symbolic.analysis.dimensions import scale_of_unit
from symbolic.analysis.exact import Evaluation, Value, entries, evaluate, exact, instance_values, number_at
from symbolic.codegen.latex import DocsLatexPrinter, latex_names
from symbolic.codegen.python import guarded_outputs
from symbolic.model import UNIT_SYMBOLS, ListQuantity, Quantity, ScenarioModel, TextQuantity
from symbolic.model.functions import Len, MaxOver
from symbolic.model.instances import Instance


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


def _read_at_scale(value: Any, unit: str) -> tuple[Any, str]:
    """A result moved to the decimal prefix a reader takes in (``43118.5 ms`` -> ``43.1185 s``), exactly:
    the same rule as the command line's and the notebook's tables (``symbolic.runtime.readable``), for a
    unit already carrying a prefix (bare bytes and FLOPs get theirs from ``quantity_latex``)."""
    if unit in _PREFIXABLE or not unit or not getattr(value, "is_Number", False) or value == 0:
        return value, unit
    _, new_unit = readable(float(value), unit)
    old, new = split_unit(unit), split_unit(new_unit)
    if old is None or new is None or old[1] != new[1] or old[2] is not DECIMAL or new[2] is not DECIMAL:
        return value, unit  # hours, days, binary prefixes: the declared unit
    scales = dict(DECIMAL)
    return value * sympy.Rational(str(scales[old[0]])) / sympy.Rational(str(scales[new[0]])), new_unit


def value_latex(value: Value, unit: str) -> tuple[str, bool]:
    """Any shown value (number, list, text, None) as LaTeX; a number at the scale a reader takes in."""
    if value is None:
        return r"\text{absent}", True
    if isinstance(value, str):
        return r" \to ".join(value.split(" → ")), True
    if isinstance(value, list):
        shown = [quantity_latex(v, "") for v in value]
        inner = ", ".join(text for text, _ in shown)
        suffix = rf"\,{unit_latex(unit)}" if unit else ""
        return rf"\left({inner}\right){suffix}", all(is_exact for _, is_exact in shown)
    return quantity_latex(*_read_at_scale(sympy.Rational(value) if isinstance(value, (int, float)) else value, unit))


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
        position = number_at(expr.indices[0], self.evaluation)
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
    failing = {f.name for f in model.feasibility if evaluation.shown.get(f.name) == 0}
    refused = {path for path, under in guarded_outputs(model).items() if failing & set(under)} if failing else set()
    steps: list[Step] = []
    for quantity in model.quantities:
        if quantity.hidden:
            continue
        if quantity.name in refused:  # an output of a setup that runs: this entry's does not fit
            definition = symbol_printer.doprint(quantity.expr)
            steps.append(Step(quantity.name, quantity.latex, definition, "", r"\text{(does not fit)}", True,
                              quantity.unit))
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
    if isinstance(quantity, ListQuantity) and value is None:  # it reads an optional input the entry leaves out
        result, _ = value_latex(None, quantity.unit)
        return [Step(quantity.name, quantity.latex, symbol_printer.doprint(quantity.expr), "", result, True,
                     quantity.unit)]
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
        return sympy.Integer(int(number_at(bound, evaluation)))

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
