"""Python printing for the evaluators: the printer, unit folding (its rounding rule: symbolic.codegen.python),
and statement order."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pycode import PythonCodePrinter

from symbolic.analysis.dimensions import registry, scale_of_unit
from symbolic.codegen.declared import DeclaredFunctions
from symbolic.model.functions import Given, Len, MaxOver, loop_name
from symbolic.model import UNIT_SYMBOLS, InputDecl, ScenarioModel
from symbolic.runtime.errors import DeclarationError

HELPERS = ("ceil_log2", "ceiling_division", "choose", "floor_div", "log", "maximum", "minimum", "product", "scalar",
           "select", "series", "step")  # symbolic.runtime.mathops: for numbers and numpy arrays


def code_name(path: str) -> str:
    """A Python identifier for a quantity path: ``host.overhead_ratio`` -> ``host__overhead_ratio``,
    ``stage_state[ZeRO-3]`` -> ``stage_state_ZeRO_3``."""
    return re.sub(r"\[([\w-]+)\]", lambda key: "_" + key.group(1).replace("-", "_"), path).replace(".", "__")


class NamedSymbols:
    """How an evaluator names what it reads, for the Python and the JavaScript printers alike:
    each symbol and list by the name the evaluator gives it (an unknown one is a declaration
    error, never a silently printed sympy name), a list entry shifted by its list's first index."""

    names: dict[sympy.Basic, str]
    offsets: dict[sympy.Basic, sympy.Expr]

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        try:
            return self.names[expr]
        except KeyError:
            raise DeclarationError(f"the evaluator has no value for symbol {expr}") from None

    _print_Dummy = _print_Symbol  # CSE temporaries

    def _print_IndexedBase(self, expr: sympy.IndexedBase) -> str:
        try:
            return self.names[expr]
        except KeyError:
            raise DeclarationError(f"the evaluator has no list {expr}") from None

    def _print_Indexed(self, expr: sympy.Indexed) -> str:
        (position,) = expr.indices
        return f"{self._print(expr.base)}[{self._print(position - self.offsets.get(expr.base, 0))}]"  # type: ignore[attr-defined]

    def _print_ReturnedPartial(self, expr: sympy.Basic) -> str:
        """d output / d input from a contained scenario's gradient: ``_host_d['host_time']['dispatch']``."""
        call, output, argument = expr.args
        return f"{self._print(call)}[{str(output)!r}][{str(argument)!r}]"  # type: ignore[attr-defined]

    def _print_Mul(self, expr: sympy.Mul) -> str:
        """A rational unit factor ``p/q`` prints as ``p*x/q``: a division by the exactly
        representable integer ``q`` rounds once, where ``(1/q)*x`` rounds ``1/q`` and then the product."""
        coefficient, rest = expr.as_coeff_Mul()
        if not (coefficient.is_Rational and coefficient.q != 1):
            return super()._print_Mul(expr)  # type: ignore[misc]
        return self.scaled(rest, coefficient)

    def scaled(self, expr: sympy.Expr | str, factor: sympy.Rational) -> str:
        """``factor * expr`` as ``p*expr/q`` (``expr`` printed already, as a string) or, for a
        product ``n/d``, as ``p*n/(q*d)``; the sign in front."""
        sign, factor = ("-", -factor) if factor < 0 else ("", factor)
        if isinstance(expr, str):
            text = expr if factor.p == 1 else f"{factor.p}*{expr}"
            return f"{sign}{text}" if factor.q == 1 else f"{sign}{text}/{factor.q}"
        parts = sympy.Mul.make_args(expr)
        below = [part.base ** -part.exp for part in parts if part.is_Pow and part.exp.is_negative]
        above = sympy.Mul(factor.p, *(part for part in parts if not (part.is_Pow and part.exp.is_negative)))
        text = (super()._print_Mul(above) if above.is_Mul  # type: ignore[misc]
                else self.parenthesize(above, PRECEDENCE["Mul"]))  # type: ignore[attr-defined]
        if factor.q == 1 and not below:
            return sign + text
        # q first: times an integer denominator it is exact, p*n/(q*d) rounds once; products of
        # reals, never a checked integer one (in JavaScript, q*d may pass 2**53 where d did not)
        factors = ([sympy.Integer(factor.q)] if factor.q != 1 else []) + sorted(below, key=lambda f: not f.is_integer)
        shown = "*".join(self.parenthesize(f, PRECEDENCE["Mul"], strict=True) for f in factors)  # type: ignore[attr-defined]
        return f"{sign}{text}/{shown if len(factors) == 1 else '(' + shown + ')'}"

    def list_slice(self, expr: sympy.Sum) -> tuple[sympy.Expr, sympy.Indexed, sympy.Expr, sympy.Expr] | None:
        """``(factor, entry, first, stop)`` when ``expr`` is a constant times the sum of one list's
        entries over a range, ``list[first:stop]`` in the evaluator's positions; else None.
        Both printers sum such a slice (far faster than a loop), the factor taken out."""
        if len(expr.limits) != 1:
            return None
        (index, start, stop), = expr.limits
        factor, term = expr.function.as_independent(index, as_Add=False)
        if not (isinstance(term, sympy.Indexed) and term.indices == (index,) and term.base in self.names):
            return None
        offset = self.offsets.get(term.base, 0)
        return factor, term, sympy.simplify(start - offset), sympy.simplify(stop - offset + 1)


