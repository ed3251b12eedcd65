"""Dimensional analysis of declared expressions, run by the generator.

Every symbol has the dimension of its declared unit; the dimension of an expression
is inferred node by node (sums must agree, products multiply, ``Min``/``Max`` and
``Piecewise`` branches must agree) and must equal the dimension of the output's
declared unit. Unit scales (µs = 10⁻⁶ s) are exact rationals, folded into the
evaluators at generation time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import sympy

from symbolic.model.functions import Len, MaxOver
from symbolic.model.functions.declared import declarations, is_function, pure_number, required
from symbolic.model import UNIT_SYMBOLS, ScenarioModel, TextQuantity
from symbolic.runtime.errors import (
    CycleError,
    DeclarationError,
    UndeclaredSymbolError,
    UnitMismatchError,
    UnsupportedNodeError,
)
from symbolic.runtime.units import registry

Dimension = Any  # pint's UnitsContainer of base dimensions


@lru_cache(maxsize=None)
def dimension_of_unit(unit: str) -> Dimension:
    """The base dimensions of a unit spelling ("" is dimensionless)."""
    return registry().Unit(unit or "dimensionless").dimensionality


@lru_cache(maxsize=None)
def scale_of_unit(unit: str) -> sympy.Rational:
    """The exact factor from ``unit`` to the base units of its dimension: the product of each
    named unit's factor raised to its power, so ``dollar/h`` is exactly 1/3600 (converting the
    whole unit at once gives the double nearest 1/3600, which does not cancel an ``h``)."""
    scale = sympy.Rational(1)
    for name, power in registry().parse_units(unit or "dimensionless")._units.items():
        scale *= _named_scale(name) ** sympy.Rational(power)
    return scale


@lru_cache(maxsize=None)
def _named_scale(name: str) -> sympy.Rational:
    """One named unit's factor (a decimal or binary prefix times a whole number of base units)."""
    magnitude = registry().Quantity(1, name).to_base_units().magnitude
    return sympy.Rational(repr(magnitude) if isinstance(magnitude, float) else magnitude)


def describe(dimension: Dimension) -> str:
    return str(dimension) if dimension else "dimensionless"


def infer(expr: sympy.Basic, dims: dict[sympy.Basic, Dimension]) -> Dimension:
    """The dimension of ``expr`` given the dimension of each symbol; raises on a mismatch."""
    none = dimension_of_unit("")
    if expr.is_Number:
        return none
    if expr.is_Symbol:
        if expr not in dims:
            raise UndeclaredSymbolError(f"uses undeclared symbol {expr}")
        return dims[expr]
    if isinstance(expr, sympy.Indexed):
        return infer(expr.base, dims)
    if isinstance(expr, sympy.IndexedBase):
        if expr not in dims:
            raise UndeclaredSymbolError(f"uses undeclared list {expr}")
        return dims[expr]
    if isinstance(expr, (sympy.Sum, MaxOver)):
        return infer(expr.function, with_indices(dims, expr.limits))
    if isinstance(expr, sympy.Product):  # its dimension would depend on the list's length: factors must be pure numbers
        return _agree(expr, [infer(expr.function, with_indices(dims, expr.limits)), none])
    if isinstance(expr, Len):
        return none
    if isinstance(expr, sympy.core.relational.Relational):
        if expr.rhs.is_zero:  # zero compares with a value of any dimension (d + l > 0)
            return infer(expr.lhs, dims)
        return _agree(expr, [infer(expr.lhs, dims), infer(expr.rhs, dims)])
    if isinstance(expr, sympy.Mul):
        result = none
        for arg in expr.args:
            result = result * infer(arg, dims)
        return result
    if isinstance(expr, sympy.Pow):
        base, exponent = infer(expr.base, dims), expr.exp
        if not exponent.is_Number:
            if base != none or infer(exponent, dims) != none:
                raise DeclarationError(f"non-numeric power of a dimensioned value in {expr}")
            return none
        if exponent.is_Integer:
            return base ** int(exponent)
        return base ** float(exponent)
    if isinstance(expr, sympy.Add):
        return _agree(expr, [infer(arg, dims) for arg in expr.args])
    if isinstance(expr, sympy.Piecewise):  # a branch of 0 has whatever dimension the others have
        branches = [branch for branch, _ in expr.args if not branch.is_zero] or [sympy.S.Zero]
        return _agree(sympy.Tuple(*branches), [infer(branch, dims) for branch in branches])
    if is_function(expr):  # its declaration's rule (symbolic.model.functions), or a refusal naming the door
        declarations()
        rule = required(expr).dimension
        found = [infer(arg, dims) for arg in expr.args]
        return rule(expr, found, none) if rule is not None else pure_number(type(expr).__name__)(expr, found, none)
    raise UnsupportedNodeError(f"has a {type(expr).__name__} node ({expr}), which the dimension check and the "
                               "printers do not support")


