"""The "Derivations" section of a scenario page, computed with ``symbolic.analysis.derive``.

For the outputs a scenario names in ``main_outputs``: their leading-order scaling in
each input, and their elasticities at each registry instance (exact derivatives of the
closed forms, evaluated with the instance's values). For each of its ``questions``
(input, output, output-or-value): the symbolic solution and its value at each instance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from symbolic.analysis import derive, solving
from symbolic.codegen.breaking import fit
from symbolic.codegen.latex import DocsLatexPrinter, latex_names
from symbolic.analysis.exact import instance_values
from symbolic.model.functions import MaxOver
from symbolic.model.instances import Instance
from symbolic.analysis.list_entries import entry_keys, missing_key
from symbolic.catalog.refs import value_of
from symbolic.model import UNIT_SYMBOLS, ScalarDecl, ScenarioModel
from symbolic.runtime.units import Q_


def derivations_markdown(model: ScenarioModel, instances: list[Instance],
                         legend: Callable[[set[sympy.Basic]], str], functions: dict[str, Any]) -> str:
    """Markdown of the section ("" when the scenario names no main outputs or questions).

    ``legend`` turns the symbols of a derived formula into a line of links to their
    definitions; ``functions`` are the scenario's compiled ``evaluate`` and ``gradient``
    (exact derivatives), which give the elasticities at each instance.
    """
    if not model.main_outputs and not model.questions:
        return ""
    printer = DocsLatexPrinter({**latex_names(model), **{s: "1" for s in UNIT_SYMBOLS}})
    lines = ["## Derivations", "",
             "Computed when the page is generated, by `symbolic.analysis.derive` and `symbolic.analysis.solving` from the same declaration "
             "(the command line gives the same answers: `mlsysym scaling`, `mlsysym sensitivity`, `mlsysym solve`).", ""]
    if model.main_outputs:
        lines += ["### How the main outputs scale", "",
                  "Leading power of each output as one input grows alone (others fixed), and as all grow together.", "",
                  "| output | by input | all together |", "| --- | --- | --- |"]
        for output in model.main_outputs:
            result = derive.scaling(model, output)
            per = ", ".join(f"`{name}` {derive.growth_word(power)}" for name, power in result.per_input.items()
                            if power != 0) or "constant"
            overall = "not a power law" if result.overall is None else f"power {result.overall}"
            lines.append(f"| `{result.output}` | {per} | {overall} |")
        lines.append("")
    for instance in instances:
        args = {name: _number(value) for name, value in instance_values(instance).items()}
        values, gradient = functions["evaluate"](**args), functions["gradient"](**args)
        rows = []
        for output in model.main_outputs:
            y = _lookup(values, output)
            if not y:
                continue
            elasticities = [(name, d * args[name] / y) for name, d in gradient.get(output, {}).items()
                            if args.get(name) is not None]  # an unset optional input (no window) has no slope
            ranked = sorted(((round(abs(e), 12), name, e) for name, e in elasticities if abs(e) > 1e-12),
                            key=lambda r: (-r[0], r[1]))
            top = ", ".join(f"`{name}` {e:+.3g}" for _, name, e in ranked[:4])
            choice = any(o.name == output and isinstance(o, ScalarDecl) and o.labels  # True/False: a step, no slope
                         for o in model.outputs)
            flat = "a choice: flat on either side of its switch" if choice else "depends on list inputs only"
            rows.append(f"| `{output}` | {top or flat} |")
        if rows:
            lines += [f"### Elasticities at `{instance.key}`", "",
                      "Percent change of the output per percent change of each input (d ln y / d ln x), "
                      "largest first.", "", "| output | elasticities |", "| --- | --- |", *rows, ""]
    for question in model.questions:
        lines += _question(model, instances, printer, question.solve_for, question.where, question.equals, legend)
    return "\n".join(lines) + "\n"


def _number(value: Any) -> Any:
    """An exact instance value as the evaluator takes it (ints stay ints)."""
    if isinstance(value, list):
        return [_number(v) for v in value]
    if value is None or isinstance(value, str):
        return value
    return int(value) if value.is_Integer else float(value)


def _lookup(values: dict[str, Any], path: str) -> Any:
    """``result.rate[host]`` in the evaluator's nested dict."""
    node: Any = values
    for part in path.replace("]", "").replace("[", ".").split("."):
        node = node[part]
    return node


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _given_values(model: ScenarioModel, instance: Instance) -> dict[str, Any]:
    """An instance's arguments as the runtime holds them: an input it leaves to an expression
    default stays out (solve puts the expression in, so a default reading the unknown follows it)."""
    given = instance.all_inputs()
    left = {decl.name for decl in model.inputs if given.get(decl.name) is None
            and isinstance(decl.spec.default, sympy.Basic) and not decl.spec.default.is_Number}
    return {k: v for k, v in _plain(instance_values(instance)).items() if k not in left}


def _question(model: ScenarioModel, instances: list[Instance], printer: DocsLatexPrinter,
              unknown: str, output: str, target: str, legend: Callable[[set[sympy.Basic]], str]) -> list[str]:
    names = {q.name for q in model.quantities}
    rhs: Any = target
    entries = [name for name in (output, target) if derive.is_entry(model, name)]
    names |= set(entries)
    if target not in names:
        rhs = Q_(target)
        if rhs.dimensionless:
            rhs = float(rhs.magnitude)
    shown_target = f"`{target}`" if target in names else target
    lines = [f"### Solving for `{unknown}` where `{output}` = {shown_target}", ""]
    decl = derive.input_decl(model, unknown)
    has_sums = any(derive.closed_form(model, name, simplify=False).has(sympy.Sum, sympy.Product, MaxOver)
                   for name in (output, target) if name in names and name not in entries)
    if entries:
        lines += [f"{' and '.join(f'`{e}`' for e in entries)}: one entry of a list each, at the position its key "
                  "has in each instance, so the answer is given per instance.", ""]
    elif has_sums:
        lines += ["The closed form sums over the list input, so the answer is given per instance.", ""]
    else:
        symbolic = solving.solve(model, unknown, output, rhs)
        for expr, condition in symbolic.expressions:
            when = "" if condition is sympy.true else rf" \quad \text{{when }} {printer.doprint(condition)}"
            lines += ["$$", fit(f"{decl.latex} = {printer.doprint(expr)}{when}"), "$$", ""]
            links = legend(expr.free_symbols | condition.free_symbols | {decl.symbol})
            if links:
                lines += [f"Symbols: {links}", ""]
        if not symbolic.expressions:
            lines += [f"No closed-form solution ({'; '.join(symbolic.notes) or 'sympy found none'}).", ""]
        lines += ["(Symbols in base units: second, byte, flop.)", ""]
    for instance in instances:
        keys = entry_keys({name: value_of(v) for name, v in instance.all_inputs().items()})
        lacks = [missing_key(model, name, keys) for name in entries]
        if any(lacks):
            lines += [f"- At `{instance.key}`: no {' and '.join(filter(None, lacks))}."]
            continue
        numbers = solving.solve(model, unknown, output, rhs, _given_values(model, instance), symbolic=False,
                               keys=keys)
        unit = f" {decl.spec.unit}" if decl.spec.unit else ""
        answer = ", ".join(f"{value:.6g}{unit}" for value in numbers.values) or "none in the domain"
        notes = "".join(f" {note}." for note in numbers.notes if "no real solution" not in note)
        lines += [f"- At `{instance.key}`: `{unknown}` = {answer}.{notes}"]
    return lines + [""]
