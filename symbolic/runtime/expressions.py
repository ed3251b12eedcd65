"""A small, safe grammar for search constraints and objectives (never Python's ``eval``).

    constraint := sum COMPARISON sum          COMPARISON: <= >= < > == !=
    objective  := sum
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/") unary)*
    unary      := "-" unary | atom
    atom       := NUMBER [UNIT] | NAME | "(" sum ")"

A NAME is an output path (``result.memory_per_device``, ``op_flops[matmul1]``) or an input
(``tp_size``, ``hardware.memory_capacity``), each in its own unit; a NUMBER may carry a unit
written right after it (``80 GB``, ``3.35 TB/s``, ``10us``). Units are checked when the text
is compiled: ``+``, ``-`` and comparisons need one dimension on both sides (the right side is
converted to the left side's unit), ``*`` and ``/`` combine units; a bare number beside a
quantity with a unit is refused (write ``80 GB``, not ``80``). Errors name the position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.units import unit
from symbolic.runtime.units import registry


class ExpressionError(ScenarioInputError):
    """A constraint or objective that does not parse, names an unknown name, or mixes units."""


_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\[\]]+\])*)
  | (?P<op><=|>=|==|!=|<|>|\+|-|\*|/|\(|\))
""", re.VERBOSE)
# A unit right after a number: names (µ and % too), each with an optional integer power,
# joined by "/" or "*" with no space (``3.35 TB/s``; ``x / s`` stays a division by a name).
_UNIT = re.compile(r"\s*([A-Za-zµ%][A-Za-z0-9_µ]*(?:\*\*-?\d+)?(?:[/*][A-Za-zµ][A-Za-z0-9_µ]*(?:\*\*-?\d+)?)*)")
COMPARISONS = {"<=": "less_equal", ">=": "greater_equal", "<": "less", ">": "greater", "==": "equal",
               "!=": "not_equal"}

Evaluator = Callable[[Callable[[str], Any]], Any]  # (lookup of a name's values) -> values


class Compiled:
    """A checked expression: ``evaluate(lookup)`` computes it from each name's values
    (``lookup(name)``), ``unit`` is the unit of the result ("" when dimensionless) and
    ``names`` the names it reads, in order of first use."""

    def __init__(self, text: str, function: Evaluator, unit: str, names: tuple[str, ...], comparison: bool) -> None:
        self.text = text
        self.evaluate = function
        self.unit = unit
        self.names = names
        self.comparison = comparison

    def __repr__(self) -> str:
        return f"<Compiled {self.text!r} [{self.unit or '1'}]>"


def compile_expression(text: str, units: dict[str, str], *, comparison: bool, what: str = "expression") -> Compiled:
    """Parse ``text`` over the names in ``units`` (name -> unit spelling, "" when dimensionless).

    ``comparison`` says whether a constraint (one comparison) or an objective (none) is wanted.
    """
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError(f"{what}: expected a non-empty expression, got {text!r}")
    parser = _Parser(text, units, what)
    node = parser.comparison() if comparison else parser.sum()
    if parser.position < len(parser.tokens):
        kind, value, at = parser.tokens[parser.position]
        if not comparison and value in COMPARISONS:
            raise ExpressionError(f"{what}: {text!r} has a comparison at position {at}; an objective is an "
                                  "output or an arithmetic expression")
        if value in COMPARISONS:
            raise ExpressionError(f"{what}: {text!r} has a second comparison at position {at}; a constraint has one "
                                  "(write '1 <= x <= 4' as two constraints, '1 <= x' and 'x <= 4')")
        raise ExpressionError(f"{what}: unexpected {value!r} at position {at} in {text!r}")
    function, unit_ = node
    return Compiled(text, function, "" if comparison else _spelled(unit_), tuple(parser.names), comparison)


def _spelled(unit_: Any) -> str:
    return "" if unit_.dimensionless and unit_ == _unit("dimensionless") else f"{unit_:~P}"


def _unit(spelling: str) -> Any:
    return unit(spelling or "dimensionless")