class EvaluatorPrinter(DeclaredFunctions, NamedSymbols, PythonCodePrinter):
    """Python for scalars and numpy arrays alike; unsupported nodes raise, never comment. Functions
    print as their declarations say (symbolic.model.functions), through ``helper``/``call``/``quotient``."""

    language = "python"

    def __init__(self, names: dict[sympy.Basic, str], offsets: dict[sympy.Basic, sympy.Expr]) -> None:
        super().__init__({"strict": True, "fully_qualified_modules": False})
        self.names = names
        self.offsets = offsets
        self.helpers_used: set[str] = set()  # runtime helpers called: symbolic.runtime.mathops or declared ones
        self.array_capable: set[sympy.Basic] = set()  # number inputs and the steps that read them (may be arrays)
        self._conditions = itertools.count()  # names of the conditions selections bind: _c0, _c1, ...

    def _loop(self, expr: sympy.Expr, reducer: str) -> str:
        if len(expr.limits) != 1:
            raise DeclarationError(f"only one index per {type(expr).__name__} is supported: {expr}")
        (index, start, stop), = expr.limits
        variable = self.names.setdefault(index, loop_name(index))
        if self.limits_may_be_arrays(start, stop):  # a range per element: the series helper
            self.helpers_used.add("series")
            return (f"series(lambda {variable}: {self._print(expr.function)}, {self._print(start)}, "
                    f"{self._print(stop)}, {reducer!r})")
        return (f"{reducer}({self._print(expr.function)} for {variable} in "
                f"range({self._print(start)}, {self._print(stop + 1)}))")

    def limits_may_be_arrays(self, *limits: sympy.Basic) -> bool:
        """Whether a range's limits read a number input (an array in a sweep), directly or through steps:
        ``range`` takes no array, so such a sum, product or maximum is printed with ``series``, which
        gives each element its own range. Limits of list lengths and indices are plain ints."""
        symbols = set().union(*(limit.free_symbols for limit in limits))
        return any(symbol in self.array_capable or isinstance(symbol, sympy.Dummy) for symbol in symbols)

    def _print_Sum(self, expr: sympy.Sum) -> str:
        """A sum of list entries over a range prints as ``sum`` of a slice (10x faster than a
        generator); constant factors move out of the sum."""
        found = self.list_slice(expr)
        if found is None or self.limits_may_be_arrays(*expr.limits[0][1:]):
            return self._loop(expr, "sum")
        factor, term, first, last = found
        items = self._print(term.base) + ("" if first == 0 and last == sympy.oo else
                                          f"[{self._print(first) if first != 0 else ''}:{self._print(last)}]")
        total = f"sum({items})"
        if factor == 1:
            return total
        return self.scaled(total, factor) if factor.is_Rational else f"{self.parenthesize(factor, 50)}*{total}"

    def _print_Product(self, expr: sympy.Product) -> str:
        self.helpers_used.add("product")
        return self._loop(expr, "product")

    def _print_MaxOver(self, expr: MaxOver) -> str:
        return self._loop(expr, "max")

    def _print_Len(self, expr: Len) -> str:
        return f"len({self._print(expr.args[0])})"

    def _print_ContainedCall(self, expr: Any) -> str:
        """A contained scenario's generated function, its inputs by keyword."""
        return f"{expr.function_name}({', '.join(f'{name}={self._print(value)}' for name, value in expr.pairs())})"

    def helper(self, name: str) -> str:
        """A runtime helper's name as the evaluator calls it (from symbolic.runtime.mathops, or a declared
        function's helper whose source the evaluator holds)."""
        self.helpers_used.add(name)
        return name

    def call(self, name: str, *args: sympy.Basic) -> str:
        """A call of a runtime helper on printed arguments."""
        return f"{self.helper(name)}({', '.join(self._print(arg) for arg in args)})"

    def quotient(self, expr: sympy.Basic, name: str) -> str:
        """A floor or ceiling of a quotient by a helper taking numerator and denominator (floor
        division: no float rounding of n/d first), as a whole number."""
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        return f"{self.helper(name)}({self._print(numerator)}, {self._print(denominator)})"

    def _print_Given(self, expr: Given) -> str:
        return "(" + " and ".join(f"{self._print(symbol)} is not None" for symbol in expr.inputs()) + ")"

    # -- selections: Given tests are None checks (never arrays); any other condition may be an array
    def _print_Piecewise(self, expr: sympy.Piecewise) -> str:
        """A Python conditional where the conditions are Given tests; elsewhere a selection that
        is a Python conditional for scalars (only the branch taken is evaluated, ints stay ints)
        and element-wise for arrays (``select``, each branch a function of no arguments so that
        its floating-point errors count only where it is taken), each condition computed once:
        ``((a/b if _c0 else c) if scalar(_c0 := x > 0) else select((_c0,), (lambda: a/b,), c))``."""
        *pieces, (last, otherwise) = expr.args
        rest = self._print(last)
        if otherwise != sympy.true:
            if not is_static(otherwise):
                raise DeclarationError(f"a Piecewise on values that may be arrays needs a last (value, True) branch: "
                                       f"{expr}")
            rest = f"({rest} if {self._print(otherwise)} else None)"
        pending: list[tuple[sympy.Basic, sympy.Expr]] = []  # element-wise pieces, first to last
        for branch, condition in reversed(pieces):
            static, dynamic = split_condition(condition)
            if static is None:
                pending.insert(0, (dynamic, branch))
                continue
            rest = self._selection(pending, rest)
            pending = []
            taken = self._print(branch) if dynamic is None else self._selection([(dynamic, branch)], rest)
            rest = f"({taken} if {self._print(static)} else {rest})"
        return self._selection(pending, rest)

    def _selection(self, pieces: list[tuple[sympy.Basic, sympy.Expr]], rest: str) -> str:
        if not pieces:
            return rest
        names = [f"_c{next(self._conditions)}" for _ in pieces]
        branches = [self._print(branch) for _, branch in pieces]
        chain = " else ".join(f"{branch} if {name}" for name, branch in zip(names, branches, strict=True))
        bound = ", ".join(f"{name} := {self._print(condition)}" for name, (condition, _) in zip(names, pieces,
                                                                                                  strict=True))
        self.helpers_used |= {"scalar", "select"}
        lazy = [text if branch.is_Atom else f"lambda: {text}" for text, (_, branch) in zip(branches, pieces, strict=True)]
        lazy_rest = rest if re.fullmatch(r"[\w.]+", rest) else f"lambda: {rest}"
        return (f"(({chain} else {rest}) if scalar({bound}) else "
                f"select({_tuple(names)}, {_tuple(lazy)}, {lazy_rest}))")

    def _print_And(self, expr: sympy.And) -> str:
        return self._junction(expr, "and", "&")

    def _print_Or(self, expr: sympy.Or) -> str:
        return self._junction(expr, "or", "|")

    def _junction(self, expr: sympy.Basic, word: str, operator: str) -> str:
        """Given tests first, joined by ``and``/``or`` (the rest is read only when they allow,
        as a None must not be compared), then the other conditions by ``&``/``|``, element-wise."""
        static = [arg for arg in expr.args if is_static(arg)]
        dynamic = [arg for arg in expr.args if not is_static(arg)]
        parts = [self._print(arg) for arg in sorted(static, key=sympy.default_sort_key)]
        if dynamic:
            joined = f" {operator} ".join(self._operand(arg) for arg in sorted(dynamic, key=sympy.default_sort_key))
            parts.append(f"({joined})" if static else joined)
        return "(" + f" {word} ".join(parts) + ")"

    def _operand(self, condition: sympy.Basic) -> str:
        """A condition as an operand of ``&``, ``|`` or ``^`` (which bind tighter than comparisons)."""
        text = self._print(condition)
        return text if isinstance(condition, (sympy.Symbol, sympy.Dummy, sympy.core.relational.Relational,
                                              sympy.And, sympy.Or, Given)) else f"({text})"

    def _print_Not(self, expr: sympy.Not) -> str:
        (argument,) = expr.args
        if is_static(argument):
            return f"(not {self._print(argument)})"
        return f"({self._operand(argument)} ^ True)"  # element-wise; a bool for bools (~True is -2)

    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        """Square roots as ``x**0.5``, which works for numbers and numpy arrays alike
        (``math.sqrt`` refuses arrays)."""
        if expr.exp in (sympy.S.Half, -sympy.S.Half):
            root = f"{self.parenthesize(expr.base, PRECEDENCE['Pow'], strict=True)}**0.5"
            return root if expr.exp > 0 else f"1/{root}"
        return super()._print_Pow(expr, rational)

