"""The commands of ``mlsysym``: each takes the parsed arguments and returns an exit status."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from symbolic.cli.output import emit, outputs_of, shown, table
from symbolic.cli.values import UsageError, _nearest, build, instance, number, parse_vary, scenario_class

def cmd_list(args: argparse.Namespace) -> int:
    import generated

    entries = [(key, type(getattr(generated.Scenarios, key)).__name__, getattr(generated.Scenarios, key).name)
               for key in generated.Scenarios]
    classes = [(cls.__name__, (cls.__doc__ or "").split("\n")[0]) for cls in generated.SCENARIO_CLASSES]
    data = {"scenarios": [dict(zip(("name", "class", "title"), e, strict=True)) for e in entries],
            "classes": [dict(zip(("name", "summary"), c, strict=True)) for c in classes]}
    emit(args, data, table(entries, ("scenario", "class", "title")) + "\n\n" + table(classes, ("class", "summary")))
    return 0


def _report(args: argparse.Namespace, scenario: Any) -> int:
    outputs = outputs_of(scenario)
    data = {"name": scenario.name, "class": type(scenario).__name__, "inputs": scenario.inputs(),
            "outputs": {path: {"value": value, "unit": unit} for path, (value, unit) in outputs.items()}}
    rows = [(path, shown(value, unit)) for path, (value, unit) in outputs.items()]
    emit(args, data, f"{type(scenario).__name__}: {scenario.name}\n" + table(rows, ("output", "value")))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    return _report(args, instance(args.name))


def cmd_eval(args: argparse.Namespace) -> int:
    cls = scenario_class(args.scenario)
    base = instance(args.base) if args.base else None
    if base is not None and type(base) is not cls:
        raise UsageError(f"--from {args.base} is a {type(base).__name__}, not a {cls.__name__}")
    return _report(args, build(cls, base, args.set or []))


def cmd_sweep(args: argparse.Namespace) -> int:
    import numpy

    from symbolic.runtime.analysis import output_units
    from symbolic.runtime.sweep import sweep

    base = instance(args.name)
    varied = dict(parse_vary(v) for v in args.vary)
    grids = numpy.meshgrid(*[numpy.asarray(v, dtype=numpy.float64) for v in varied.values()], indexing="ij")
    columns = {name: grid.ravel() for name, grid in zip(varied, grids, strict=True)}
    rows = len(next(iter(columns.values())))
    units = {k.replace("[*]", ""): u for k, u in output_units(type(base)).items()}
    chunk = max(1, min(rows, 200_000))
    started, results = time.perf_counter(), []
    for first in range(0, rows, chunk):
        part = {name: values[first:first + chunk] for name, values in columns.items()}
        results.append(sweep(base, part))
        elapsed = time.perf_counter() - started
        if elapsed > 1.0 and not args.json:
            done = min(rows, first + chunk)
            bar = "#" * int(30 * done / rows)
            print(f"\r[{bar:<30}] {done}/{rows} rows, {elapsed:.1f} s", end="", file=sys.stderr, flush=True)
    if time.perf_counter() - started > 1.0 and not args.json:
        print(file=sys.stderr)
    merged = {path: numpy.concatenate([r[path] for r in results]) for path in results[0]}
    wanted = [o.strip() for o in args.outputs.split(",")] if args.outputs else list(merged)
    for path in wanted:
        if path not in merged:
            raise _nearest(path, list(merged), "output")
    table_data = {**columns, **{path: merged[path] for path in wanted}}
    if args.out:
        _write_sweep(args.out, table_data, units, list(varied))
    summary = f"{rows} rows x {len(wanted)} outputs" + (f" -> {args.out}" if args.out else "")
    if args.json and not args.out:
        print(json.dumps({k: v.tolist() for k, v in table_data.items()}))
    else:
        print(summary, file=sys.stderr if args.json else sys.stdout)
        if not args.out:
            preview = [[shown(float(table_data[c][i])) for c in table_data] for i in range(min(rows, 20))]
            print(table(preview, list(table_data)))
    return 0


def _write_sweep(path: str, data: dict[str, Any], units: dict[str, str], varied: list[str]) -> None:
    import numpy

    if path.endswith(".json"):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"columns": {k: {"unit": units.get(k, ""), "values": v.tolist()} for k, v in data.items()},
                       "varied": varied}, handle)
    elif path.endswith(".csv"):
        header = ",".join(f"{k} [{units[k]}]" if units.get(k) else k for k in data)
        numpy.savetxt(path, numpy.column_stack(list(data.values())), delimiter=",", header=header, comments="",
                      fmt="%.17g")
    else:
        raise UsageError(f"--out must end in .csv or .json, got {path!r}")


def cmd_sensitivity(args: argparse.Namespace) -> int:
    from symbolic.runtime.analysis import sensitivity

    rows = sensitivity(instance(args.name), args.output)
    data = [r.__dict__ for r in rows]
    text = table([(r.input, shown(r.value, r.unit), f"{r.derivative:.6g}", f"{r.elasticity:+.4f}") for r in rows],
                 ("input", "value", "d output / d input", "elasticity"))
    emit(args, data, f"{args.output} of {args.name}, inputs by elasticity (d ln y / d ln x):\n{text}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from symbolic.runtime.analysis import compare

    a, b = instance(args.a), instance(args.b)
    changed, changes = compare(a, b)
    data = {"inputs": {k: {"a": v[0], "b": v[1]} for k, v in changed.items()},
            "outputs": [c.__dict__ for c in changes]}
    inputs = table([(k, shown(v[0]), shown(v[1])) for k, v in changed.items()], ("input", args.a, args.b))
    rows = []
    for c in changes:
        top = ", ".join(f"{name} {share:+.3f}" for name, share in c.attribution[:3])
        rows.append((c.output, shown(c.before, c.unit), shown(c.after, c.unit), f"{c.relative:+.2%}", top))
    outputs = table(rows, ("output", args.a, args.b, "change", "first-order Δln by input"))
    emit(args, data, f"inputs that differ:\n{inputs}\n\noutputs that changed:\n{outputs}")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    import sympy

    from symbolic import derive

    target = instance(args.name)
    model = derive.model_of(type(target).__name__)
    if "=" not in args.where:
        raise UsageError(f"--where expects output=value or output=other_output, got {args.where!r}")
    left, _, right = (part.strip() for part in args.where.partition("="))
    names = {q.name for q in model.quantities}
    rhs = right if right in names else number(right)
    sums = any(derive.closed_form(model, name, simplify=False).has(sympy.Sum)
               for name in (left, right) if name in names)
    solution = derive.solve(model, args.unknown, left, rhs, target._args, symbolic=not sums)
    if sums:
        solution.notes.append("the closed form sums over a list input: the answer is numeric at this instance")
    data = {"unknown": solution.unknown, "unit": solution.unit, "values": solution.values,
            "expressions": [{"solution": str(e), "when": str(c)} for e, c in solution.expressions],
            "notes": solution.notes}
    lines = [f"{args.unknown} [{solution.unit or '1'}] with {args.where} (symbols in base units: s, byte, flop):"]
    for expr, condition in solution.expressions:
        lines.append(f"  symbolic: {args.unknown} = {expr}" + ("" if condition is True or str(condition) == "True"
                                                               else f"   when {condition}"))
    lines += [f"  at {args.name}: {args.unknown} = {shown(v, solution.unit)}" for v in solution.values]
    lines += [f"  note: {n}" for n in solution.notes]
    emit(args, data, "\n".join(lines))
    return 0


def cmd_scaling(args: argparse.Namespace) -> int:
    from symbolic import derive

    result = derive.scaling(derive.model_of(scenario_class(args.scenario).__name__), args.output)
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
    from symbolic import derive

    target = instance(args.name)
    model = derive.model_of(type(target).__name__)
    quantity = derive.quantity(model, args.output)
    value, unit = outputs_of(target)[quantity.name]
    flat = {**outputs_of(target)}
    import sympy

    shown_symbols = {}
    for symbol in quantity.expr.free_symbols:
        name = str(symbol)
        if name in flat:
            shown_symbols[symbol] = sympy.Symbol(f"({shown(*flat[name])})")
        elif name in target._args:
            decl = derive.input_decl(model, name)
            shown_symbols[symbol] = sympy.Symbol(f"({shown(target._args[name], decl.spec.unit)})")
    steps = {
        "definition": f"{quantity.name} = {sympy.sstr(quantity.expr)}",
        "closed form": f"{quantity.name} = {sympy.sstr(derive.closed_form(model, quantity.name))}",
        "numbers": f"{quantity.name} = {sympy.sstr(quantity.expr.xreplace(shown_symbols))}",
        "result": f"{quantity.name} = {shown(value, unit)}",
    }
    emit(args, {"output": quantity.name, "doc": quantity.doc, **steps},
         f"{quantity.name}: {quantity.doc}\n" + "\n".join(f"  {k:<12} {v}" for k, v in steps.items()))
    return 0
