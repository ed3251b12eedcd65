"""JavaScript printing of the evaluators: the same statements as the Python, another language.

``build_evaluator`` (symbolic.codegen.python) folds units, eliminates common subexpressions
and orders the steps once; each ``Statement`` keeps the sympy form it was printed from, and
this printer prints those same forms as an ES module (``generated/js/<module>.mjs``), so the
JavaScript and the Python evaluators compute the same steps in the same order.

Numbers: JavaScript has only doubles, where Python keeps integer counts exact at any size.
A step whose value is an integer whenever its integer inputs are (a count: products and sums
of integer inputs, floors, ceilings, ⌈log₂⌉) is computed through ``iadd``/``imul``/``ipow``
(and floors of integer quotients with ``floor_div(n, d, true)``), which check in BigInt any
result beyond ±(2⁵³ − 1), where doubles stop holding every integer, and throw a RangeError when
the double is not the exact integer: an integer result is exact or refused, never rounded. Real-valued
steps are doubles in both languages. A floor or ceiling of a quotient is Python's floor
division (``//``) reproduced operation for operation, so it agrees even for float operands.
"""

from __future__ import annotations

import json
from typing import Any

import sympy
from sympy.printing.jscode import JavascriptCodePrinter
from sympy.printing.precedence import precedence

from symbolic.codegen.contained import called_subs
from symbolic.codegen.pyprint import NamedSymbols, Statement
from symbolic.codegen.python import Evaluator, evaluator_of, nested_literal
from symbolic.model.functions import CeilLog2, Exceeds, Given, Len, MaxOver, loop_name
from symbolic.model import ScenarioModel
from symbolic.runtime.errors import DeclarationError