def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def is_static(condition: sympy.Basic) -> bool:
    """Whether a condition is made of Given tests and constants only (a Python bool, never an array)."""
    if isinstance(condition, (Given, sympy.logic.boolalg.BooleanAtom)):
        return True
    return isinstance(condition, (sympy.And, sympy.Or, sympy.Not)) and all(is_static(arg) for arg in condition.args)


def split_condition(condition: sympy.Basic) -> tuple[sympy.Basic | None, sympy.Basic | None]:
    """``(static, dynamic)`` parts of a condition: a static one alone, ``And(Given, x > 0)``
    as both (the element-wise part read only when the Given part holds), else the whole as dynamic."""
    if is_static(condition):
        return condition, None
    if isinstance(condition, sympy.And):
        static = [arg for arg in condition.args if is_static(arg)]
        if static:
            return sympy.And(*static), sympy.And(*(arg for arg in condition.args if not is_static(arg)))
    return None, condition


@dataclass(frozen=True)
class Statement:
    target: str
    code: str
    reads: frozenset[str] = frozenset()  # the names of the other statements' targets it reads
    # What the code computes, for other printers (symbolic.codegen.jsprint): ("expr", e), ("call", contained call),
    # ("echo", list), ("list", body, (index, start, stop), (column, first, last) or ()), ("text", sep, e).
    form: tuple = field(default=(), compare=False)
    note: str = field(default="", compare=False)  # where its folded unit factors come from (``_Folder.note``)


