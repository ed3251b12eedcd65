"""Derivations from a scenario's declaration: closed forms, solving, derivatives, scaling.

Everything here is exact sympy over the same expressions the evaluators are generated
from. Symbols stand for physical values in base units (a declared ``µs`` input ``x`` is
``10⁻⁶·x`` seconds), so numbers for an instance are substituted in base units and
answers are converted back to the declared unit of the input solved for.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from symbolic.runtime.errors import MlsysymError, require_extra

require_extra("symbolic.derive (solve, scaling, closed forms)")

import sympy  # noqa: E402 (after the check that names the extra to install)
from sympy.printing.str import StrPrinter  # noqa: E402

from symbolic.closed import closed_form as shared_closed_form  # noqa: E402
from symbolic.dimensions import dimension_of_unit, scale_of_unit  # noqa: E402
from symbolic.functions import CeilLog2, Given, Len, MaxOver  # noqa: E402
from symbolic.list_entries import EntryError, entry_form, entry_keys, split  # noqa: E402
from symbolic.model import UNIT_SYMBOLS, InputDecl, ListQuantity, Quantity, ScalarQuantity, ScenarioModel  # noqa: E402


class DerivationError(MlsysymError, ValueError):
    """A derivation that cannot be done, with the reason (e.g. inverting a floor)."""


@lru_cache(maxsize=None)
def _models() -> dict[str, ScenarioModel]:
    from symbolic.codegen.discover import discover

    return {module.model.name: module.model for module in discover()}


def model_of(name: str) -> ScenarioModel:
    """The declaration of a scenario class, by class name."""
    models = _models()
    if name not in models:
        import difflib

        close = difflib.get_close_matches(name, list(models), n=3)
        raise DerivationError(f"no scenario class {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return models[name]


def quantity(model: ScenarioModel, name: str) -> Quantity:
    """An output (or table entry, group field, contained output) by its path, e.g. ``result.rate[host]``."""
    for candidate in model.quantities:
        if candidate.name == name and not candidate.hidden and isinstance(candidate, ScalarQuantity):
            return candidate
    import difflib

    names = [q.name for q in model.quantities if not q.hidden and isinstance(q, ScalarQuantity)]
    close = difflib.get_close_matches(name, names, n=3)
    base = name.partition("[")[0]
    listed = any(isinstance(q, ListQuantity) and q.name == base for q in model.quantities)
    entry = f"; {base!r} is a list output, and this takes one scalar output" if listed else ""
    hint = (f"; did you mean {', '.join(close)}?" if close else
            f"; its scalar outputs: {', '.join(names)}" if names else "; it has no scalar output")
    raise DerivationError(f"{model.name} has no scalar output {name!r}{entry}{hint}")


def input_decl(model: ScenarioModel, name: str) -> InputDecl:
    """A numeric scalar input (or a number a structured input resolves to) by name."""
    for decl in model.evaluator_inputs():
        if decl.name == name:
            if not decl.symbol.is_Symbol:
                raise DerivationError(f"{model.name}.{name} is a list; solve for a scalar input")
            return decl
    import difflib

    names = [d.name for d in model.evaluator_inputs() if d.symbol.is_Symbol]
    close = difflib.get_close_matches(name, names, n=3)
    raise DerivationError(f"{model.name} has no numeric input {name!r}"
                          + (f"; did you mean {', '.join(close)}?" if close else f" (inputs: {', '.join(names)})"))


def closed_form(subject: Any, output: str, simplify: bool = True) -> sympy.Expr:
    """``output`` in terms of the inputs only (simplified unless asked not to); ``subject`` is a
    scenario instance, class, class name or model."""
    return _closed_form(_Key(subject_of(subject)[0]), output, simplify)


class _Key:
    """Hashes a model by identity, for caches (models are mutable dataclasses)."""

    def __init__(self, model: ScenarioModel) -> None:
        self.model = model

    def __hash__(self) -> int:
        return id(self.model)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and other.model is self.model


@lru_cache(maxsize=1024)
def _closed_form(key: _Key, output: str, simplify: bool) -> sympy.Expr:
    return shared_closed_form(key.model, quantity(key.model, output), simplify)


class _NumbersPrinter(StrPrinter):
    """sympy's text printer, with chosen symbols shown as given text and the unit markers
    (``[flop]``, ``[s]``...) as 1 (every symbol is in base units). Printing the original
    expression, rather than one with the numbers put in, keeps the terms in the order of
    the definition."""

    def __init__(self, shown: dict[sympy.Basic, str]) -> None:
        super().__init__()
        self.shown = shown

    def _print(self, expr: Any, **kwargs: Any) -> str:
        # before the class dispatch: an Indexed prints itself through its own method, so a
        # _print_Indexed override would never see it
        if isinstance(expr, sympy.Basic) and expr in self.shown:
            return self.shown[expr]
        return super()._print(expr, **kwargs)

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        if expr in UNIT_SYMBOLS:
            return "1"
        return super()._print_Symbol(expr)


def printed(expr: sympy.Basic, shown: dict[sympy.Basic, str] | None = None) -> str:
    """``expr`` as text, unit markers dropped (base units), ``shown`` symbols as their text."""
    return _NumbersPrinter(shown or {}).doprint(expr.xreplace({s: sympy.S.One for s in UNIT_SYMBOLS}))


def unrolled(expr: sympy.Basic, integers: dict[sympy.Basic, int], lengths: dict[sympy.Basic, int],
             most: int = 16) -> sympy.Basic:
    """``expr`` with every sum and maximum over a range that ``integers`` (whole-number symbols)
    and ``lengths`` (of lists) fix written out term by term, up to ``most`` terms each: what
    ``explain`` shows so that a list's entries appear as numbers, not as ``Sum(w[l], ...)``."""
    fixed = {sym: sympy.Integer(value) for sym, value in integers.items()}

    def concrete(bound: sympy.Basic) -> sympy.Basic:
        bound = bound.replace(lambda e: isinstance(e, Len) and e.args[0] in lengths,
                              lambda e: sympy.Integer(lengths[e.args[0]]))
        return bound.xreplace(fixed)

    def expand(node: sympy.Basic) -> sympy.Basic:
        *inner, (index, low, high) = node.limits  # the last range is the outermost
        low, high = concrete(low), concrete(high)
        if not (low.is_Integer and high.is_Integer) or high - low + 1 > most:
            return node
        body = type(node)(node.function, *inner) if inner else node.function
        terms = [body.xreplace({index: sympy.Integer(k)}) for k in range(int(low), int(high) + 1)]
        if isinstance(node, MaxOver):
            return sympy.Max(*terms, evaluate=False) if len(terms) > 1 else (terms[0] if terms else node)
        return sympy.Add(*terms, evaluate=False) if terms else sympy.S.Zero

    for _ in range(3):  # nested ranges: the inner one is fixed once the outer one is written out
        expr = expr.replace(lambda e: isinstance(e, (sympy.Sum, MaxOver)), expand)
    return expr


