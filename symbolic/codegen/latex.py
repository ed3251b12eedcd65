"""LaTeX for the docs: each quantity's definition and its closed form in the inputs."""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from symbolic.model import UNIT_SYMBOLS, ScenarioModel
from symbolic.runtime.errors import DeclarationError


class DocsLatexPrinter(LatexPrinter):
    """Sympy's LaTeX printer with declared symbol names, units last, and no silent fallbacks."""

    def __init__(self, names: dict[sympy.Basic, str]) -> None:
        super().__init__({"mul_symbol": None})
        self.names = names

    def _print_Symbol(self, expr: sympy.Symbol, style: str = "plain") -> str:
        if expr in UNIT_SYMBOLS:
            return rf"\mathrm{{{UNIT_SYMBOLS[expr]}}}"
        try:
            return self.names[expr]
        except KeyError:
            raise DeclarationError(f"the docs have no LaTeX name for symbol {expr}") from None

    def _print_Mul(self, expr: sympy.Mul) -> str:
        units = [arg for arg in expr.args if arg in UNIT_SYMBOLS]
        if not units or len(units) == len(expr.args):
            return super()._print_Mul(expr)
        rest = sympy.Mul(*(arg for arg in expr.args if arg not in UNIT_SYMBOLS))
        shown = " ".join(self._print(unit) for unit in units)
        return rf"{self.parenthesize(rest, PRECEDENCE['Mul'], strict=True)}\,{shown}"

    def emptyPrinter(self, expr: object) -> str:  # noqa: N802 (sympy's hook name)
        raise DeclarationError(f"the LaTeX printer does not support {type(expr).__name__}: {expr}")


@dataclass(frozen=True)
class Equation:
    """One quantity as the docs show it."""

    name: str
    symbol: str  # LaTeX of the quantity's symbol
    definition: str  # LaTeX of its defining expression (over inputs and other quantities)
    closed: str  # LaTeX of the closed form in the inputs, "" when equal to the definition
    text: str  # the definition as plain text (for docstrings)
    closed_text: str


def latex_names(model: ScenarioModel) -> dict[sympy.Basic, str]:
    names = {decl.symbol: decl.latex for decl in model.inputs}
    names.update({quantity.symbol: quantity.latex for quantity in model.quantities})
    return names


def _simplest(expr: sympy.Expr) -> sympy.Expr:
    """The shortest of a few standard rewritings (deterministic: ties broken by text)."""
    candidates = [expr, sympy.expand(expr), sympy.factor_terms(sympy.expand(expr)), sympy.factor(expr)]
    return min(candidates, key=lambda e: (sympy.count_ops(e), len(str(e)), str(e)))


def closed_forms(model: ScenarioModel) -> dict[str, sympy.Expr]:
    """Every quantity in terms of the inputs only, simplified."""
    closed: dict[sympy.Basic, sympy.Expr] = {}
    for quantity in model.quantities:
        closed[quantity.symbol] = quantity.expr.xreplace(closed)
    return {quantity.name: _simplest(closed[quantity.symbol]) for quantity in model.quantities}


def equations(model: ScenarioModel) -> dict[str, Equation]:
    """The definition and closed form of every quantity; the closed form is left empty
    when the definition already uses inputs only."""
    printer = DocsLatexPrinter(latex_names(model))
    forms = closed_forms(model)
    defined = {quantity.symbol for quantity in model.quantities}
    result = {}
    for quantity in model.quantities:
        closed = forms[quantity.name]
        same = not (quantity.expr.free_symbols & defined)
        result[quantity.name] = Equation(
            name=quantity.name,
            symbol=quantity.latex,
            definition=printer.doprint(quantity.expr),
            closed="" if same else printer.doprint(closed),
            text=sympy.sstr(quantity.expr),
            closed_text="" if same else sympy.sstr(closed),
        )
    return result