def python_code(printer: EvaluatorPrinter, form: tuple) -> str:
    """The Python of a statement's ``form``."""
    kind = form[0]
    if kind in ("expr", "call"):
        return printer.doprint(form[1])
    if kind == "echo":
        return f"list({printer.doprint(form[1])})"
    if kind == "text":
        return f"{form[1]!r}.join(str(item) for item in {printer.doprint(form[2])})"
    body, (index, start, stop), inner = form[1:]
    variable = printer.names.setdefault(index, loop_name(index))
    loops = f"for {variable} in range({printer.doprint(start)}, {printer.doprint(stop + 1)})"
    if inner:  # a grid: one flat list, row by row
        column, first, last = inner
        inner_variable = printer.names.setdefault(column, loop_name(column))
        loops += f" for {inner_variable} in range({printer.doprint(first)}, {printer.doprint(last + 1)})"
    return f"[{printer.doprint(body)} {loops}]"



class _Folder:
    """Substitutes ``scale * x`` for every symbol and divides by the target unit's scale.

    With ``raw=True`` (the value statements, through ``read``), a step registered by
    ``fold_step`` is read as ``c * raw`` instead of its display value, so its unit factor ``c``
    is folded into the reader's own exact constant rather than rounded twice; the rule is
    written out in symbolic.codegen.python's docstring."""

    def __init__(self, model: ScenarioModel, arguments: list[InputDecl]) -> None:
        self.scale: dict[sympy.Basic, sympy.Expr] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
        self.units: dict[sympy.Basic, str] = dict(UNIT_SYMBOLS)
        self.constants = set(UNIT_SYMBOLS)
        for decl in arguments:
            self.scale[decl.symbol] = scale_of_unit(decl.spec.unit)
            self.units[decl.symbol] = decl.spec.unit
        for quantity in model.quantities:
            self.scale[quantity.symbol] = scale_of_unit(quantity.unit)
            self.units[quantity.symbol] = quantity.unit
        self.raw: dict[sympy.Basic, sympy.Expr] = {}  # step -> c * the symbol holding its raw value
        self.raw_values: dict[sympy.Basic, tuple[sympy.Basic, sympy.Expr]] = {}  # raw symbol -> (step, G)
        self.computed: set[sympy.Basic] = set()  # raw values a statement computes already

    def base(self, expr: sympy.Basic, raw: bool = False) -> sympy.Basic:
        replace: dict[sympy.Basic, sympy.Basic] = {}
        for symbol in expr.free_symbols:
            if symbol in self.constants:
                replace[symbol] = self.scale[symbol]
            elif raw and symbol in self.raw:
                replace[symbol] = self.scale[symbol] * self.raw[symbol]
            elif symbol.is_Symbol and self.scale.get(symbol, 1) != 1:
                replace[symbol] = self.scale[symbol] * symbol
        for entry in expr.atoms(sympy.Indexed):  # list entries in a unit of another scale (MB, µs)
            if self.scale.get(entry.base, 1) != 1:
                replace[entry] = self.scale[entry.base] * entry
        return expr.xreplace(replace)

    def __call__(self, expr: sympy.Expr, unit: str, raw: bool = False) -> sympy.Expr:
        folded = self.base(expr, raw) / scale_of_unit(unit)
        # Pull common factors out of sums so that equal scales cancel: H/(H + T), not µH/(µH + µT).
        return folded if folded == expr else sympy.factor_terms(folded)

    def note(self, expr: sympy.Expr, unit: str) -> str:
        """Where the unit factors folded into ``expr``'s statement come from, for a reader checking
        the line by eye ("" when folding changes nothing): each value it reads in a unit of another
        scale, converted to base units, then the result converted to ``unit`` (``1e-12: flop/s ->
        TFLOP/s``). The printed constant is their product, after any cancel."""
        if self(expr, unit) == expr:
            return ""
        reads = {symbol: symbol for symbol in expr.free_symbols} | {entry.base: entry for entry in expr.atoms(sympy.Indexed)}
        parts = []
        for symbol, shown in sorted(reads.items(), key=lambda item: str(item[1])):
            scale = self.scale.get(symbol, 1)
            if scale != 1 and symbol in self.units:
                what = f"[{self.units[symbol]}]" if symbol in self.constants else f" ({shown})"
                parts.append(f"{_factor(scale)}: {self.units[symbol]} -> {base_unit(self.units[symbol])}"
                             + ("" if symbol in self.constants else what))
        if scale_of_unit(unit) != 1:
            parts.append(f"{_factor(1 / scale_of_unit(unit))}: {base_unit(unit)} -> {unit}")
        return "; ".join(parts)

    def fold_step(self, step: sympy.Basic, expr: sympy.Expr, unit: str, name: str) -> sympy.Expr:
        """A scalar step's expression for the value statements (``read``), registering how its
        readers may read it raw: folded with raw reads it is ``c * G``; with an inexact unit
        factor ``c`` they read ``c * _raw_<name>``, which holds ``G`` (or ``G`` itself, a symbol)."""
        chosen = self.read(expr, unit)
        via_raw = self(expr, unit, raw=True) if self.raw else chosen
        factor, rest = via_raw.as_coeff_Mul()
        if factor.is_Rational and not exact_scaling(factor):
            if isinstance(rest, (sympy.Symbol, sympy.Dummy)):
                self.raw[step] = via_raw
            else:
                raw = sympy.Dummy(f"_raw_{name}")
                self.raw[step] = factor * raw
                self.raw_values[raw] = (step, rest)
        return chosen

    def read(self, expr: sympy.Expr, unit: str) -> sympy.Expr:
        """``expr`` folded for the value statements: reading the steps it reads raw when their
        display values would be rescaled by an inexact constant (``1e6*total_flops/hardware_peak``
        rather than ``total_flops/peak_rate/1e6``), else at their display values, where the
        scales cancel (``compute_time + memory_time``, both in µs)."""
        shown = self(expr, unit)
        if not self.raw:
            return shown
        products = [shown.as_coeff_Mul()] + [product.as_coeff_Mul() for product in shown.atoms(sympy.Mul)]
        if any(not exact_scaling(factor) and rest.free_symbols & self.raw.keys() for factor, rest in products):
            return self(expr, unit, raw=True)
        return shown

    def fold_steps(self, scalars: Sequence[Any]) -> dict[sympy.Basic, sympy.Expr]:
        """Each scalar step's expression for the value statements (``fold_step``), folded after
        the steps it reads."""
        by_symbol = {q.symbol: q for q in scalars}
        steps: dict[sympy.Basic, sympy.Expr] = {}

        def visit(quantity: Any) -> None:
            if quantity.symbol in steps:
                return
            steps[quantity.symbol] = sympy.S.Zero
            for symbol in sorted(quantity.expr.free_symbols & by_symbol.keys(), key=str):
                visit(by_symbol[symbol])
            steps[quantity.symbol] = self.fold_step(quantity.symbol, quantity.expr, quantity.unit,
                                                    code_name(quantity.name))

        for quantity in scalars:
            visit(quantity)
        return steps

    def raw_statements(self, steps: dict[sympy.Basic, sympy.Expr], others: Iterable[sympy.Basic],
                       guarded: bool) -> list[tuple[sympy.Basic, sympy.Basic]]:
        """``(raw, what it holds)`` for the raw values that ``steps`` and ``others`` read, directly
        or through other raw values, in the order they were registered, less those the main block
        computes already (a guarded block computes its own: in JavaScript its constants are its
        own). A step whose raw value is computed becomes ``c * raw`` in ``steps``, unless that
        rounds more (``p*n/d`` with ``n`` exact rounds once, ``p*(n/d)`` twice)."""
        wanted: set[sympy.Basic] = set()
        pending = [*steps.values(), *others]
        while pending:
            found = pending.pop().free_symbols & self.raw_values.keys() - wanted - self.computed
            wanted |= found
            pending.extend(self.raw_values[raw][1] for raw in found)
        available = wanted | self.computed
        if not guarded:
            self.computed |= wanted
        for raw, (step, value) in self.raw_values.items():
            factor = self.raw[step].as_coeff_Mul()[0]
            if (step in steps and raw in available and steps[step] == factor * value
                    and (abs(factor.p) == 1 or sympy.fraction(value)[1] == 1)):
                steps[step] = self.raw[step]
        return [(raw, value) for raw, (_, value) in self.raw_values.items() if raw in wanted]


