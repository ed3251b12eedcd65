"""Where outputs are defined: every division must be by a quantity that the input domains
prove positive, so no valid input gives 0/0 or x/0.

Sympy's assumptions prove this for scalar inputs (a positive batch times a positive width
is positive). Sums and maxima over a list input are proven here: their terms are positive
when the list's entries are, and their range is not empty when the list's minimum length
says so; a floor is at least 1 when its argument is, and a requirement ``a >= b`` makes
``a`` equal to ``b`` plus something nonnegative (so ⌊E/b⌋ ≥ 1 when E ≥ b), ``a > b`` plus
something positive (so ``Require(x > 0, ...)`` proves a divisor ``x`` positive).
"""

from __future__ import annotations

import itertools

import sympy

from symbolic.model.feasibility import guarded_outputs
from symbolic.model.functions import Len, MaxOver
from symbolic.model.functions.declared import declarations, lookup
from symbolic.model import ListInput, ScalarQuantity, ScenarioModel
from symbolic.analysis.closed import closed_form
from symbolic.runtime.errors import UndefinedOutputError


def _entries_and_lengths(model: ScenarioModel) -> dict[sympy.Basic, sympy.Basic]:
    """Replacements: each list input's entries by one symbol of the entries' domain, its
    length by ``min_length + k`` with ``k`` a nonnegative integer, and each positive integer
    input by ``1 + k`` (so ``m + p - 1`` is proven positive for counts m, p ≥ 1)."""
    replace: dict[sympy.Basic, sympy.Basic] = {}
    for decl in model.evaluator_inputs():
        spec = decl.spec
        if isinstance(spec, ListInput):
            entry = sympy.Dummy(f"{decl.name}_entry", positive=spec.positive or None,
                                nonnegative=spec.nonnegative or spec.positive or None,
                                integer=spec.integer or None, real=True)
            if spec.minimum is not None:  # entries >= minimum: minimum plus a nonnegative excess
                entry = spec.minimum + sympy.Dummy(f"{decl.name}_excess", integer=spec.integer or None, nonnegative=True)
            replace[decl.symbol] = entry
            replace[Len(decl.symbol)] = spec.min_length + sympy.Dummy(f"{decl.name}_extra", integer=True,
                                                                      nonnegative=True)
        elif spec.integer and spec.positive and decl.symbol.is_Symbol:  # a positive integer is 1 + k, k >= 0
            replace[decl.symbol] = (spec.minimum or 1) + sympy.Dummy(f"{decl.name}_excess", integer=True,
                                                                      nonnegative=True)
        elif spec.minimum is not None and decl.symbol.is_Symbol:
            replace[decl.symbol] = spec.minimum + sympy.Dummy(f"{decl.name}_excess", nonnegative=True)
        elif decl.resolves.startswith("output:") and decl.symbol.is_Symbol:  # another instance's output: its sign
            sign = _output_sign(model, decl.structured, decl.resolves.removeprefix("output:"))
            if sign is not None:
                replace[decl.symbol] = sign
    for requirement in model.requirements:  # a >= b (a an input): a is b plus something nonnegative
        if requirement.unless or requirement.when:
            continue  # waived when its optional input is given: it proves nothing
        condition = requirement.condition  # (a > b: plus something positive)
        if isinstance(condition, (sympy.GreaterThan, sympy.StrictGreaterThan)) and condition.lhs.is_Symbol:
            strict = isinstance(condition, sympy.StrictGreaterThan)
            replace[condition.lhs] = condition.rhs + sympy.Dummy("excess", nonnegative=True, positive=strict or None)
    return replace


def _output_sign(model: ScenarioModel, name: str, path: str) -> sympy.Basic | None:
    """A symbol carrying the sign the scenario input ``name``'s class proves for its output ``path`` (positive,
    or nonnegative), so a sign proven there is not lost where the output is read here; None if unproven."""
    item = next((s for s in model.structured if s.name == name), None)
    inner: ScenarioModel | None = getattr(item, "scenario", None)
    if inner is None:
        return None
    quantity = next((q for q in inner.quantities if q.name == path), None)
    if quantity is None or not isinstance(quantity, ScalarQuantity):
        return None
    form = _reduced(closed_form(inner, quantity, simplify=False), _entries_and_lengths(inner))
    if form.is_positive:
        return sympy.Dummy(f"{name}_output", positive=True)
    if form.is_nonnegative:
        return sympy.Dummy(f"{name}_output", nonnegative=True)
    return None