def base_values(model: ScenarioModel, args: dict[str, Any]) -> dict[sympy.Basic, Any]:
    """Exact base-unit values of an instance's evaluator arguments (lists as lists)."""
    values: dict[sympy.Basic, Any] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
    for decl in model.evaluator_inputs():
        value = args.get(decl.name)
        default = decl.spec.default
        if value is None and isinstance(default, sympy.Basic) and not default.is_Number:
            computed = default.xreplace(values)  # a default computed from inputs above it (all in base units)
            if computed.is_number:
                values[decl.symbol] = computed
            continue
        if value is None:
            continue
        scale = scale_of_unit(decl.spec.unit)
        if isinstance(value, list):
            values[decl.symbol] = [sympy.nsimplify(v, rational=True) * scale for v in value]
        else:
            values[decl.symbol] = sympy.nsimplify(value, rational=True) * scale
    return values


def _defaults_put_in(expr: sympy.Basic, model: ScenarioModel, args: dict[str, Any],
                     unknown: dict[sympy.Basic, sympy.Basic]) -> sympy.Basic:
    """``expr`` with each input the instance leaves to an expression default (a sequence length
    defaulting to the workload's context) replaced by that expression, latest first so chains
    resolve, and so a default that reads the unknown keeps depending on it."""
    for decl in reversed(model.evaluator_inputs()):
        default = decl.spec.default
        if args.get(decl.name) is None and isinstance(default, sympy.Basic) and not default.is_Number:
            expr = expr.xreplace({decl.symbol: default.xreplace(unknown)})
    return expr


