"""The one dependency walk: what a quantity reads, directly and through other quantities
(``reads`` lives beside ``Quantity`` in ``collected.py``, whose ``evaluator_inputs`` needs it).

The evaluator's pruning and guards (``symbolic.codegen.python``), the exact evaluation's
``needed`` (``symbolic.analysis.exact``), the docs' symbol legends (``site_pages``) and
the evaluator's arguments (``ScenarioModel.evaluator_inputs``) all ask these two questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import sympy

from symbolic.model.collected import Quantity, reads

__all__ = ["closure", "reads"]


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
