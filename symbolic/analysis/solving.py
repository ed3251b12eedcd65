"""Solving a scenario's declaration for an input: ``output = target``, exactly, branch by branch.

``solve`` works on the closed forms ``symbolic.analysis.derive`` builds (symbols in base units), splits
Min/Max and ``otherwise=`` choices into branches with their conditions, and answers
symbolically and, for an instance, numerically in the input's declared unit.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from symbolic.runtime.errors import InfeasibleError, ScenarioInputError, require_extra
from symbolic.runtime.feasibility import refuse_infeasible
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.units import Q_, parse_quantity

require_extra("symbolic.analysis.solving (solve)")

import sympy  # noqa: E402 (after the check that names the extra to install)

from symbolic.analysis.derive import (  # noqa: E402
    DerivationError,
    defaults_put_in,
    base_values,
    input_decl,
    output_form,
    subject_of,
    substitute,
)
from symbolic.analysis.dimensions import dimension_of_unit, scale_of_unit  # noqa: E402
from symbolic.model.feasibility import guarded_outputs  # noqa: E402
from symbolic.model.functions import Given, MaxOver  # noqa: E402
from symbolic.analysis.list_entries import entry_keys  # noqa: E402
from symbolic.model import UNIT_SYMBOLS  # noqa: E402


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


def solve(subject: Any, unknown: str, output: str, target: str | Any,
          args: dict[str, Any] | None = None, symbolic: bool = True,
          keys: dict[str, list[str]] | None = None, scenario: Any = None) -> Solution:
    """Solve ``output = target`` for the input ``unknown``.

    ``subject`` is a scenario instance (its other inputs give numeric answers), a scenario
    class or its name (symbolic answers only). ``target`` is another output's name or a
    value: a pint Quantity of the output's dimension, text read as the command line reads
    it (``"8 GiB"``), or a bare number in the output's display unit; it must be finite. The symbolic solutions (``symbolic=True``) are in every
    other input, all in base units (s, byte, flop); for an instance (or with ``args``, an
    instance's evaluator arguments) the real solutions inside the unknown's domain are
    returned as numbers, in the unknown's declared unit. Min/Max are solved branch by
    branch, each solution with the condition of its branch. When the equation holds
    whatever the unknown is, ``every_value`` is True and a note says so.

    ``output`` (or ``target``) may name one entry of a keyed list output, ``result.ring_time[64]``
    or ``result.times[NDR][shard]``: its position comes from the instance's keys (``keys``, the
    key names of each list input; taken from an instance subject), and it is solved numerically.

    An instance (``subject``, or ``scenario`` beside a model and its ``args``) is held to the ``Fits``
    guarding ``output`` or ``target``: one that fails whatever the unknown is refuses the question
    (``InfeasibleError``); one that reads the unknown drops each solution where it fails.

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
    unit, lhs = output_form(model, output, keys)
    if isinstance(target, str) and names_an_output(target):
        try:
            target_unit, rhs = output_form(model, target, keys)
        except DerivationError as error:
            raise DerivationError(f"the target {target!r} is not an output ({error}); a target value is a number "
                                  "with an optional unit, e.g. '8 GiB'") from None
        if dimension_of_unit(target_unit) != dimension_of_unit(unit):
            raise DerivationError(f"{output} and {target} have different dimensions")
    else:
        if isinstance(target, str):  # "8 GiB", "8GiB", "1e6": read as the command line reads --where total=8GiB
            try:
                target = parse_quantity(target, f"the target of {output}")
            except ScenarioInputError as error:
                raise DerivationError(str(error)) from None
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
            cases.append((defaults_put_in(equation, model, {}, {decl.symbol: z}), left_out))
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
    numeric = substitute(defaults_put_in(equation, model, args, {decl.symbol: z}), values)
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
    scenario = subject if isinstance(subject, ScenarioBase) else scenario
    if isinstance(scenario, ScenarioBase):
        _refuse_infeasible(scenario, model, unknown, [output] + ([target] if isinstance(target, str) else []), solution)
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


def _refuse_infeasible(scenario: ScenarioBase, model: Any, unknown: str, paths: list[str], solution: Solution) -> None:
    """The ``Fits`` guarding ``paths``: one failing at the instance and not reading ``unknown`` refuses the
    question; one reading it keeps only the solutions where it holds (refused when none is left)."""
    under = guarded_outputs(model)
    names = {name for path in paths for name in under.get(path) or under.get(path.split("[", 1)[0] + "[]", ())}
    for fits in type(scenario)._fits:
        if fits.name not in names:
            continue
        if unknown not in fits.inputs:
            refuse_infeasible(scenario, (fits.name,), paths[0])
            continue
        kept: list[float] = []
        dropped: list[float] = []
        for value in solution.values:
            # a whole-number unknown between two integers (3299.92 tokens): it fits if a neighbour does
            near = sorted({math.floor(value), math.ceil(value)} - {0}) if float(value).is_integer() is False \
                and input_decl(model, unknown).spec.integer else [value]
            holds = any(getattr(scenario.variant(**{unknown: Q_(v, solution.unit) if solution.unit else v}),
                                fits.name) is not False for v in near)
            (kept if holds else dropped).append(value)
        if dropped:
            solution.notes.append(f"{unknown} = {', '.join(f'{v:.6g}' for v in dropped)} dropped: there "
                                  f"'{fits.name}' is False ({fits.message})")
            if not kept:
                raise InfeasibleError(f"{type(scenario).__name__}: no {unknown} gives {paths[0]} its target in a setup "
                                      f"that fits: {fits.message}, which fails at every solution "
                                      f"({', '.join(f'{v:.6g} {solution.unit}'.strip() for v in dropped)}); "
                                      f"'{fits.name}' is False there")
        solution.values = kept


def names_an_output(text: str) -> bool:
    """A target is an output's path when it starts as a name does (``memory_time``,
    ``result.times[NDR]``); a value starts with a digit, a sign or a point (``8 GiB``)."""
    first = text.strip()[:1]
    return first.isidentifier()


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
