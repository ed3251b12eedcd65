"""The evaluator: declared expressions folded to display units, CSE'd, printed as Python.

Each input arrives as a number in its declared unit and each output leaves in its
display unit, so every symbol ``x`` stands for ``scale(x) * x`` in base units; the
generator substitutes that, divides by the output's scale, and lets sympy fold the
exact rational factors. Where all scales are 1 nothing changes, so integer counts stay
exact Python ints.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sympy
from sympy.printing.pycode import PythonCodePrinter

from symbolic.dimensions import scale_of_unit
from symbolic.model import UNIT_SYMBOLS, InputDecl, ScenarioModel
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED


def code_name(path: str) -> str:
    """A Python identifier for a quantity path: ``host.overhead_ratio`` -> ``host__overhead_ratio``."""
    return re.sub(r"\[(\w+)\]", r"_\1", path).replace(".", "__")


class EvaluatorPrinter(PythonCodePrinter):
    """Python for scalars and numpy arrays alike; unsupported nodes raise, never comment."""

    def __init__(self, names: dict[sympy.Basic, str]) -> None:
        super().__init__({"strict": True, "fully_qualified_modules": False})
        self.names = names

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        try:
            return self.names[expr]
        except KeyError:
            raise DeclarationError(f"the evaluator has no value for symbol {expr}") from None

    def _print_floor(self, expr: sympy.floor) -> str:
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        if denominator == 1:
            raise DeclarationError(f"floor of a non-quotient is not supported: {expr}")
        return f"({self._print(numerator)}) // ({self._print(denominator)})"

    def _print_Min(self, expr: sympy.Min) -> str:
        raise DeclarationError(f"Min is not supported by the evaluator printer yet: {expr}")

    _print_Max = _print_Min


@dataclass(frozen=True)
class Statement:
    target: str
    code: str


@dataclass(frozen=True)
class Argument:
    name: str
    default: str  # "" when required
    unit: str
    doc: str


@dataclass(frozen=True)
class Evaluator:
    arguments: tuple[Argument, ...]
    defaults: tuple[Statement, ...]  # inputs whose default is an expression of others
    statements: tuple[Statement, ...]
    result: str  # the nested dict literal returned


def _argument(decl: InputDecl, fold: Callable[[sympy.Expr, str], sympy.Expr], printer: EvaluatorPrinter) -> tuple[Argument, Statement | None]:
    """The evaluator parameter for an input, and the statement computing an expression default."""
    default = decl.spec.default
    if default is REQUIRED:
        return Argument(decl.name, "", decl.spec.unit, decl.spec.doc), None
    if default is None:
        return Argument(decl.name, "None", decl.spec.unit, decl.spec.doc), None
    expr = sympy.sympify(default)
    if expr.is_Number:
        text = repr(int(expr) if expr.is_Integer else float(expr))
        return Argument(decl.name, text, decl.spec.unit, decl.spec.doc), None
    rule = Statement(decl.name, printer.doprint(fold(expr, decl.spec.unit)))
    return Argument(decl.name, "None", decl.spec.unit, decl.spec.doc), rule


def build_evaluator(model: ScenarioModel) -> Evaluator:
    """Fold units, eliminate common subexpressions and order the statements of ``model``."""
    inputs = model.used_inputs()
    names: dict[sympy.Basic, str] = {decl.symbol: decl.name for decl in inputs}
    scale: dict[sympy.Basic, sympy.Expr] = {decl.symbol: scale_of_unit(decl.spec.unit) for decl in inputs}
    for quantity in model.quantities:
        names[quantity.symbol] = code_name(quantity.name)
        scale[quantity.symbol] = scale_of_unit(quantity.unit)
    constants = {symbol: scale_of_unit(unit) for symbol, unit in UNIT_SYMBOLS.items()}

    def fold(expr: sympy.Expr, unit: str) -> sympy.Expr:
        replace = {s: constants[s] if s in constants else scale.get(s, 1) * s for s in expr.free_symbols}
        folded = expr.xreplace(replace) / scale_of_unit(unit)
        # Pull common factors out of sums so that equal scales cancel: H/(H + T), not µH/(µH + µT).
        return folded if folded == expr else sympy.factor_terms(folded)

    targets = [quantity.symbol for quantity in model.quantities]
    folded = [fold(quantity.expr, quantity.unit) for quantity in model.quantities]
    temporaries = sympy.numbered_symbols("_t")
    replacements, reduced = sympy.cse(folded, symbols=temporaries, optimizations=None)
    replacements, reduced = _inline_reciprocals(replacements, reduced)
    for temporary, _ in replacements:
        names[temporary] = str(temporary)
    printer = EvaluatorPrinter(names)

    pending = [(t, e) for t, e in replacements] + list(zip(targets, reduced, strict=True))
    defined = {t for t, _ in pending}
    statements: list[Statement] = []
    done: set[sympy.Basic] = set()
    while pending:  # emit each statement once everything it reads is defined
        for index, (target, expr) in enumerate(pending):
            if not (expr.free_symbols & defined) - done:
                statements.append(Statement(names[target], printer.doprint(expr)))
                done.add(target)
                del pending[index]
                break
        else:  # pragma: no cover - declarations are a DAG by construction
            raise DeclarationError(f"{model.name}: circular definitions among {[str(t) for t, _ in pending]}")

    arguments, defaults = [], []
    for decl in inputs:
        argument, rule = _argument(decl, fold, printer)
        arguments.append(argument)
        if rule:
            defaults.append(rule)
    return Evaluator(tuple(arguments), tuple(defaults), tuple(statements), _result_literal(model))


def _inline_reciprocals(
    replacements: list[tuple[sympy.Symbol, sympy.Expr]], reduced: list[sympy.Expr]
) -> tuple[list[tuple[sympy.Symbol, sympy.Expr]], list[sympy.Expr]]:
    """Put ``1/x`` temporaries back: ``a/x`` rounds once, ``a*(1/x)`` twice."""
    inline: dict[sympy.Basic, sympy.Expr] = {}
    kept = []
    for temporary, original in replacements:
        expr = original.xreplace(inline)
        if expr.is_Pow and expr.exp == -1:
            inline[temporary] = expr
        else:
            kept.append((temporary, expr))
    return kept, [expr.xreplace(inline) for expr in reduced]


def _result_literal(model: ScenarioModel) -> str:
    tree: dict = {}
    for quantity in model.quantities:
        parts = re.split(r"\.|\[", quantity.name.replace("]", ""))
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = code_name(quantity.name)
    return _literal(tree, 1)


def _literal(tree: dict, depth: int) -> str:
    pad = "    " * (depth + 1)
    lines = []
    for key, value in tree.items():
        shown = _literal(value, depth + 1) if isinstance(value, dict) else value
        lines.append(f"{pad}{key!r}: {shown},")
    return "{\n" + "\n".join(lines) + "\n" + "    " * depth + "}"