def substitute(expr: sympy.Basic, values: dict[sympy.Basic, Any]) -> sympy.Basic:
    """``expr`` with instance values put in (lists expanded through their sums and maxima)."""
    lists = {s: v for s, v in values.items() if isinstance(v, list)}
    scalars = {s: v for s, v in values.items() if not isinstance(v, list)}
    expr = expr.xreplace(scalars)
    # An optional input still a symbol here was not given: its Given(...) branch is not taken.
    expr = expr.replace(lambda e: isinstance(e, Given),
                        lambda e: sympy.false if any(not isinstance(s, sympy.Dummy) for s in e.inputs()) else e)
    expr = expr.replace(lambda e: isinstance(e, Len), lambda e: sympy.Integer(len(lists[e.args[0]])))
    expr = expr.doit()
    expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in lists,
                        lambda e: lists[e.base][int(e.indices[0])])
    return expr.doit()


@dataclass
class Solution:
    """The answers of ``solve``: symbolic, and numeric for an instance."""

    unknown: str
    unit: str
    expressions: list[tuple[sympy.Expr, sympy.Basic]] = field(default_factory=list)  # (solution, condition)
    values: list[float] = field(default_factory=list)  # in the input's declared unit
    notes: list[str] = field(default_factory=list)
    every_value: bool = False  # the equation holds whatever the unknown is


def _branches(expr: sympy.Basic, unknown: sympy.Symbol) -> list[tuple[sympy.Basic, sympy.Basic]]:
    """``(expr with each Min/Max replaced by one argument, condition for that choice)``; an
    ``otherwise=`` choice (a Piecewise on ``Given``) splits into its given and its fallback branch."""
    # atoms() is a set: sorted, so the branches (and the page listing them) come in one order in every process
    nodes = sorted((n for n in expr.atoms(sympy.Min, sympy.Max) if n.has(unknown)), key=sympy.default_sort_key)
    nodes += sorted((n for n in expr.atoms(sympy.Piecewise) if any(isinstance(c, Given) for _, c in n.args)),
                    key=sympy.default_sort_key)
    if not nodes:
        return [(expr, sympy.true)]
    branches = []
    for choice in itertools.product(*(range(len(n.args)) for n in nodes)):
        condition = sympy.true
        replace = {}
        for node, pick in zip(nodes, choice, strict=True):
            if isinstance(node, sympy.Piecewise):
                replace[node] = node.args[pick].expr
                earlier = [c for _, c in node.args[:pick]]
                taken = node.args[pick].cond
                condition = sympy.And(condition, *(sympy.Not(c) for c in earlier), taken, evaluate=False)
                continue
            chosen = node.args[pick]
            replace[node] = chosen
            for other in node.args:
                if other != chosen:
                    condition &= (chosen <= other) if isinstance(node, sympy.Min) else (chosen >= other)
        chosen_expr = expr
        for _ in range(len(nodes)):  # a choice nested in another's branch is put in on a later pass
            chosen_expr, before = chosen_expr.xreplace(replace), chosen_expr
            if chosen_expr == before:
                break
        branches.append((chosen_expr, condition))
    return branches


def is_entry(model: ScenarioModel, path: str) -> bool:
    """Whether ``path`` names one entry of a keyed list output (``result.ring_time[64]``)."""
    try:
        return split(model, path) is not None
    except EntryError as error:
        raise DerivationError(str(error)) from None