class JsEvaluatorPrinter(NamedSymbols, JavascriptCodePrinter):
    """ES2020 for plain numbers; unsupported nodes raise, never print a comment."""

    def __init__(self, names: dict[sympy.Basic, str], offsets: dict[sympy.Basic, sympy.Expr],
                 integral: set[sympy.Basic]) -> None:
        super().__init__({"strict": True})
        self.names = names
        self.offsets = offsets
        self.integral = integral  # symbols (inputs, lists, earlier steps) that hold integers
        self.helpers_used: set[str] = set()

    # -- integers ---------------------------------------------------------------------------
    def is_integral(self, expr: sympy.Basic) -> bool:
        """True when ``expr`` is an integer whenever the integer inputs are (Python keeps it an int)."""
        if expr.is_Integer or expr in self.integral or isinstance(expr, (sympy.floor, sympy.ceiling, CeilLog2,
                                                                         Exceeds, Len)):
            return True
        if isinstance(expr, sympy.Indexed):
            return expr.base in self.integral or expr.base.label in self.integral
        if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Min, sympy.Max)):
            return all(self.is_integral(arg) for arg in expr.args)
        if isinstance(expr, sympy.Pow):
            return self.is_integral(expr.base) and expr.exp.is_Integer and expr.exp >= 0
        if isinstance(expr, (sympy.Sum, sympy.Product, MaxOver)):
            (index, _, _), = expr.limits
            self.integral.add(index)
            return self.is_integral(expr.function)
        if isinstance(expr, sympy.Piecewise):
            return all(self.is_integral(branch) for branch, _ in expr.args)
        return False

    def helper(self, name: str) -> str:
        """A runtime helper, from generated/js/mathops.mjs imported as ``$`` (no Python name has a ``$``)."""
        self.helpers_used.add(name)
        return f"$.{name}"

    def _checked(self, helper: str, parts: list[str]) -> str:
        return f"{self.helper(helper)}({', '.join(parts)})"

    def _print_Add(self, expr: sympy.Add, order: Any = None) -> str:
        if self.is_integral(expr):
            return self._checked("iadd", [self._print(arg) for arg in expr.as_ordered_terms()])
        return super()._print_Add(expr, order)

    def _print_Mul(self, expr: sympy.Mul) -> str:
        if self.is_integral(expr):
            return self._checked("imul", [self._print(arg) for arg in expr.as_ordered_factors()])
        return super()._print_Mul(expr)

    def _print_Pow(self, expr: sympy.Pow) -> str:
        if self.is_integral(expr):
            return self._checked("ipow", [self._print(expr.base), self._print(expr.exp)])
        if expr.exp == sympy.S.Half:
            return f"Math.sqrt({self._print(expr.base)})"
        if expr.exp == -sympy.S.Half:
            return f"1/Math.sqrt({self._print(expr.base)})"
        if expr.exp == -1:
            return f"1/{self.parenthesize(expr.base, precedence(expr))}"
        return f"Math.pow({self._print(expr.base)}, {self._print(expr.exp)})"

    # -- reductions and lists ---------------------------------------------------------------
    def _range(self, index: sympy.Symbol, start: sympy.Expr, stop: sympy.Expr) -> tuple[str, str]:
        variable = self.names.setdefault(index, loop_name(index))
        return variable, f"{self.helper('range')}({self._print(start)}, {self._print(stop + 1)})"

    def _loop(self, expr: sympy.Expr, reducer: str) -> str:
        if len(expr.limits) != 1:
            raise DeclarationError(f"only one index per {type(expr).__name__} is supported: {expr}")
        (index, start, stop), = expr.limits
        variable, numbers = self._range(index, start, stop)
        helper = {"sum": "iadd" if self.is_integral(expr.function) else "sum",
                  "product": "imul" if self.is_integral(expr.function) else "product", "max": "max"}[reducer]
        return f"{self.helper(helper)}(...{numbers}.map(({variable}) => {self._print(expr.function)}))"

    def _print_Sum(self, expr: sympy.Sum) -> str:
        """As the Python printer: a sum of list entries over a range is the sum of a slice,
        constant factors taken out (the same operations in the same order)."""
        found = self.list_slice(expr)
        if found is None:
            return self._loop(expr, "sum")
        factor, term, first, last = found
        items = self._print(term.base) + ("" if first == 0 and last == sympy.oo else
                                          f".slice({self._print(first)}, {self._print(last)})")
        integral = self.is_integral(term)
        total = f"{self.helper('iadd' if integral else 'sum')}(...{items})"
        if factor == 1:
            return total
        if integral and self.is_integral(factor):
            return self._checked("imul", [self._print(factor), total])
        return self.scaled(total, factor) if factor.is_Rational else f"{self.parenthesize(factor, 50)}*{total}"

    def _print_Product(self, expr: sympy.Product) -> str:
        return self._loop(expr, "product")

    def _print_MaxOver(self, expr: MaxOver) -> str:
        return self._loop(expr, "max")

    def _print_Len(self, expr: Len) -> str:
        return f"{self._print(expr.args[0])}.length"

    def _print_ContainedCall(self, expr: Any) -> str:
        """A contained scenario's generated function (imported from its module), its inputs in an object."""
        return f"{expr.function_name}({{{', '.join(f'{name}: {self._print(value)}' for name, value in expr.pairs())}}})"

    # -- functions ------------------------------------------------------------------------
    def _print_Min(self, expr: sympy.Min) -> str:
        return f"Math.min({', '.join(self._print(arg) for arg in expr.args)})"

    def _print_Max(self, expr: sympy.Max) -> str:
        return f"Math.max({', '.join(self._print(arg) for arg in expr.args)})"

    def _print_CeilLog2(self, expr: CeilLog2) -> str:
        return f"{self.helper('ceil_log2')}({self._print(expr.args[0])})"

    def _print_log(self, expr: sympy.log) -> str:
        if len(expr.args) != 1:
            raise DeclarationError(f"log with a base is not supported, write log(x)/log(b): {expr}")
        return f"Math.log({self._print(expr.args[0])})"

    def _quotient(self, expr: sympy.Expr, helper: str) -> str:
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        if denominator == 1:
            raise DeclarationError(f"{type(expr).__name__} of a non-quotient is not supported: {expr}")
        integers = ", true" if self.is_integral(numerator) and self.is_integral(denominator) else ""
        return f"{self.helper(helper)}({self._print(numerator)}, {self._print(denominator)}{integers})"

    def _print_floor(self, expr: sympy.floor) -> str:
        return self._quotient(expr, "floor_div")

    def _print_ceiling(self, expr: sympy.ceiling) -> str:
        return self._quotient(expr, "ceiling_division")

    # -- conditions -------------------------------------------------------------------------
    def _print_Given(self, expr: Given) -> str:
        return "(" + " && ".join(f"{self._print(symbol)} != null" for symbol in expr.inputs()) + ")"

    def _print_Exceeds(self, expr: Exceeds) -> str:
        return f"({self._print(expr.args[0])} > {self._print(expr.args[1])} ? 1 : 0)"

    def _print_Piecewise(self, expr: sympy.Piecewise) -> str:
        parts = []
        for branch, condition in expr.args[:-1]:
            parts.append(f"({self._print(condition)}) ? ({self._print(branch)}) : ")
        last, condition = expr.args[-1]
        tail = f"({self._print(last)})" if condition == sympy.true else (
            f"({self._print(condition)}) ? ({self._print(last)}) : null")
        return "(" + "".join(parts) + tail + ")"

    def _print_Relational(self, expr: sympy.core.relational.Relational) -> str:
        operator = {"==": "===", "!=": "!=="}.get(expr.rel_op, expr.rel_op)
        return f"({self._print(expr.lhs)} {operator} {self._print(expr.rhs)})"

    def _print_BooleanTrue(self, expr: Any) -> str:
        return "true"

    def _print_BooleanFalse(self, expr: Any) -> str:
        return "false"

    def _print_Float(self, expr: sympy.Float) -> str:
        return repr(float(expr))

    # -- statements -------------------------------------------------------------------------
    def real(self, expr: sympy.Basic) -> str:
        """A raw value (symbolic.codegen.pyprint._Folder) in doubles, as the scaled product it is
        taken from was: an integer product beyond 2**53 rounds there, it is not refused."""
        if isinstance(expr, sympy.Mul):
            return super()._print_Mul(expr)
        if isinstance(expr, sympy.Add):
            return super()._print_Add(expr)
        return self.doprint(expr)

    def statement(self, statement: Statement, symbol: sympy.Basic | None) -> str:
        """The JavaScript of one evaluator step; an integer step's symbol joins ``integral``."""
        kind, *parts = statement.form
        if not kind:
            raise DeclarationError(f"statement {statement.target} has no form to print")
        if kind == "expr":
            (expr,) = parts
            if statement.target.startswith("_raw_"):
                return self.real(expr)
            if symbol is not None and self.is_integral(expr):
                self.integral.add(symbol)
            return self.doprint(expr)
        if kind == "call":
            return self.doprint(parts[0])
        if kind == "echo":
            if symbol is not None and (parts[0] in self.integral or getattr(parts[0], "label", None) in self.integral):
                self.integral.add(symbol)
            return f"[...{self.doprint(parts[0])}]"
        if kind == "text":  # Python's str() of each item: an int as digits, a float as its repr
            separator, items = parts
            whole = items in self.integral or getattr(items, "label", None) in self.integral  # a list of integers
            integral = "true" if whole else "false"
            return (f"{self.doprint(items)}.map((item) => {self.helper('py_str')}(item, {integral}))"
                    f".join({json.dumps(separator)})")
        body, (index, start, stop), inner = parts
        if symbol is not None and self.is_integral(body):
            self.integral.add(symbol)
        variable, rows = self._range(index, start, stop)
        if inner:  # a grid: one flat list, row by row, as in Python
            column, first, last = inner
            inner_variable, columns = self._range(column, first, last)
            return f"{rows}.flatMap(({variable}) => {columns}.map(({inner_variable}) => {self.doprint(body)}))"
        return f"{rows}.map(({variable}) => {self.doprint(body)})"