def with_indices(dims: dict[sympy.Basic, Dimension], limits: tuple[Any, ...]) -> dict[sympy.Basic, Dimension]:
    """``dims`` plus each bound index (dimensionless); the bounds must be dimensionless counts."""
    none = dimension_of_unit("")
    for limit in limits:
        for bound in limit[1:]:
            if infer(bound, dims) != none:
                raise DeclarationError(f"the bounds of an index must be dimensionless counts, got {bound}")
    return {**dims, **{limit[0]: none for limit in limits}}


def _agree(expr: sympy.Basic, found: list[Dimension]) -> Dimension:
    first = found[0]
    for arg, dimension in zip(expr.args, found, strict=True):
        if dimension != first:
            raise UnitMismatchError(
                f"adds or compares values of different dimensions in {expr}: "
                f"{expr.args[0]} is {describe(first)} but {arg} is {describe(dimension)}"
            )
    return first


def symbol_dimensions(model: ScenarioModel) -> dict[sympy.Basic, Dimension]:
    """The dimension of every symbol an expression of ``model`` may use."""
    dims: dict[sympy.Basic, Dimension] = {s: dimension_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
    dims.update({decl.symbol: dimension_of_unit(decl.spec.unit) for decl in model.inputs})
    dims.update({q.symbol: dimension_of_unit(q.unit) for q in model.quantities})
    return dims


def check_acyclic(model: ScenarioModel) -> None:
    """Raise ``CycleError`` naming the outputs when definitions refer to each other in a loop.

    Declarations in a class body can only name outputs above them, but a hand-built
    ``Symbol`` with an output's name can still close a loop.
    """
    by_symbol = {quantity.symbol: quantity for quantity in model.quantities}
    state: dict[sympy.Basic, str] = {}

    def visit(symbol: sympy.Basic, trail: list[str]) -> None:
        if state.get(symbol) == "done":
            return
        quantity = by_symbol[symbol]
        if state.get(symbol) == "open":
            loop = trail[trail.index(quantity.name):] + [quantity.name]
            raise CycleError(f"{model.name}: outputs are defined in a loop: {' -> '.join(loop)}")
        state[symbol] = "open"
        reads = quantity.expr.free_symbols | {i.base for i in quantity.expr.atoms(sympy.Indexed)}
        for dependency in sorted((s for s in reads if s in by_symbol and s != symbol), key=str):
            visit(dependency, trail + [quantity.name])
        if symbol in reads:
            raise CycleError(f"{model.name}: output {quantity.name} is defined in terms of itself")
        state[symbol] = "done"

    for quantity in model.quantities:
        visit(quantity.symbol, [])


def check_model(model: ScenarioModel) -> None:
    """Check every quantity and input default of ``model``; raise naming the first offender."""
    check_acyclic(model)
    dims = symbol_dimensions(model)
    for quantity in model.quantities:
        if isinstance(quantity, TextQuantity):
            continue
        where = f"{model.name}.{quantity.name}"
        try:
            ranges = quantity.index_ranges()
            scope = with_indices(dims, ranges) if ranges else dims
            found = infer(quantity.expr, scope)
        except DeclarationError as error:
            raise type(error)(f"{where}: {error}") from None
        declared = dimension_of_unit(quantity.unit)
        if found != declared and quantity.expr != 0:  # an exact zero is a zero of any dimension (a bound of 0 B)
            raise UnitMismatchError(
                f"{where}: the expression {quantity.expr} has dimension {describe(found)}, "
                f"but the declared unit {quantity.unit or 'dimensionless'!r} has dimension {describe(declared)}"
            )
    for requirement in model.requirements:
        try:
            infer(requirement.condition, dims)
        except DeclarationError as error:
            raise type(error)(f"{model.name}: requirement {requirement.condition}: {error}") from None
    for decl in model.inputs:
        default = decl.spec.default
        if isinstance(default, sympy.Basic):
            found = infer(default, dims)
            if found != dimension_of_unit(decl.spec.unit):
                raise UnitMismatchError(
                    f"{model.name}.{decl.name}: default {default} has dimension {describe(found)}, "
                    f"but the input's unit {decl.spec.unit or 'dimensionless'!r} has {describe(dimension_of_unit(decl.spec.unit))}"
                )