def _form(model: ScenarioModel, name: str, keys: dict[str, list[str]] | None) -> tuple[str, sympy.Basic]:
    """``(unit, unsimplified closed form)`` of a scalar output or of one entry of a keyed list output."""
    if not is_entry(model, name):
        found = quantity(model, name)
        return found.unit, closed_form(model, found.name, simplify=False)
    try:
        return entry_form(model, name, keys)
    except EntryError as error:
        raise DerivationError(str(error)) from None


def subject_of(subject: Any) -> tuple[ScenarioModel, dict[str, Any] | None]:
    """The declaration behind ``subject`` (an instance, a scenario class, its name or its
    model) and, for an instance, its evaluator arguments."""
    from symbolic.runtime.scenario import ScenarioBase

    if isinstance(subject, ScenarioModel):
        return subject, None
    if isinstance(subject, ScenarioBase):
        return model_of(type(subject).__name__), subject._args
    if isinstance(subject, type) and issubclass(subject, ScenarioBase):
        return model_of(subject.__name__), None
    if isinstance(subject, str):
        return model_of(subject), None
    raise DerivationError(f"expected a scenario instance, a scenario class or its name, got {subject!r}")


def solve(subject: Any, unknown: str, output: str, target: str | Any,
          args: dict[str, Any] | None = None, symbolic: bool = True,
          keys: dict[str, list[str]] | None = None) -> Solution:
    """Solve ``output = target`` for the input ``unknown``.

    ``subject`` is a scenario instance (its other inputs give numeric answers), a scenario
    class or its name (symbolic answers only). ``target`` is another output's name or a
    value: a pint Quantity of the output's dimension, or a bare number in the output's
    display unit; it must be finite. The symbolic solutions (``symbolic=True``) are in every
    other input, all in base units (s, byte, flop); for an instance (or with ``args``, an
    instance's evaluator arguments) the real solutions inside the unknown's domain are
    returned as numbers, in the unknown's declared unit. Min/Max are solved branch by
    branch, each solution with the condition of its branch. When the equation holds
    whatever the unknown is, ``every_value`` is True and a note says so.

    ``output`` (or ``target``) may name one entry of a keyed list output, ``result.ring_time[64]``
    or ``result.times[NDR][shard]``: its position comes from the instance's keys (``keys``, the
    key names of each list input; taken from an instance subject), and it is solved numerically.

        >>> from generated import Q_, Scenarios
        >>> fit = solve(Scenarios.PhoneFullUpdateWorkingSet, "parameters", "total", Q_(8, "GiB"))
        >>> round(fit.values[0]), fit.unit
        (238609294, '')
        >>> solve(Scenarios.MnistTwoLayerTrainingStepOnH100, "batch_size", "parameters", 101770).notes
        ['holds for every batch_size: parameters does not depend on batch_size here']
    """
    model, instance_args = subject_of(subject)
    args = instance_args if args is None else args
    if keys is None and hasattr(subject, "_given"):
        keys = entry_keys(subject._given)
    decl = input_decl(model, unknown)
    unit, lhs = _form(model, output, keys)
    if isinstance(target, str):
        try:
            target_unit, rhs = _form(model, target, keys)
        except DerivationError as error:  # "8 GiB" is read as an output's name: say how to give a value
            raise DerivationError(f"the target {target!r} is not an output ({error}); a target value is a number "
                                  f"or a Quantity, e.g. Q_({target!r})") from None
        if dimension_of_unit(target_unit) != dimension_of_unit(unit):
            raise DerivationError(f"{output} and {target} have different dimensions")
    else:
        rhs = _base_number(target, unit, output)
    if any(f.has(decl.symbol) for f in (lhs - rhs).atoms(sympy.floor, sympy.ceiling)):
        raise DerivationError(f"{output} depends on {unknown} through a floor or ceiling (a step function): every value is "
                              "taken on a whole interval, so it cannot be inverted to one input value")
    z = sympy.Dummy(unknown, positive=True) if decl.spec.positive else sympy.Dummy(unknown, nonnegative=True)
    equation = (lhs - rhs).xreplace({decl.symbol: z})
    solution = Solution(unknown, decl.spec.unit)
    scale = scale_of_unit(decl.spec.unit)
    plain = {symbol: sympy.S.One for symbol in UNIT_SYMBOLS}  # shown answers: every symbol in base units
    if symbolic:
        # an input whose expression default reads the unknown follows it when left out (adapter_parameters =
        # L·k·r·(d_in + d_out) for the rank r): that case is solved too, under the condition that it is left out
        cases = [(equation, sympy.true)]
        following = [d for d in model.evaluator_inputs() if isinstance(d.spec.default, sympy.Basic)
                     and decl.symbol in d.spec.default.free_symbols and equation.has(d.symbol)]
        if following:
            left_out = sympy.And(*(sympy.Not(Given(d.symbol)) for d in following))
            cases.append((_defaults_put_in(equation, model, {}, {decl.symbol: z}), left_out))
        for case, assumed in cases:
            for branch, chosen in _branches(case, z):
                if _identically_zero(branch):
                    continue
                condition = chosen if assumed is sympy.true else sympy.And(assumed, chosen)
                for expr in _roots(branch, z, condition, solution):
                    shown = expr.xreplace({z: decl.symbol, **plain})  # in base units, like every other symbol
                    solution.expressions.append((sympy.simplify(shown),
                                                 condition.xreplace({z: decl.symbol, **plain})))
    if args is None:
        if symbolic and _identically_zero(equation):
            solution.every_value = True
            solution.notes.append(f"holds for every {unknown}: {output} equals {target} identically")
        return solution
    values = base_values(model, args)
    values.pop(decl.symbol, None)
    numeric = substitute(_defaults_put_in(equation, model, args, {decl.symbol: z}), values)
    everywhere = []
    for branch, condition in _branches(numeric, z):
        if _identically_zero(branch):
            everywhere.append(condition)
            continue
        for root in _roots(branch, z, condition, solution):
            if not (root.is_real and root.is_number):
                continue
            holds = condition.xreplace({z: root}) if condition is not sympy.true else sympy.true
            if holds is not sympy.true or root < 0 or (decl.spec.positive and root == 0):
                continue
            top = decl.spec.maximum
            if top is not None and (root / scale > top or (decl.spec.strict_maximum and root / scale == top)):
                continue
            value = float(root / scale)
            if math.isfinite(value):
                solution.values.append(value)
            else:
                solution.notes.append(f"a solution, {sympy.N(root / scale, 6)}, is beyond the range of double "
                                      "precision")
    solution.values = sorted(set(solution.values))
    if decl.spec.integer:
        for value in solution.values:
            if not float(value).is_integer():
                solution.notes.append(f"{unknown} is a whole number: the equality holds between "
                                      f"{int(value)} and {int(value) + 1}")
    depends = numeric.has(z)
    if any(condition is sympy.true for condition in everywhere):
        solution.every_value = True
        output_depends = substitute(lhs.xreplace({decl.symbol: z}), values).has(z)
        reason = f"{output} = {target} identically" if output_depends else f"{output} does not depend on {unknown} here"
        solution.notes.append(f"holds for every {unknown}: {reason}")
    elif everywhere:
        where = " or ".join(str(c.xreplace({z: decl.symbol, **plain})) for c in everywhere)
        solution.notes.append(f"holds for every {unknown} where {where} (symbols in base units)")
    elif not depends:
        solution.notes.append(f"{output} does not depend on {unknown} at this instance, and differs from {target}: "
                              "no value of it gives equality")
    elif not solution.values and not any("beyond the range" in note for note in solution.notes):
        solution.notes.append(f"no real solution inside the domain of {unknown} at this instance")
    return solution