def _below_maxima(model: ScenarioModel) -> dict[sympy.Basic, sympy.Basic]:
    """Replacements writing each input with an upper bound M as M minus something positive
    (below M) or nonnegative (at most M), so 1 - r is proven positive when r < 1. Tried
    beside the lower bounds, not with them: sympy's assumptions hold one side at a time."""
    replace: dict[sympy.Basic, sympy.Basic] = {}
    for decl in model.evaluator_inputs():
        spec = decl.spec
        if getattr(spec, "maximum", None) is not None and not isinstance(spec, ListInput):
            gap = sympy.Dummy(f"{decl.name}_gap", positive=spec.strict_maximum or None,
                              nonnegative=True)
            replace[decl.symbol] = sympy.nsimplify(spec.maximum) - gap
    return replace


def _record_checks(model: ScenarioModel) -> dict[sympy.Basic, sympy.Basic]:
    """Replacements from the checks of the workload records an input accepts (``sliding_layers <= layers``):
    the field bounded above is its bound minus something nonnegative (positive for ``<``). Tried as another
    set of upper bounds, so a field keeps its own domain wherever its check is not needed."""
    replace: dict[sympy.Basic, sympy.Basic] = {}
    for item in model.structured:
        for condition in getattr(item, "checks", ()):
            if isinstance(condition, (sympy.LessThan, sympy.StrictLessThan)):
                low, high = condition.lhs, condition.rhs
            elif isinstance(condition, (sympy.GreaterThan, sympy.StrictGreaterThan)):
                low, high = condition.rhs, condition.lhs
            else:
                continue
            if low.is_Symbol and low not in replace and low not in high.free_symbols:
                strict = isinstance(condition, (sympy.StrictLessThan, sympy.StrictGreaterThan))
                replace[low] = high - sympy.Dummy(f"{low}_gap", nonnegative=True, positive=strict or None)
    return replace


def _reduced(expr: sympy.Basic, replace: dict[sympy.Basic, sympy.Basic]) -> sympy.Basic:
    """``expr`` with list entries, lengths, sums and maxima replaced by symbols carrying
    what is known of their sign."""
    entries = {base: value for base, value in replace.items() if isinstance(base, sympy.IndexedBase)}
    plain = {key: value for key, value in replace.items() if not isinstance(key, sympy.IndexedBase)}
    expr = expr.xreplace(plain).replace(lambda e: isinstance(e, sympy.Indexed) and e.base in entries,
                                        lambda e: entries[e.base])

    def declared_sign(node: sympy.Basic) -> sympy.Basic:  # the function's own sign facts (symbolic.model.functions)
        found = lookup(node)
        replaced = found.sign(node, lambda arg: _reduced(arg, replace)) if found and found.sign else None
        return node if replaced is None else replaced

    declarations()
    expr = expr.replace(lambda e: (found := lookup(e)) is not None and found.sign is not None, declared_sign)

    def sign_of(node: sympy.Basic) -> sympy.Basic:
        (_, start, stop), = node.limits
        body = _reduced(node.function, replace)
        nonempty = isinstance(node, sympy.Product) or sympy.simplify(stop - start + 1).is_positive  # empty product: 1
        if body.is_positive and nonempty:
            return sympy.Dummy("positive_total", positive=True)
        if body.is_nonnegative:
            return sympy.Dummy("nonnegative_total", nonnegative=True)
        return sympy.Dummy("unknown_total", real=True)

    return expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product, MaxOver)), sign_of)


def _positive_by_cases(model: ScenarioModel, denominator: sympy.Basic, replace: dict[sympy.Basic, sympy.Basic],
                       upper: tuple[dict[sympy.Basic, sympy.Basic], ...]) -> bool:
    """Prove ``denominator`` positive case by case: each positive integer input that a
    requirement names is either 1 or 2 + k (k ≥ 0); cases a requirement rules out (``K·g ≥ 2``
    with K = g = 1) are skipped, and the denominator must be positive in every other case."""
    conditions = [r.condition for r in model.requirements if not r.unless and not r.when]
    named = set().union(*(c.free_symbols for c in conditions)) if conditions else set()
    counts = [decl.symbol for decl in model.evaluator_inputs()
              if decl.symbol in named and decl.symbol in denominator.free_symbols
              and decl.spec.integer and decl.spec.positive and decl.symbol.is_Symbol]
    if not counts or len(counts) > 4:
        return False
    for choice in itertools.product((False, True), repeat=len(counts)):
        case = {symbol: 2 + sympy.Dummy(f"{symbol}_above_two", integer=True, nonnegative=True) if above else sympy.S.One
                for symbol, above in zip(counts, choice, strict=True)}
        if any(condition.xreplace(case) is sympy.false for condition in conditions):
            continue  # a requirement excludes this case
        if not _proven_positive(sympy.simplify(denominator.xreplace(case)), replace, upper):
            return False
    return True


