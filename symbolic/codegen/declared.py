"""Printing of function nodes from the declarations table (``symbolic.model.functions.declared``) only.

Every printer of the generator (Python, JavaScript, LaTeX) mixes in ``DeclaredFunctions`` first: a
function node is printed by the generator's own method for it when the printer class defines one in
this project (``Len``, a contained call), else by its declaration, else refused with the message that
says how to declare it. sympy's printing tables (``math.cosh``, ``Math.cosh``, ``\\cosh``) are never
reached for a function node, so an undeclared name is never printed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from symbolic.model.functions.declared import declarations, is_function, required


@lru_cache(maxsize=None)
def _own_method(printer: type, name: str) -> bool:
    """Whether the nearest ``name`` method of ``printer`` is written in this project (not sympy's table)."""
    for klass in printer.__mro__:
        if name in vars(klass):
            return klass.__module__.startswith("symbolic.")
    return False


class DeclaredFunctions:
    """The gate in front of sympy's dispatch; ``language`` is "python", "javascript" or "latex"."""

    language: str

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if is_function(expr) and not _own_method(type(self), f"_print_{type(expr).__name__}"):  # type: ignore[arg-type]
            declarations()  # every declaration module loaded
            printing = getattr(required(expr), self.language)
            if printing is not None:
                return str(printing(self, expr))
        return super()._print(expr, **kwargs)  # type: ignore[misc]
