"""Closed forms: every quantity of a model in terms of its inputs only, computed in one place.

The docs' equations (``symbolic.codegen.latex``), the definedness check
(``symbolic.analysis.domains``), the derivations and ``symbolic.analysis.derive`` all read closed forms
from here. Each model's raw forms are built once (one pass over its steps) and each
simplified form once per quantity, then shared for the life of the process.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy

from symbolic.model.functions import MaxOver
from symbolic.model import ListQuantity, Quantity, ScenarioModel, TextQuantity

_RAW: dict[int, tuple[ScenarioModel, dict[sympy.Basic, sympy.Basic]]] = {}
_SIMPLEST: dict[tuple[int, sympy.Basic], sympy.Basic] = {}
_SHOWN: dict[int, tuple[ScenarioModel, dict[str, tuple[sympy.Basic, tuple[sympy.Basic, ...]]]]] = {}


def simplest(expr: sympy.Expr) -> sympy.Expr:
    """The shortest of a few standard rewritings (deterministic: ties broken by text)."""
    if expr.has(sympy.Sum, sympy.Product, MaxOver, sympy.Min, sympy.Max, sympy.floor, sympy.ceiling) or sympy.count_ops(expr) > 40:
        candidates = [expr, sympy.factor_terms(expr)]  # expanding or factoring these is slow and rarely shorter
    else:
        candidates = [expr, sympy.expand(expr), sympy.factor_terms(sympy.expand(expr)), sympy.factor(expr)]
    # min by (operation count, length of the text, text): the text (sympy's printer, the slow
    # part) is printed only for the candidates that tie on the operation count, once each
    counted = [(sympy.count_ops(e), e) for e in dict.fromkeys(candidates)]
    fewest = min(count for count, _ in counted)
    tied = [e for count, e in counted if count == fewest]
    if len(tied) == 1:
        return tied[0]
    return min(((len(text), text, e) for e in tied for text in (str(e),)), key=lambda t: (t[0], t[1]))[2]


def substitute(expr: sympy.Basic, closed: dict[sympy.Basic, sympy.Basic],
               lists: Mapping[sympy.Basic, ListQuantity]) -> sympy.Basic:
    """``expr`` with every quantity replaced by its closed form (list entries by their body)."""
    def entry(indexed: sympy.Indexed) -> sympy.Basic:
        quantity = lists[indexed.base]
        return closed[quantity.symbol].xreplace({quantity.limits[0]: indexed.indices[0]})

    expanded = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in lists, entry)
    return expanded.xreplace({s: v for s, v in closed.items() if not isinstance(s, sympy.IndexedBase)})


def raw_closed_forms(model: ScenarioModel) -> dict[sympy.Basic, sympy.Basic]:
    """Every quantity in terms of the inputs only, unsimplified, by symbol (built once per model)."""
    cached = _RAW.get(id(model))
    if cached is not None and cached[0] is model:
        return cached[1]
    closed: dict[sympy.Basic, sympy.Basic] = {}
    lists = {q.symbol: q for q in model.quantities if isinstance(q, ListQuantity) and q.limits}
    for quantity in model.quantities:
        closed[quantity.symbol] = substitute(quantity.expr, closed, lists)
    _RAW[id(model)] = (model, closed)  # the model is kept alive, so its id is not reused
    return closed


def closed_form(model: ScenarioModel, quantity: Quantity, simplify: bool = True) -> Any:
    """One quantity's closed form; text outputs and unsimplified forms are the raw one."""
    raw = raw_closed_forms(model)[quantity.symbol]
    if not simplify or isinstance(quantity, TextQuantity):
        return raw
    key = (id(model), quantity.symbol)
    if key not in _SIMPLEST:
        _SIMPLEST[key] = simplest(raw)
    return _SIMPLEST[key]


def shown_closed_forms(model: ScenarioModel) -> dict[str, tuple[sympy.Basic, tuple[sympy.Basic, ...]]]:
    """The closed forms the docs print, by path: each with the quantities it keeps by name.

    A quantity whose own form branches (a ``Piecewise``: a window's cases, an optional input's
    ``Given``) is kept by name in the forms of the quantities that read it; its cases are
    printed once, under its own heading. Inlined, they repeat in every reader (twice in a
    quotient) and run off the page. Everything else is inlined down to the inputs, as in
    ``closed_forms``, which the evaluator, domains and derivations keep using.
    """
    cached = _SHOWN.get(id(model))
    if cached is not None and cached[0] is model:
        return cached[1]
    inlined: dict[sympy.Basic, sympy.Basic] = {}
    branching: set[sympy.Basic] = set()
    lists = {q.symbol: q for q in model.quantities if isinstance(q, ListQuantity) and q.limits}
    shown: dict[str, tuple[sympy.Basic, tuple[sympy.Basic, ...]]] = {}
    for quantity in model.quantities:
        form = substitute(quantity.expr, inlined, lists)
        if isinstance(quantity, TextQuantity):
            inlined[quantity.symbol] = form
            shown[quantity.name] = (form, ())
            continue
        kept = tuple(sorted((s for s in branching if s in form.free_symbols), key=str))
        if not kept:  # nothing kept: the shared closed form (simplified once per process)
            shown[quantity.name] = (closed_form(model, quantity), ())
        else:
            shown[quantity.name] = (simplest(form) if isinstance(form, sympy.Expr) else form, kept)
        if form.has(sympy.Piecewise) and not isinstance(quantity.symbol, sympy.IndexedBase):
            branching.add(quantity.symbol)
            inlined[quantity.symbol] = quantity.symbol
        else:
            inlined[quantity.symbol] = form
    _SHOWN[id(model)] = (model, shown)
    return shown


def closed_forms(model: ScenarioModel) -> dict[str, sympy.Basic]:
    """Every quantity in terms of the inputs only, simplified, by path."""
    return {q.name: closed_form(model, q) for q in model.quantities}