def _identically_zero(expr: sympy.Basic) -> bool:
    return expr == 0 or (not _nonzero_somewhere(expr) and sympy.simplify(expr) == 0)


def _nonzero_somewhere(expr: sympy.Basic) -> bool:
    """True when ``expr``, evaluated exactly at one point its symbols' assumptions allow, is a
    finite nonzero number: then it is not identically zero and ``simplify`` (slow) is not needed.
    False means "not shown", never "zero"."""
    if expr.has(sympy.Float, sympy.Indexed, sympy.IndexedBase, sympy.Sum, MaxOver):
        return False  # rounding or unevaluated parts: leave it to simplify
    point = {}
    for number, symbol in enumerate(sorted(expr.free_symbols, key=str)):
        value = sympy.Integer(number + 2) if symbol.is_integer else sympy.Rational(2 * number + 3, number + 11)
        if not isinstance(symbol, sympy.Symbol) or any(
                getattr(value, f"is_{fact}") is not holds for fact, holds in symbol.assumptions0.items()):
            return False  # a point outside the symbol's declared domain proves nothing
        point[symbol] = value
    at = expr.xreplace(point)
    return bool(at.is_number and at.is_finite and at.is_zero is False)


def _roots(branch: sympy.Expr, unknown: sympy.Symbol, condition: sympy.Basic, solution: Solution) -> list[sympy.Expr]:
    if not branch.has(unknown):
        return []  # this branch does not depend on the unknown (e.g. the peak side of a roofline)
    try:
        return list(sympy.solve(branch, unknown))
    except NotImplementedError:
        solution.notes.append(f"sympy found no closed form for the branch where {condition}")
        return []