def unproven_divisions(model: ScenarioModel, closed: dict[str, sympy.Basic]) -> dict[str, list[sympy.Basic]]:
    """For each output, the denominators of its closed form not proven positive (usually none)."""
    replace = _entries_and_lengths(model)
    maxima = _below_maxima(model)
    checks = {low: bound.xreplace(replace) for low, bound in _record_checks(model).items()}  # bound in the lower forms
    upper = tuple(bounds for bounds in (maxima, checks, {**maxima, **checks} if maxima and checks else {})
                  if bounds) or ({},)
    under = guarded_outputs(model)
    found: dict[str, list[sympy.Basic]] = {}
    for quantity in model.quantities:
        if quantity.hidden or not isinstance(quantity, ScalarQuantity) or quantity.name not in closed:
            continue
        form = closed[quantity.name]
        known = {**replace, **_holding(model, under.get(quantity.name, ()), closed)}
        doubtful = []
        for denominator, guard in dict.fromkeys(_denominators(form, ())):  # each under its branch's conditions
            if guard and _proven_positive(denominator, {**known, **_assumed(guard, known)}, upper):
                continue
            if not _proven_positive(denominator, known, upper) and not _positive_by_cases(model, denominator, known,
                                                                                           upper):
                doubtful.append(denominator)
        if doubtful:
            found[quantity.name] = doubtful
    return found


def _denominators(expr: sympy.Basic, guard: tuple[sympy.Basic, ...]) -> list[tuple[sympy.Basic, tuple[sympy.Basic, ...]]]:
    """``(denominator, conditions it is read under)`` for every division in ``expr``: a division inside a
    ``Piecewise`` branch is read only where that branch's condition holds (and the earlier ones do not),
    one inside a sum's term only for its index in range."""
    found: list[tuple[sympy.Basic, tuple[sympy.Basic, ...]]] = []
    if isinstance(expr, sympy.Piecewise):
        earlier: list[sympy.Basic] = []
        for branch, condition in expr.args:
            found += _denominators(condition, guard + tuple(sympy.Not(c) for c in earlier))
            found += _denominators(branch, guard + (condition,) + tuple(sympy.Not(c) for c in earlier))
            earlier.append(condition)
        return found
    if isinstance(expr, (sympy.Sum, sympy.Product, MaxOver)) and len(expr.limits) == 1:
        (index, start, stop), = expr.limits  # a term is read only for start <= index <= stop
        found += _denominators(expr.function, guard + (sympy.Ge(index, start, evaluate=False),
                                                       sympy.Le(index, stop, evaluate=False)))
        for limit in (start, stop):
            found += _denominators(limit, guard)
        return found
    if isinstance(expr, sympy.Pow) and expr.exp.is_negative:
        found.append((expr.base, guard))
    for arg in expr.args:
        if isinstance(arg, sympy.Basic):
            found += _denominators(arg, guard)
    return found


