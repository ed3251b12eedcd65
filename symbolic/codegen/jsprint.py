"""JavaScript printing of the evaluators: the same statements as the Python, another language.

``build_evaluator`` (symbolic.codegen.python) folds units, eliminates common subexpressions
and orders the steps once; each ``Statement`` keeps the sympy form it was printed from, and
this printer prints those same forms as an ES module (``generated/js/<module>.mjs``), so the
JavaScript and the Python evaluators compute the same steps in the same order.

Numbers: JavaScript has only doubles, where Python keeps integer counts exact at any size.
Python's value is an int wherever every number it reads is an int, and any input may be given
as one (``bytes_per_value=2`` as well as a count), so every sum, product and power that is not
a float in Python whatever the inputs (a quotient, a root, a logarithm, a float constant, or a
step computed from one) is computed through ``iadd``/``imul``/``ipow`` (floors of such
quotients with ``floor_div(n, d, true)``). These check in BigInt any result beyond ±(2⁵³ − 1)
whose operands are whole, where doubles stop holding every integer, and throw a RangeError when
the double is not the exact integer: an integer result is exact or refused, never rounded.
(A whole-valued float operand, as Python's ``2.0``, is checked too: JavaScript cannot tell it
from ``2``, so it may refuse where Python rounds, never the other way.) Other steps are doubles
in both languages. A floor or ceiling of a quotient is Python's floor
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
from symbolic.codegen.declared import DeclaredFunctions
from symbolic.model.functions import Given, Len, MaxOver, loop_name
from symbolic.model.functions.declared import javascript_helper_sources, lookup
from symbolic.model import ScenarioModel
from symbolic.runtime.errors import DeclarationError


class JsEvaluatorPrinter(DeclaredFunctions, NamedSymbols, JavascriptCodePrinter):
    """ES2020 for plain numbers; unsupported nodes raise, never print a comment. Functions print as
    their declarations say (symbolic.model.functions), through ``helper``/``call``/``quotient``."""

    language = "javascript"

    def __init__(self, names: dict[sympy.Basic, str], offsets: dict[sympy.Basic, sympy.Expr],
                 integral: set[sympy.Basic], arguments: frozenset[str] = frozenset()) -> None:
        super().__init__({"strict": True})
        self.names = names
        self.offsets = offsets
        self.integral = integral  # symbols (inputs, lists, earlier steps) that hold integers
        self.reals: set[sympy.Basic] = set()  # steps that are floats in Python whatever the inputs (a quotient)
        # Whether Python holds a value as an int can depend on arguments given as floats: for each
        # such symbol, the JavaScript boolean saying it is an int (``$int.bytes_per_value``, true
        # unless the caller lists the argument in ``floats``; ``$int.<step>`` for a step).
        # symbol -> the arguments it is an int with (None: a float whatever they are)
        self.flags: dict[sympy.Basic, frozenset[str] | None] = {}
        self.calls: dict[str, frozenset[str] | None] = {}  # a contained call's target -> what its arguments read
        for symbol, name in names.items():  # the arguments: an int unless the caller lists it in `floats`
            if name in arguments and symbol not in integral and getattr(symbol, "label", None) not in integral:
                self.flags[symbol] = frozenset({name})
        self.helpers_used: set[str] = set()

    # -- integers ---------------------------------------------------------------------------
    def is_integral(self, expr: sympy.Basic) -> bool:
        """True when ``expr`` is an integer whenever the integer inputs are (Python keeps it an int)."""
        whole = _whole(expr)
        if expr.is_Integer or expr in self.integral or isinstance(expr, Len) or whole == "always":
            return True
        if isinstance(expr, sympy.Indexed):
            return expr.base in self.integral or expr.base.label in self.integral
        if isinstance(expr, (sympy.Add, sympy.Mul)) or whole == "arguments":
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

    def may_be_integer(self, expr: sympy.Basic) -> bool:
        """True when Python's value of ``expr`` is an int whenever the numbers it reads are ints:
        any input may be given as an int (a real-valued one too: ``bytes_per_value=2``), so only
        a quotient, a root, a logarithm, a float constant or a step computed from one makes it a
        float. Its sums and products go through the checked helpers, which test at run time.
        Without flags (a requirement's check, which has no ``$int``) only ``is_integral``."""
        if not self.flags:
            return self.is_integral(expr)
        whole = _whole(expr)
        if expr.is_Integer or isinstance(expr, Len) or whole == "always":
            return True
        if isinstance(expr, (sympy.Symbol, sympy.Dummy)):
            return expr not in self.reals and (expr not in self.flags or self.flags[expr] is not None)
        if isinstance(expr, sympy.Indexed):
            return expr.base not in self.reals and expr.base.label not in self.reals
        if isinstance(expr, (sympy.Add, sympy.Mul)) or whole == "arguments":
            return all(self.may_be_integer(arg) for arg in expr.args)
        if isinstance(expr, sympy.Pow):
            return self.may_be_integer(expr.base) and expr.exp.is_Integer and expr.exp >= 0
        if isinstance(expr, (sympy.Sum, sympy.Product, MaxOver)):
            return self.may_be_integer(expr.function)
        if isinstance(expr, sympy.Piecewise):
            return any(self.may_be_integer(branch) for branch, _ in expr.args)
        return False

    def helper(self, name: str) -> str:
        """A runtime helper, from generated/js/mathops.mjs imported as ``$`` (no Python name has a ``$``),
        or a declared function's helper whose source the evaluator module holds."""
        self.helpers_used.add(name)
        return name if name in javascript_helper_sources() else f"$.{name}"

    def flag_of(self, expr: sympy.Basic) -> str:
        """The JavaScript boolean saying Python holds ``expr`` (a may-be-integer expression) as an
        int: ``""`` (true) when it reads integer inputs only, else ``$int.a && $int.b`` over the
        other arguments it reads, directly or through steps; ``"false"`` when it reads a float."""
        names = self.arguments_read(expr)
        if names is None:
            return "false"
        return " && ".join(f"$int.{name}" for name in sorted(names))

    def arguments_read(self, expr: sympy.Basic) -> frozenset[str] | None:
        found: set[str] = set()
        for atom in expr.free_symbols | {i.base for i in expr.atoms(sympy.Indexed)}:
            if atom in self.integral or getattr(atom, "label", None) in self.integral:
                continue
            names = self.flags.get(atom, self.flags.get(getattr(atom, "label", None), ()))
            if atom in self.names and atom not in self.flags:  # a contained call's returned value
                names = next((n for call, n in self.calls.items() if self.names[atom].startswith(call + "[")), ())
            if names is None:
                return None
            found |= set(names)
        return frozenset(found)

    def _checked(self, helper: str, parts: list[str], expr: sympy.Basic | None = None) -> str:
        """A checked integer helper; where the value is an int in Python only when some arguments
        are, the variant taking that condition (plain double arithmetic when it is false)."""
        flag = self.flag_of(expr) if expr is not None else ""
        if not flag:
            return f"{self.helper(helper)}({', '.join(parts)})"
        return f"{self.helper(helper + '_if')}({flag}, {', '.join(parts)})"

    def _print_Add(self, expr: sympy.Add, order: Any = None) -> str:
        if self.may_be_integer(expr):
            return self._checked("iadd", [self._print(arg) for arg in expr.as_ordered_terms()], expr)
        return super()._print_Add(expr, order)

    def _print_Mul(self, expr: sympy.Mul) -> str:
        if self.may_be_integer(expr):
            return self._checked("imul", [self._print(arg) for arg in expr.as_ordered_factors()], expr)
        return super()._print_Mul(expr)

    def _print_Pow(self, expr: sympy.Pow) -> str:
        if self.may_be_integer(expr):
            return self._checked("ipow", [self._print(expr.base), self._print(expr.exp)], expr)
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
        helper = {"sum": "iadd" if self.may_be_integer(expr.function) else "sum",
                  "product": "imul" if self.may_be_integer(expr.function) else "product", "max": "max"}[reducer]
        terms = f"...{numbers}.map(({variable}) => {self._print(expr.function)})"
        if helper in ("iadd", "imul"):
            return self._checked(helper, [terms], expr.function)
        return f"{self.helper(helper)}({terms})"

    def _print_Sum(self, expr: sympy.Sum) -> str:
        """As the Python printer: a sum of list entries over a range is the sum of a slice,
        constant factors taken out (the same operations in the same order)."""
        found = self.list_slice(expr)
        if found is None:
            return self._loop(expr, "sum")
        factor, term, first, last = found
        items = self._print(term.base) + ("" if first == 0 and last == sympy.oo else
                                          f".slice({self._print(first)}, {self._print(last)})")
        integral = self.may_be_integer(term)
        total = self._checked("iadd", [f"...{items}"], term) if integral else f"{self.helper('sum')}(...{items})"
        if factor == 1:
            return total
        if integral and self.may_be_integer(factor):
            return self._checked("imul", [self._print(factor), total], expr)
        return self.scaled(total, factor) if factor.is_Rational else f"{self.parenthesize(factor, 50)}*{total}"

    def _print_Product(self, expr: sympy.Product) -> str:
        return self._loop(expr, "product")

    def _print_MaxOver(self, expr: MaxOver) -> str:
        return self._loop(expr, "max")

    def _print_Len(self, expr: Len) -> str:
        return f"{self._print(expr.args[0])}.length"

    def _print_ContainedCall(self, expr: Any) -> str:
        """A contained scenario's generated function (imported from its module), its inputs in an
        object, and which of them Python holds as floats (each a float, or an int only when the
        arguments it reads are)."""
        pairs = expr.pairs()
        arguments = ", ".join(f"{name}: {self._print(value)}" for name, value in pairs)
        flags = {name: (self.flag_of(value) if self.may_be_integer(value) else "false") for name, value in pairs}
        floats = ", ".join(f"{name}: {flag}" for name, flag in flags.items() if flag)
        listed = f", {self.helper('floats_of')}({{{floats}}})" if floats else ""
        return f"{expr.function_name}({{{arguments}}}{listed})"

    # -- functions ------------------------------------------------------------------------
    def call(self, name: str, *args: sympy.Basic) -> str:
        """A call of a runtime helper on printed arguments."""
        return f"{self.helper(name)}({', '.join(self._print(arg) for arg in args)})"

    def quotient(self, expr: sympy.Basic, helper: str) -> str:
        """A floor or ceiling of a quotient, as Python's floor division computes it (exactly for integers)."""
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        whole = self.may_be_integer(numerator) and self.may_be_integer(denominator)
        integers = f", {self.flag_of(numerator + denominator) or 'true'}" if whole else ""
        return f"{self.helper(helper)}({self._print(numerator)}, {self._print(denominator)}{integers})"

    # -- conditions -------------------------------------------------------------------------
    def _print_Given(self, expr: Given) -> str:
        return "(" + " && ".join(f"{self._print(symbol)} != null" for symbol in expr.inputs()) + ")"

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

    def _classify(self, symbol: sympy.Basic | None, target: str, expr: sympy.Basic) -> None:
        """Record what a step holds in Python: an int always (``integral``), a float always
        (``reals``), or an int when the arguments it reads are (a flag, set by a line of its own)."""
        if symbol is None:
            return
        if self.is_integral(expr):
            self.integral.add(symbol)
        elif not self.may_be_integer(expr):
            self.reals.add(symbol)
        else:
            read = self.arguments_read(expr)
            if read is None:
                self.reals.add(symbol)
            self.flags[symbol] = read

    def statement(self, statement: Statement, symbol: sympy.Basic | None) -> str:
        """The JavaScript of one evaluator step; an integer step's symbol joins ``integral``."""
        kind, *parts = statement.form
        if not kind:
            raise DeclarationError(f"statement {statement.target} has no form to print")
        if kind == "expr":
            (expr,) = parts
            if statement.target.startswith("_raw_"):
                if symbol is not None:
                    self.reals.add(symbol)
                return self.real(expr)
            code = self.doprint(expr)
            self._classify(symbol, statement.target, expr)
            return code
        if kind == "call":
            call = parts[0]
            code = self.doprint(call)
            read = [self.arguments_read(value) if self.may_be_integer(value) else None for _, value in call.pairs()]
            self.calls[statement.target] = None if None in read else frozenset(
                name for names in read if names is not None for name in names)
            return code
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
        self._classify(symbol, statement.target, body)
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
    arguments = frozenset(a.name for a in evaluator.arguments)
    printer = JsEvaluatorPrinter(evaluator.names, evaluator.offsets, integral, arguments)
    defaults = []
    for default in evaluator.defaults:  # an argument left out, computed from others: an int as they are
        code = printer.doprint(default.expr)
        flag = (None if symbols.get(default.target) in integral else
                (printer.flag_of(default.expr) or "true") if printer.may_be_integer(default.expr) else "false")
        defaults.append((default.target, code, default.guard, flag))
    blocks = []
    for block in evaluator.blocks:
        lines = [(st.target, printer.statement(st, symbols.get(st.target))) for st in block.statements]
        blocks.append((block.guard, lines, block.outputs))
    checks = JsEvaluatorPrinter(evaluator.names, evaluator.offsets, integral)  # outside evaluate(): no flags
    requirements = [(r.names, checks.doprint(r.condition), r.message, r.unless, r.when, r.tested)
                    for r in evaluator.requirements]
    clash = sorted(set(evaluator.names.values()) & RESERVED)
    if clash:
        raise DeclarationError(f"{model.name}: {clash} are reserved words in JavaScript; rename these values")
    integers = [decl.name for decl in model.evaluator_inputs() if decl.spec.integer]
    others = [a.name for a in evaluator.arguments if a.name not in integers]  # ints unless listed in `floats`
    # arguments whose default (used when left out) is a float in Python
    float_defaults = [a.name for a in evaluator.arguments if a.default and a.default != "None"
                      and isinstance(json.loads(a.default) if a.default[0] in "-0123456789" else None, float)]
    declared = javascript_helper_sources()
    inline = [declared[name] for name in sorted((printer.helpers_used | checks.helpers_used) & declared.keys())]
    return {"defaults": defaults, "blocks": blocks, "requirements": requirements, "integers": integers,
            "inline_helpers": inline,
            "others": others, "float_defaults": float_defaults,
            "result": nested_literal(evaluator.tree, 1, indent="  ", key=json.dumps),
            "imports": [module for module, function in evaluator.calls if function == "evaluate"],
            "integral": [q.name for q in model.quantities if q.symbol in printer.integral]}


def _whole(expr: sympy.Basic) -> str | None:
    """A declared function's ``integer`` ("always", "arguments", "never"), None for any other node."""
    found = lookup(expr)
    return found.integer if found is not None else None


# Words JavaScript reserves (and strict-mode module code refuses as names); Python allows most.
RESERVED = frozenset(
    "await break case catch class const continue debugger default delete do else enum export extends false "
    "finally for function if implements import in instanceof interface let new null package private protected "
    "public return static super switch this throw true try typeof var void while with yield arguments eval "
    "undefined NaN Infinity Math args".split())
