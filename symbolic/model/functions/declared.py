"""The table of math functions a scenario may write, each declared once by a module of this package.

A declaration (``MathFunction``) says everything the generator and the analyses need to know of
one sympy function: its dimension rule, its sign facts for the division proof, its domain, its
growth order, whether its value is a whole number, how it is differentiated, and how it prints in
Python, JavaScript and LaTeX (with the sympy-free runtime helpers those prints call, whose source
is copied into the evaluators that use them). The printers and the analyses start from this table
and nothing else: a function node that no module declares is refused at generation with a message
saying how to declare it (sympy's own printing tables never print an undeclared name).

Declaring a function: add ``symbolic/model/functions/<name>.py`` that calls ``declare(MathFunction(...))``
(``exp.py`` is a short example, ``floor.py`` one with exact-integer printing) and a test
``tests/model/functions/test_<name>.py``; every module of this package is loaded, and its
``export`` name joins ``symbolic.model``'s imports.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy.functions.elementary.miscellaneous import MinMaxBase

from symbolic.runtime.errors import DeclarationError, UnitMismatchError, UnsupportedNodeError

Dimension = Any  # pint's UnitsContainer of base dimensions


class NotPowerLaw(ValueError):
    """A function of a growing input that no power of it bounds (``exp``): scaling says "not a power law"."""


@dataclass(frozen=True)
class MathFunction:
    """One math function as every part of the generator sees it.

    ``python`` and ``javascript`` are ``(printer, expr) -> code``; the printers offer ``call(helper, *args)``
    (a runtime helper: from ``symbolic/runtime/mathops.py`` or ``mathops.mjs`` when the name is theirs, else
    one of ``python_helpers`` / ``javascript_helpers`` below, copied into the evaluator) and ``_print``.
    ``latex`` is ``(printer, expr) -> LaTeX`` or None for sympy's own LaTeX of the node.
    ``dimension`` is ``(expr, dimensions of the arguments, the dimensionless dimension) -> dimension``.
    ``sign`` is ``(node, reduce) -> replacement | None``: ``reduce(arg)`` gives an argument with what the
    input domains prove of it, and the replacement a symbol (or expression) carrying what that proves of
    the value (``exp(u)`` with ``u < 0`` is ``1/(1 + d)``, ``d > 0``), or None to leave it to sympy.
    ``domain`` is ``(node, proves) -> message | None``: ``proves(expr)`` says whether the input domains
    prove ``expr`` nonnegative; a message refuses the scenario at generation.
    ``growth`` is ``(expr, grow) -> leading power`` (``grow(arg)`` the power of an argument; raise
    ``NotPowerLaw`` for none). ``integer``: "always" a whole number, "arguments" when its arguments
    are, or "never". ``trend``: differentiated as its argument (a floor's trend) rather than by sympy.
    ``nonfinite``: ``(arguments, what the value must be)`` checked by the declarations' test on scalars
    and arrays, "nan" or "inf" or "-inf" (an overflow reaches the evaluators' overflow check, never 0).
    """

    node: type
    export: str  # the name scenarios import from symbolic.model ("" for nodes the generator makes)
    python: Callable[[Any, Any], str]
    javascript: Callable[[Any, Any], str]
    latex: Callable[[Any, Any], str] | None = None
    dimension: Callable[[Any, list[Dimension], Dimension], Dimension] | None = None
    sign: Callable[[Any, Callable[[Any], Any]], Any] | None = None
    domain: Callable[[Any, Callable[[Any], bool]], str | None] | None = None
    growth: Callable[[Any, Callable[[Any], Any]], Any] | None = None
    integer: str = "never"
    trend: bool = False
    python_helpers: tuple[Callable[..., Any], ...] = ()
    javascript_helpers: dict[str, str] = field(default_factory=dict)
    nonfinite: tuple[tuple[tuple[float, ...], str], ...] = ()

    @property
    def name(self) -> str:
        return self.node.__name__


_TABLE: dict[type, MathFunction] = {}


def declare(function: MathFunction) -> MathFunction:
    """Add ``function`` to the table (once per node)."""
    if function.node in _TABLE and _TABLE[function.node] is not function:
        raise DeclarationError(f"{function.name} is declared twice")
    if function.integer not in ("always", "arguments", "never"):
        raise DeclarationError(f"{function.name}: integer is 'always', 'arguments' or 'never'")
    _TABLE[function.node] = function
    return function


def declarations() -> dict[type, MathFunction]:
    """Every declared function, by its sympy node: importing this module ran the package's ``__init__``,
    which loads every declaration module."""
    return _TABLE


def is_function(expr: Any) -> bool:
    """Whether ``expr`` is a function application the table must declare (``floor(x)``, ``Max(a, b)``,
    ``cosh(x)``, an undefined ``f(x)``), as opposed to arithmetic, relations, ``Piecewise`` and the
    language's own nodes (a class with ``language_node = True``: ``Len``, a contained call), which each
    printer prints by a method of its own."""
    return (isinstance(expr, (sympy.Function, MinMaxBase)) and not isinstance(expr, sympy.Piecewise)
            and not getattr(expr, "language_node", False))


def lookup(expr: Any) -> MathFunction | None:
    """The declaration of ``expr``'s function (its exact class), or None."""
    return _TABLE.get(type(expr))


def required(expr: Any) -> MathFunction:
    """The declaration of ``expr``'s function, or a refusal saying how to declare it."""
    found = lookup(expr)
    if found is None:
        raise UnsupportedNodeError(undeclared(expr))
    return found


def undeclared(expr: Any) -> str:
    name = type(expr).__name__
    return (f"uses {name} ({expr}), a function no module of symbolic/model/functions/ declares; to use it, add "
            f"symbolic/model/functions/{name.lower()}.py declaring it with declare(MathFunction({name}, ...)): its "
            "dimension rule, sign facts, growth, Python, JavaScript and LaTeX printing (exp.py is a short example), "
            f"and its test tests/model/functions/test_function_{name.lower()}.py")


def helper_source(function: Callable[..., Any]) -> str:
    """The source of a runtime helper, as the evaluators hold it (sympy-free, imports inside)."""
    return textwrap.dedent(inspect.getsource(function)).strip() + "\n"


def python_helper_sources() -> dict[str, str]:
    """Every declared Python helper by name: the source copied into an evaluator that calls it."""
    return {helper.__name__: helper_source(helper) for function in declarations().values()
            for helper in function.python_helpers}


def javascript_helper_sources() -> dict[str, str]:
    """Every declared JavaScript helper by name: the source copied into an evaluator module that calls it."""
    return {name: source.strip() + "\n" for function in declarations().values()
            for name, source in function.javascript_helpers.items()}


def relax_trends(expr: Any) -> Any:
    """``expr`` with each function declared ``trend`` (floor, ceiling, trunc) replaced by its argument,
    for differentiation: their trend."""
    return expr.replace(lambda e: (found := lookup(e)) is not None and found.trend, lambda e: e.args[0])


# -- dimension rules ----------------------------------------------------------------------------
def describe(dimension: Dimension) -> str:
    return str(dimension) if dimension else "dimensionless"


def agreeing(expr: Any, found: list[Dimension], none: Dimension) -> Dimension:
    """Every argument of one dimension, the value's too (``Min``, ``Max``)."""
    first = found[0]
    for arg, dimension in zip(expr.args, found, strict=True):
        if dimension != first:
            raise UnitMismatchError(f"adds or compares values of different dimensions in {expr}: "
                                    f"{expr.args[0]} is {describe(first)} but {arg} is {describe(dimension)}")
    return first


def of_argument(expr: Any, found: list[Dimension], none: Dimension) -> Dimension:
    """The argument's dimension (``floor``, ``Abs``)."""
    return found[0]


def pure_number(word: str) -> Callable[[Any, list[Dimension], Dimension], Dimension]:
    """A pure number of a pure number (``log``, ``exp``); ``word`` names it in the refusal."""

    def rule(expr: Any, found: list[Dimension], none: Dimension) -> Dimension:
        if any(dimension != none for dimension in found):
            raise DeclarationError(f"the {word} of a dimensioned value in {expr}")
        return none

    return rule


# -- growth rules -------------------------------------------------------------------------------
def grows_as_argument(expr: Any, grow: Callable[[Any], Any]) -> Any:
    return grow(expr.args[0])


def grows_slower_than_any_power(expr: Any, grow: Callable[[Any], Any]) -> Any:
    return sympy.Integer(0)


def grows_faster_than_any_power(expr: Any, grow: Callable[[Any], Any]) -> Any:
    if grow(expr.args[0]) == 0:  # of a constant (or of a logarithm): no faster than a constant
        return sympy.Integer(0)
    raise NotPowerLaw(f"{expr} grows faster than any power of its argument: not a power law")


# -- sign facts ---------------------------------------------------------------------------------
def positive() -> sympy.Dummy:
    return sympy.Dummy("positive", positive=True)


def nonnegative() -> sympy.Dummy:
    return sympy.Dummy("nonnegative", nonnegative=True)