def _base_number(target: Any, unit: str, output: str) -> sympy.Expr:
    """A target value in base units, exactly; refuses a non-finite or non-numeric target."""
    if hasattr(target, "units"):
        if target.dimensionality != dimension_of_unit(unit):
            raise DerivationError(f"{output} is {unit or 'dimensionless'}; got {target} of {target.dimensionality}")
        try:
            magnitude, scale = target.magnitude, target.to_base_units().magnitude / target.magnitude
        except Exception as error:  # pint, or a zero magnitude: convert the unit alone
            try:
                magnitude, scale = target.magnitude, (1 * target.units).to_base_units().magnitude
            except Exception:
                raise DerivationError(f"{output}: {error}") from None
        return _exact(magnitude, output) * _exact(scale, output)
    return _exact(target, output) * scale_of_unit(unit)


def _exact(value: Any, output: str) -> sympy.Expr:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) and not hasattr(value, "__float__"):
        raise DerivationError(f"{output}: the target must be a number, a Quantity or an output name, got {value!r}")
    try:
        exact = sympy.nsimplify(value, rational=True)
    except (TypeError, ValueError, sympy.SympifyError) as error:
        raise DerivationError(f"{output}: cannot read the target {value!r} as a number ({error})") from None
    if exact.is_finite is not True:
        raise DerivationError(f"{output}: the target is {value}; solve needs a finite value")
    return exact


def derivative(subject: Any, output: str, with_respect_to: str) -> sympy.Expr:
    """The exact partial derivative of an output's closed form (in base units); a floor
    counts as its argument (its trend; its exact derivative is 0 between steps)."""
    return _derivative(_Key(subject_of(subject)[0]), output, with_respect_to)


@lru_cache(maxsize=1024)
def _derivative(key: _Key, output: str, with_respect_to: str) -> sympy.Expr:
    decl = input_decl(key.model, with_respect_to)
    form = closed_form(key.model, output, simplify=False)
    # A floor is differentiated as its argument (its trend), as in the generated gradients.
    form = form.replace(lambda e: isinstance(e, (sympy.floor, sympy.ceiling)), lambda e: e.args[0])
    return sympy.diff(form, decl.symbol)