def js_module(model: ScenarioModel, evaluator: Evaluator) -> dict[str, Any]:
    """The template context of ``generated/js/<module>.mjs``: statements printed from the same forms."""
    symbols = {name: symbol for symbol, name in evaluator.names.items()}
    integral = {decl.symbol for decl in model.evaluator_inputs() if decl.spec.integer}
    integral |= {decl.symbol.label for decl in model.evaluator_inputs()
                 if decl.spec.integer and isinstance(decl.symbol, sympy.IndexedBase)}
    for sub, inner in called_subs(model).items():  # what a called evaluator returns as integers
        whole = set(js_module(inner, evaluator_of(inner))["integral"])
        integral |= {q.symbol for q in model.quantities
                     if q.sub == sub and not q.bound_input and q.name.removeprefix(f"{sub}.") in whole}
    printer = JsEvaluatorPrinter(evaluator.names, evaluator.offsets, integral)
    defaults = [(d.target, printer.doprint(d.expr), d.guard) for d in evaluator.defaults]
    blocks = []
    for block in evaluator.blocks:
        lines = [(st.target, printer.statement(st, symbols.get(st.target))) for st in block.statements]
        blocks.append((block.guard, lines, block.outputs))
    requirements = [(r.names, printer.doprint(r.condition), r.message, r.unless, r.when) for r in evaluator.requirements]
    clash = sorted(set(evaluator.names.values()) & RESERVED)
    if clash:
        raise DeclarationError(f"{model.name}: {clash} are reserved words in JavaScript; rename these values")
    integers = [decl.name for decl in model.evaluator_inputs() if decl.spec.integer]
    return {"defaults": defaults, "blocks": blocks, "requirements": requirements, "integers": integers,
            "result": nested_literal(evaluator.tree, 1, indent="  ", key=json.dumps),
            "imports": [module for module, function in evaluator.calls if function == "evaluate"],
            "integral": [q.name for q in model.quantities if q.symbol in printer.integral]}


# Words JavaScript reserves (and strict-mode module code refuses as names); Python allows most.
RESERVED = frozenset(
    "await break case catch class const continue debugger default delete do else enum export extends false "
    "finally for function if implements import in instanceof interface let new null package private protected "
    "public return static super switch this throw true try typeof var void while with yield arguments eval "
    "undefined NaN Infinity Math args".split())