class _Parser:
    """Recursive descent producing ``(function of lookup, pint unit)`` pairs, checked as it goes."""

    def __init__(self, text: str, units: dict[str, str], what: str) -> None:
        self.text = text
        self.units = units
        self.what = what
        self.names: list[str] = []
        self.tokens = self._tokens(text)
        self.position = 0

    def _tokens(self, text: str) -> list[tuple[str, Any, int]]:
        tokens: list[tuple[str, Any, int]] = []
        at = 0
        while at < len(text):
            match = _TOKEN.match(text, at)
            if match is None:
                raise ExpressionError(f"{self.what}: cannot read {text[at:at + 12]!r} at position {at} in {text!r}")
            kind = match.lastgroup or ""
            if kind == "number":
                tokens.append(("number", self._number(match.group(), at), at))
                unit_match = _UNIT.match(text, match.end())
                at = unit_match.end() if unit_match and self._unit_of(tokens, unit_match.group(1), at) else match.end()
                continue
            if kind != "space":
                tokens.append((kind, match.group(), at))
            at = match.end()
        return tokens

    def _number(self, digits: str, at: int) -> float:
        value = float(digits)
        if value - value != 0.0:
            raise ExpressionError(f"{self.what}: {digits!r} at position {at} is beyond double precision")
        if value == 0 and re.search(r"[1-9]", re.split(r"[eE]", digits)[0]):
            raise ExpressionError(f"{self.what}: {digits!r} at position {at} is below double precision (it would "
                                  "be read as 0)")
        if digits.isdigit() and int(digits) != value:  # a whole number the float64 arithmetic would round
            raise ExpressionError(f"{self.what}: {digits} at position {at} is beyond 2**53, where the search's "
                                  f"float64 arithmetic rounds it (to {value:.17g}); write it as a float ({digits}.0) "
                                  "to accept that")
        return value

    def _unit_of(self, tokens: list[tuple[str, Any, int]], spelling: str, at: int) -> bool:
        """Attach ``spelling`` as the unit of the number just read (a number followed by a name
        is always a unit: two operands need an operator between them)."""
        try:
            unit_ = _unit(spelling)
        except Exception as error:  # pint's undefined-unit and parse errors are many types
            raise ExpressionError(f"{self.what}: {spelling!r} after the number at position {at} is not a known "
                                  f"unit ({error})") from None
        kind, value, position = tokens[-1]
        tokens[-1] = ("quantity", (value, unit_), position)
        return True

    # -- grammar ------------------------------------------------------------------------
    def peek(self) -> tuple[str, Any, int] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def expect_more(self, expected: str) -> tuple[str, Any, int]:
        token = self.peek()
        if token is None:
            raise ExpressionError(f"{self.what}: {self.text!r} ends where {expected} was expected")
        return token

    def comparison(self) -> tuple[Evaluator, Any]:
        left, left_unit = self.sum()
        token = self.peek()
        if token is None or token[1] not in COMPARISONS:
            where = f"at position {token[2]}" if token else "at the end"
            raise ExpressionError(f"{self.what}: {self.text!r} needs a comparison (<=, >=, <, >, ==, !=) {where}")
        self.position += 1
        right, right_unit = self.sum()
        right = self._converted(right, right_unit, left_unit, token)
        import numpy

        compare = getattr(numpy, COMPARISONS[token[1]])
        if token[1] == "!=":  # nan != x is true: a side with no value (0/0) would meet the constraint; no comparison does
            return (lambda lookup: _defined_not_equal(left(lookup), right(lookup))), _unit("")
        return (lambda lookup: compare(left(lookup), right(lookup))), _unit("")

    def sum(self) -> tuple[Evaluator, Any]:
        left, left_unit = self.product()
        while (token := self.peek()) is not None and token[1] in ("+", "-"):
            self.position += 1
            right, right_unit = self.product()
            right = self._converted(right, right_unit, left_unit, token)
            left = _combine(token[1], left, right)
        return left, left_unit

    def product(self) -> tuple[Evaluator, Any]:
        left, left_unit = self.unary()
        while (token := self.peek()) is not None and token[1] in ("*", "/"):
            self.position += 1
            right, right_unit = self.unary()
            left = _combine(token[1], left, right)
            left_unit = left_unit * right_unit if token[1] == "*" else left_unit / right_unit
        return left, left_unit

    def unary(self) -> tuple[Evaluator, Any]:
        token = self.expect_more("a number, a name or '('")
        if token[1] == "-":
            self.position += 1
            inner, inner_unit = self.unary()
            return (lambda lookup: -inner(lookup)), inner_unit
        return self.atom()

    def atom(self) -> tuple[Evaluator, Any]:
        kind, value, at = self.expect_more("a number, a name or '('")
        self.position += 1
        if kind == "number":
            return _constant(value), _unit("")
        if kind == "quantity":
            return _constant(value[0]), value[1]
        if kind == "name":
            if value not in self.units:
                import difflib

                close = difflib.get_close_matches(value, list(self.units), n=3, cutoff=0.5)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise ExpressionError(f"{self.what}: unknown name {value!r} at position {at} in {self.text!r}{hint} "
                                      "(names: the scenario's output paths and inputs; `mlsysym list` shows them)")
            if value not in self.names:
                self.names.append(value)
            return (lambda lookup: lookup(value)), _unit(self.units[value])
        if value == "(":
            inner = self.sum()
            closing = self.expect_more("')'")
            if closing[1] != ")":
                raise ExpressionError(f"{self.what}: expected ')' at position {closing[2]} in {self.text!r}, "
                                      f"got {closing[1]!r}")
            self.position += 1
            return inner
        raise ExpressionError(f"{self.what}: unexpected {value!r} at position {at} in {self.text!r}; "
                              "expected a number, a name or '('")

    def _converted(self, right: Evaluator, right_unit: Any, left_unit: Any, token: tuple[str, Any, int]) -> Evaluator:
        """``right`` in ``left_unit``, or an error when the two sides have different dimensions."""
        if right_unit.dimensionality != left_unit.dimensionality:
            hint = ""
            if right_unit.dimensionless or left_unit.dimensionless:
                hint = "; give the number its unit (e.g. 80 GB, 10 ms)"
            raise ExpressionError(f"{self.what}: '{token[1]}' at position {token[2]} in {self.text!r} joins "
                                  f"[{_spelled(left_unit) or '1'}] and [{_spelled(right_unit) or '1'}], which have "
                                  f"different dimensions{hint}")

        factor = registry().Quantity(1.0, right_unit).to(left_unit).magnitude
        if factor == 1.0:
            return right
        return lambda lookup: right(lookup) * factor


def _defined_not_equal(left: Any, right: Any) -> Any:
    import numpy

    return numpy.not_equal(left, right) & ~numpy.isnan(left) & ~numpy.isnan(right)


def _constant(value: float) -> Evaluator:
    return lambda lookup: value


def _combine(operator: str, left: Evaluator, right: Evaluator) -> Evaluator:
    if operator == "+":
        return lambda lookup: left(lookup) + right(lookup)
    if operator == "-":
        return lambda lookup: left(lookup) - right(lookup)
    if operator == "*":
        return lambda lookup: left(lookup) * right(lookup)
    import numpy

    # numpy's division: x/0 is inf and 0/0 nan (an unranked point), where Python's would raise for
    # two plain numbers (an input the space does not vary, a constant)
    return lambda lookup: numpy.true_divide(left(lookup), right(lookup))
