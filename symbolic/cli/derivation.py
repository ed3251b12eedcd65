"""The derivation commands of ``mlsysym`` (explain, solve, scaling): they read the symbolic declarations.

They need sympy (the ``generator`` extra): this module is loaded only when one of them runs (the CLI
loads each command's module on dispatch), so the evaluation commands start without it.
"""

from __future__ import annotations

import argparse
from typing import Any

from symbolic.analysis import derive, solving  # first: it names the extra to install when sympy is missing

import sympy  # after derive: its check for the extra comes first
from sympy.printing.str import StrPrinter

from symbolic.model.functions import Given

from symbolic.analysis.list_entries import entry_keys
from symbolic.cli.commands import called
from symbolic.cli.output import emit, shown, table
from symbolic.cli.usage import UsageError
from symbolic.cli.values import _nearest, built, parse_setting, scenario_class
from symbolic.codegen.explain import explain
from symbolic.runtime.units import label


def cmd_solve(args: argparse.Namespace) -> int:
    target = built(args.name, args.set or [])
    model = derive.model_of(type(target).__name__)
    if "=" not in args.where:
        raise UsageError(f"--where expects output=value or output=other_output, got {args.where!r}")
    left, _, right = (part.strip() for part in args.where.partition("="))
    if left.endswith(("<", ">", "!")) or right.startswith("=") or any(sign in right for sign in "<>"):
        raise UsageError(f"--where {args.where!r}: solve finds where an output equals a value or another output; "
                         "write one '=' (output=value), not a comparison")
    names = {q.name for q in model.quantities}
    entries = [name for name in (left, right) if derive.is_entry(model, name)]
    if right not in names and right not in entries and solving.names_an_output(right):  # misspelt
        raise _nearest(right, sorted(names), f"output (--where {left}=...)")
    sums = any(derive.closed_form(model, name, simplify=False).has(sympy.Sum)
               for name in (left, right) if name in names)
    # the value side is text read by solve itself, with the parser --set uses: one reading of "8GiB"
    solution = solving.solve(model, args.unknown, left, right, target._args, symbolic=not (sums or entries),
                             keys=entry_keys(target._given), scenario=target)
    if entries:
        solution.notes.append(f"{' and '.join(entries)}: one entry of a list, solved at this instance")
    if sums:
        solution.notes.append("the closed form sums over a list input: the answer is numeric at this instance")
    data = {"unknown": solution.unknown, "unit": solution.unit, "values": solution.values,
            "expressions": [{"solution": str(e), "when": str(c)} for e, c in solution.expressions],
            "notes": solution.notes}
    unit = label(solution.unit)
    lines = [f"{args.unknown}{f' [{unit}]' if unit else ''} with {args.where} (symbols in base units: s, B, flop):"]
    for expr, condition in solution.expressions:
        lines.append(f"  symbolic: {args.unknown} = {readable_math(expr)}"
                     + ("" if condition is True or str(condition) == "True" else f"   when {readable_math(condition)}"))
    lines += [f"  at {called(args.name, args.set)}: {args.unknown} = {shown(v, unit)}" for v in solution.values]
    lines += [f"  note: {n}" for n in solution.notes]
    emit(args, data, "\n".join(lines))
    return 0


class _ReadablePrinter(StrPrinter):
    """sympy's text, but an optional input's test reads as words: ``Given(K)`` -> ``K given``,
    ``~Given(K)`` -> ``K not given`` (sympy would print the internal function)."""

    def _print_Given(self, expr: Any) -> str:
        return ", ".join(self._print(arg) for arg in expr.inputs()) + " given"

    def _print_Not(self, expr: Any) -> str:
        (inner,) = expr.args
        if isinstance(inner, Given):
            return ", ".join(self._print(arg) for arg in inner.inputs()) + " not given"
        return "not " + self.parenthesize(inner, 100)


def readable_math(expr: Any) -> str:
    """An expression or condition as ``solve`` prints it."""
    return _ReadablePrinter().doprint(expr) if isinstance(expr, sympy.Basic) else str(expr)


def cmd_scaling(args: argparse.Namespace) -> int:
    if args.set:  # the inputs set are held at their values; growth is in the others
        subject: Any = built(args.scenario, args.set)
        held = [parse_setting(type(subject), setting)[0] for setting in args.set]
    else:  # growth is a property of the class: an entry's values do not enter
        subject, held = derive.model_of(scenario_class(args.scenario).__name__), []
    result = derive.scaling(subject, args.output, held=held)
    data = {"output": result.output, "per_input": {k: str(v) for k, v in result.per_input.items()},
            "overall": str(result.overall), "polynomial": result.polynomial}
    def power_of(power: Any) -> str:
        return "–" if power is None else f"x^{power}"

    rows = [(name, power_of(power), derive.growth_word(power)) for name, power in result.per_input.items()]
    text = table(rows, ("input", "leading power", "growth"))
    emit(args, data, f"{result.output}: leading-order growth as each input grows alone\n{text}\n"
                     f"all inputs together: {power_of(result.overall)}; "
                     f"{'a polynomial' if result.polynomial else 'not a polynomial'} in the inputs")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    explanation = explain(built(args.name, args.set or []), args.output)
    emit(args, explanation.as_dict(), explanation.text())
    return 0
