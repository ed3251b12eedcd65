"""LaTeX for the docs: each quantity's definition and its closed form in the inputs."""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from symbolic.analysis.closed import shown_closed_forms
from symbolic.codegen.declared import DeclaredFunctions
from symbolic.model.functions import Len, MaxOver
from symbolic.model import UNIT_SYMBOLS, ListQuantity, ScenarioModel, TextQuantity
from symbolic.runtime.errors import DeclarationError


class DocsLatexPrinter(DeclaredFunctions, LatexPrinter):
    """Sympy's LaTeX printer with declared symbol names, units last, and no silent fallbacks: a
    function prints as its declaration says (symbolic.model.functions), an undeclared one is refused."""

    language = "latex"

    def __init__(self, names: dict[sympy.Basic, str]) -> None:
        super().__init__({"mul_symbol": None})
        self.names = names

    def _print_Symbol(self, expr: sympy.Symbol, style: str = "plain") -> str:
        if expr in UNIT_SYMBOLS:
            return rf"\mathrm{{{UNIT_SYMBOLS[expr]}}}"
        if expr in self.names:
            return self.names[expr]
        raise DeclarationError(f"the docs have no LaTeX name for symbol {expr}")

    def _print_IndexedBase(self, expr: sympy.IndexedBase) -> str:
        return self._print(expr.label)

    def _print_Indexed(self, expr: sympy.Indexed) -> str:
        return f"{self._print(expr.base)}_{{{', '.join(self._print(i) for i in expr.indices)}}}"

    def _print_MaxOver(self, expr: MaxOver) -> str:
        (index, start, stop), = expr.limits
        return (rf"\max_{{{self._print(start)} \le {self._print(index)} \le {self._print(stop)}}}"
                rf" \left({self._print(expr.function)}\right)")

    def _print_Len(self, expr: Len) -> str:
        return rf"\left|{self._print(expr.args[0])}\right|"

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
    symbol: str  # LaTeX of the quantity's symbol (with its index for a list)
    definition: str  # LaTeX of its defining expression (over inputs and other quantities)
    closed: str  # LaTeX of the closed form in the inputs, "" when equal to the definition
    text: str  # the definition as plain text (for docstrings)
    closed_text: str
    range: str = ""
    kept: str = ""  # LaTeX of the branching quantities the closed form keeps by name ("m, K"), "" if none  # for a list: LaTeX of the index range, e.g. "1 \le l \le L"


def latex_names(model: ScenarioModel) -> dict[sympy.Basic, str]:
    names: dict[sympy.Basic, str] = {}
    for decl in model.inputs:
        names[decl.symbol] = decl.latex
        if isinstance(decl.symbol, sympy.IndexedBase):
            names[decl.symbol.label] = decl.latex
    for quantity in model.quantities:
        names[quantity.symbol] = quantity.latex
        if isinstance(quantity.symbol, sympy.IndexedBase):
            names[quantity.symbol.label] = quantity.latex
        bound = [limit[0] for node in quantity.expr.atoms(sympy.Sum, sympy.Product, MaxOver) for limit in node.limits]
        for index in bound + [bounds[0] for bounds in quantity.index_ranges()]:
            names[index] = index.name  # bound indices print as themselves
    return names


def equations(model: ScenarioModel) -> dict[str, Equation]:
    """The definition and closed form of every quantity; the closed form is left empty
    when the definition already uses inputs only."""
    printer = DocsLatexPrinter(latex_names(model))
    forms = shown_closed_forms(model)
    defined = {quantity.symbol for quantity in model.quantities}
    result = {}
    for quantity in model.quantities:
        closed, kept = forms[quantity.name]
        reads = quantity.expr.free_symbols | {i.base for i in quantity.expr.atoms(sympy.Indexed)}
        same = not (reads & defined)
        symbol, span = quantity.latex, ""
        if isinstance(quantity, ListQuantity) and quantity.limits:
            index, start, stop = quantity.limits
            symbol = f"{quantity.latex}_{{{printer.doprint(index)}}}"
            span = rf"{printer.doprint(start)} \le {printer.doprint(index)} \le {printer.doprint(stop)}"
            if quantity.inner:  # a grid: a second index, for the columns
                column, first, last = quantity.inner
                symbol = f"{quantity.latex}_{{{printer.doprint(index)},{printer.doprint(column)}}}"
                span += rf",\ {printer.doprint(first)} \le {printer.doprint(column)} \le {printer.doprint(last)}"
        if isinstance(quantity, TextQuantity):
            joined = rf"\text{{the entries of }} {printer.doprint(quantity.expr)} \text{{ joined by ``{quantity.separator.strip()}''}}"
            result[quantity.name] = Equation(quantity.name, symbol, joined, "", f"{quantity.separator!r}.join({quantity.expr})", "")
            continue
        definition = printer.doprint(quantity.expr)
        shown = "" if same else printer.doprint(closed)
        same = same or shown == definition  # everything it reads is kept by name
        result[quantity.name] = Equation(
            name=quantity.name,
            symbol=symbol,
            definition=definition,
            closed="" if same else shown,
            text=sympy.sstr(quantity.expr),
            closed_text="" if same else sympy.sstr(closed),
            range=span,
            # each name its own inline math (the page writes ${kept}$), so a long list can wrap
            kept="" if same else "$, $".join(printer.doprint(k) for k in kept),
        )
    return result
