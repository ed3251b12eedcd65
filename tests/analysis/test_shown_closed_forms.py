"""The docs' closed forms keep an output that branches by name; kept or inlined, they are the same quantity."""

from __future__ import annotations

import sympy

from symbolic.analysis.closed import raw_closed_forms, shown_closed_forms, substitute
from symbolic.codegen.latex import equations
from symbolic.model import ListQuantity
from symbolic.scenarios.discover import discover

def _unfloored(expr: sympy.Basic) -> sympy.Basic:
    return expr.replace(lambda e: isinstance(e, (sympy.floor, sympy.ceiling)), lambda e: e.args[0])


MODELS = {module.model.name: module.model for module in discover()}


def test_readers_of_the_windowed_cache_keep_it_by_name():
    model = MODELS["KvDecodeBatchScenario"]
    shown = shown_closed_forms(model)
    m = next(q.symbol for q in model.quantities if q.name == "kv_per_sequence")
    form, kept = shown["kv_per_sequence"]
    assert form.has(sympy.Piecewise) and kept == ()  # its own equation shows the cases
    for name in ("rate_ceiling", "max_batch_in_memory", "batches_fit"):
        form, kept = shown[name]
        assert kept == (m,) and not form.has(sympy.Piecewise), name
    page = equations(model)
    assert page["rate_ceiling"].kept == "m"
    assert r"\begin{cases}" in page["kv_per_sequence"].closed + page["kv_per_sequence"].definition
    assert r"\begin{cases}" not in page["rate_ceiling"].closed


def test_putting_the_kept_outputs_back_gives_the_closed_form_in_the_inputs():
    """For every scenario: each shown form with its kept outputs replaced by their closed forms is the
    closed form the evaluator is generated from (compared at exact rational points)."""
    checked = 0
    for model in MODELS.values():
        raw = raw_closed_forms(model)
        lists = {q.symbol: q for q in model.quantities if isinstance(q, ListQuantity) and q.limits}
        for quantity in model.quantities:
            form, kept = shown_closed_forms(model)[quantity.name]
            if not kept:
                continue
            # floors as their argument on both sides (an identity either way), so no point rounds to 0 under a quotient
            back = _unfloored(substitute(form, {k: raw[k] for k in kept}, lists))
            want = _unfloored(raw[quantity.symbol])
            if any(isinstance(s, sympy.IndexedBase) or s in lists for s in back.free_symbols | want.free_symbols) \
                    or want.atoms(sympy.Indexed):
                continue  # a list input has no rational point (its length is a symbol of its own)
            symbols = sorted(back.free_symbols | want.free_symbols, key=str)
            compared = 0
            for seed in (3, 7, 11):  # magnitudes spread 1e-3..1e5 so branches vary
                point = {s: sympy.Rational(seed * (i + 2), 5 + i) * sympy.Integer(10) ** ((seed * i) % 9 - 3)
                         for i, s in enumerate(symbols)}
                a, b = back.xreplace(point), want.xreplace(point)
                if not (a.is_finite and b.is_finite):
                    continue
                assert sympy.simplify(a - b) == 0, (model.name, quantity.name, point)
                compared += 1
            assert compared, (model.name, quantity.name)
            checked += 1
    assert checked >= 30