def growth(expr: sympy.Basic, variables: set[sympy.Basic]) -> sympy.Rational:
    """The leading power of ``expr`` as every variable grows together (x -> t·x, t -> ∞).

    Sums take their largest power, products add, Min/Max take the smaller/larger (the
    branch that wins asymptotically), floors follow their argument, list sums count their
    terms' power in the list entries.
    """
    if expr.is_Number:
        return sympy.Integer(0)
    if expr in variables or (isinstance(expr, sympy.Indexed) and expr.base in variables):
        return sympy.Integer(1)
    if expr.is_Symbol or isinstance(expr, (sympy.Indexed, Len)):
        return sympy.Integer(0)
    if isinstance(expr, sympy.Add):
        return max(growth(arg, variables) for arg in expr.args)
    if isinstance(expr, sympy.Mul):
        return sum((growth(arg, variables) for arg in expr.args), sympy.Integer(0))
    if isinstance(expr, sympy.Pow) and expr.exp.is_Number:
        return growth(expr.base, variables) * expr.exp
    if isinstance(expr, sympy.Pow) and not (expr.exp.free_symbols & variables):
        return growth(expr.base, variables) * expr.exp  # m^(-α) grows as the power -α of m
    if isinstance(expr, sympy.Pow):
        raise DerivationError(f"{expr} has a growing input in its exponent: not a power law")
    if isinstance(expr, sympy.Min):
        return min(growth(arg, variables) for arg in expr.args)
    if isinstance(expr, sympy.Max):
        return max(growth(arg, variables) for arg in expr.args)
    if isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Abs)):
        return growth(expr.args[0], variables)
    if isinstance(expr, (sympy.log, CeilLog2)):
        return sympy.Integer(0)  # slower than any power
    if isinstance(expr, (sympy.Sum, MaxOver)):
        return growth(expr.function, variables)
    if isinstance(expr, sympy.Product):
        if growth(expr.function, variables) == 0:
            return sympy.Integer(0)
        raise DerivationError(f"a product over a list grows with the list's length: {expr}")
    raise DerivationError(f"no growth rule for {type(expr).__name__}: {expr}")


GROWTH_WORDS = {0: "constant", 1: "linear", 2: "quadratic", 3: "cubic", -1: "inverse"}


def growth_word(power: Any) -> str:
    """``1`` -> "linear", ``-1`` -> "inverse", ``3/2`` -> "power 3/2", None -> "not a power law"."""
    if power is None:
        return "not a power law"
    if sympy.sympify(power).is_Integer and int(power) in GROWTH_WORDS:
        return GROWTH_WORDS[int(power)]
    return f"power {power}"


@dataclass
class Scaling:
    output: str
    per_input: dict[str, sympy.Expr | None]  # leading power in each input alone (None: not a power law)
    overall: sympy.Expr | None  # leading power when every input grows together
    polynomial: bool


def _growth_or_none(expr: sympy.Basic, variables: set[sympy.Basic]) -> sympy.Expr | None:
    """The leading power, or None where the growth is not a power law (2^(1/α) in α)."""
    try:
        return growth(expr, variables)
    except (DerivationError, TypeError):  # TypeError: two symbolic powers sympy cannot order
        return None


def scaling(subject: Any, output: str) -> Scaling:
    """Leading-order growth of ``output`` in each input, and overall; ``subject`` is a
    scenario instance, class, class name or model (growth is a property of the class).

        >>> from generated import Scenarios
        >>> total = scaling(Scenarios.PhoneFullUpdateWorkingSet, "total")
        >>> total.per_input["parameters"], total.overall, total.polynomial
        (1, 3, True)
    """
    model, _ = subject_of(subject)
    form = closed_form(model, output)
    inputs = [d for d in model.evaluator_inputs() if d.symbol in form.free_symbols
              or (isinstance(d.symbol, sympy.IndexedBase) and form.has(d.symbol))]
    per_input = {d.name: _growth_or_none(form, {d.symbol}) for d in inputs}
    overall = _growth_or_none(form, {d.symbol for d in inputs})
    denominator = sympy.denom(sympy.together(form))
    polynomial = not form.has(sympy.Min, sympy.Max, sympy.floor, sympy.ceiling, MaxOver) and not any(
        denominator.has(d.symbol) for d in inputs)
    return Scaling(quantity(model, output).name, per_input, overall, polynomial)
