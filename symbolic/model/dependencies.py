"""The one dependency walk: what a quantity reads, directly and through other quantities.

The evaluator's pruning and guards (``symbolic.codegen.python``), the exact evaluation's
``needed`` (``symbolic.codegen.worked``), the docs' symbol legends (``site_pages``) and
the evaluator's arguments (``ScenarioModel.evaluator_inputs``) all ask these two questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import sympy

from symbolic.model.collected import Quantity, _symbols


def reads(quantity: Quantity) -> frozenset[sympy.Basic]:
    """The symbols a quantity's definition reads: those of its expression and of its limits (a
    grid's second range too; list bases and list lengths included, see ``_symbols``)."""
    return _reads(quantity.expr, tuple(part for bounds in quantity.index_ranges() for part in bounds))


@lru_cache(maxsize=None)
def _reads(expr: sympy.Basic, limits: tuple[Any, ...]) -> frozenset[sympy.Basic]:
    return frozenset(_symbols(expr).union(*(_symbols(part) for part in limits)))


def closure(start: Iterable[sympy.Basic], quantities: Mapping[sympy.Basic, Quantity]) -> set[sympy.Basic]:
    """``start`` and every symbol read from it, through the definitions of the quantities
    ``quantities`` maps those symbols to (transitively); other symbols end the walk."""
    found = set(start)
    todo = list(found)
    while todo:
        quantity = quantities.get(todo.pop())
        if quantity is None:
            continue
        for symbol in reads(quantity):
            if symbol not in found:
                found.add(symbol)
                todo.append(symbol)
    return found