def _assumed(guard: tuple[sympy.Basic, ...], known: dict[sympy.Basic, sympy.Basic]) -> dict[sympy.Basic, sympy.Basic]:
    """What a branch's conditions say of its inputs, as replacements: ``x > a`` makes ``x`` ``a`` plus something
    positive, ``x >= a`` plus something nonnegative, ``x < a`` ``a`` minus something positive (and a negated
    condition the opposite); a condition on no single input says nothing."""
    relations: list[sympy.Basic] = []
    for condition in guard:  # a negated relation is its opposite relation already (sympy's Not(x > 0) is x <= 0)
        relations += list(condition.args) if isinstance(condition, sympy.And) else [condition]
    assumed: dict[sympy.Basic, sympy.Basic] = {}
    for relation in relations:
        if not isinstance(relation, (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan,
                                     sympy.LessThan)):
            continue
        big, small = ((relation.lhs, relation.rhs) if isinstance(relation, (sympy.StrictGreaterThan, sympy.GreaterThan))
                      else (relation.rhs, relation.lhs))
        strict = isinstance(relation, (sympy.StrictGreaterThan, sympy.StrictLessThan))
        gap = sympy.Dummy("branch_gap", positive=strict or None, nonnegative=True)
        if big.is_Symbol and big not in assumed and big not in small.free_symbols:
            assumed[big] = small.xreplace(known) + gap
        elif small.is_Symbol and small not in assumed and small not in big.free_symbols:
            assumed[small] = big.xreplace(known) - gap
    return assumed


def _proven_nonnegative(expr: sympy.Basic, replace: dict[sympy.Basic, sympy.Basic],
                        upper: tuple[dict[sympy.Basic, sympy.Basic], ...]) -> bool:
    for bounds in (replace, *({**replace, **extra} for extra in upper)):
        reduced = _reduced(expr, bounds)
        if reduced.is_nonnegative or sympy.factor(sympy.together(reduced)).is_nonnegative:
            return True
    return False


def outside_domains(model: ScenarioModel, closed: dict[str, sympy.Basic]) -> dict[str, list[str]]:
    """For each output, the declared functions it applies outside their domain (``LambertW`` of an argument not
    proven at least −1/e), as each declaration's message; usually none."""
    replace = _entries_and_lengths(model)
    upper = tuple(bounds for bounds in (_below_maxima(model),) if bounds) or ({},)
    found: dict[str, list[str]] = {}
    declarations()
    for name, form in closed.items():
        for node in sorted(form.atoms(sympy.Function), key=sympy.default_sort_key):
            declared = lookup(node)
            if declared is None or declared.domain is None:
                continue
            message = declared.domain(node, lambda expr: _proven_nonnegative(expr, replace, upper))
            if message:
                found.setdefault(name, []).append(message)
    return found


def _holding(model: ScenarioModel, names: tuple[str, ...], closed: dict[str, sympy.Basic]) -> dict[sympy.Basic, sympy.Basic]:
    """What an output guarded by ``Fits`` may assume (it exists only where they hold): ``need <= have`` with
    ``have`` an input makes it ``need`` plus something nonnegative (positive for ``need < have``)."""
    assumed: dict[sympy.Basic, sympy.Basic] = {}
    for fits in model.feasibility:
        have = closed.get(f"{fits.name}_have")
        if fits.name in names and have is not None and have.is_Symbol:
            excess = sympy.Dummy(f"{fits.name}_excess", nonnegative=True, positive=fits.strict or None)
            assumed[have] = closed[f"{fits.name}_need"] + excess
    return assumed


def _proven_positive(denominator: sympy.Basic, replace: dict[sympy.Basic, sympy.Basic],
                     upper: tuple[dict[sympy.Basic, sympy.Basic], ...]) -> bool:
    """Positive under the lower bounds, or under one set of upper bounds (the inputs' maxima, the workload
    records' checks, or both); each also over a common denominator (1/e - 1/c with c = e + x is x / (e (e + x)))."""
    for bounds in (replace, *({**replace, **extra} for extra in upper)):
        reduced = _reduced(denominator, bounds)
        if reduced.is_positive or sympy.factor(sympy.together(reduced)).is_positive:
            return True
    return False


def check_defined(model: ScenarioModel) -> None:
    """Refuse a scenario with an output that may divide by zero at some valid input."""
    closed = {q.name: closed_form(model, q, simplify=False)
              for q in model.quantities if not q.hidden and isinstance(q, ScalarQuantity)}
    for name, denominators in unproven_divisions(model, closed).items():
        shown = ", ".join(str(d) for d in denominators)
        raise UndefinedOutputError(
            f"{model.name}.{name}: divides by {shown}, which the input domains (and the conditions of the "
            "Piecewise branch it is in) do not prove positive; narrow a domain (positive=True, a ListInput "
            "min_length), add a Require, or guard the division with a Piecewise branch whose condition proves it, "
            "so no valid input gives x/0")
    for name, messages in outside_domains(model, closed).items():
        raise UndefinedOutputError(f"{model.name}.{name}: {messages[0]}")