def _factor(value: sympy.Rational) -> str:
    """A unit factor as a reader writes it: ``1e-12`` for a power of ten, else ``1/3600`` or ``1024``."""
    value = sympy.Rational(value)
    for exponent in range(-30, 31):
        if value == sympy.Rational(10) ** exponent:
            return f"1e{exponent}" if abs(exponent) > 2 else str(sympy.Rational(10) ** exponent)
    return str(value)


def base_unit(unit: str) -> str:
    """The base units of ``unit``'s dimension, as the registry writes them (``TFLOP/s`` -> ``flop/s``)."""
    return f"{registry().Quantity(1, unit or 'dimensionless').to_base_units().units:~P}" or "1"


def exact_scaling(factor: sympy.Rational) -> bool:
    """True when multiplying by ``factor`` cannot round: 0, ±2**k or ±1/2**k."""
    p, q = abs(int(factor.p)), int(factor.q)
    return p & (p - 1) == 0 and q & (q - 1) == 0


def _ordered(items: Sequence[tuple[Any, ...]], names: dict[sympy.Basic, str]) -> tuple[Statement, ...]:
    """Statements in the given order, except that each waits for what it reads from the others
    (items are ``(target, code, reads)`` or ``(target, code, reads, form)``)."""
    pending: list[tuple[sympy.Basic, str, set[sympy.Basic], tuple]] = [
        (item[0], item[1], item[2], item[3] if len(item) > 3 else ()) for item in items]
    defined = {item[0] for item in pending}
    done: set[sympy.Basic] = set()
    statements: list[Statement] = []
    while pending:
        for position, (target, code, reads, form) in enumerate(pending):
            if not (reads & defined) - done:
                statements.append(Statement(names[target], code, frozenset(names[r] for r in reads if r in names), form))
                done.add(target)
                del pending[position]
                break
        else:  # pragma: no cover - declarations are a DAG by construction
            raise DeclarationError(f"circular definitions among {[str(item[0]) for item in pending]}")
    return tuple(statements)


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


