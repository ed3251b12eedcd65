"""The commands of ``mlsysym``: each takes the parsed arguments and returns an exit status."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from symbolic.cli.output import argument_labels, cell, choice_labels, emit, json_text, outputs_of, shown, table
from symbolic.cli.progress import drawn, line
from symbolic.runtime.display import DOES_NOT_FIT, absent_or_shown, keyed
from symbolic.runtime.paths import infeasible_paths
from symbolic.runtime.units import label
from symbolic.cli.usage import UsageError
from symbolic.cli.values import (_nearest, built, check_grid, instance, once_each, parse_vary,
                                 scenario_class)
import generated
from symbolic.cli.describe import input_rows, output_rows
from symbolic.cli.records import cmd_show_record, input_text, names_catalog_entry
from symbolic.cli.records import input_rows as entry_inputs
from symbolic.runtime.analysis import compare, flat_outputs, sensitivity
from symbolic.runtime.inputs import describe
from symbolic.runtime.namespace import Namespace
from symbolic.runtime.parameter_counts import workload_notes
from symbolic.runtime.sweep import sweep

def cmd_list(args: argparse.Namespace) -> int:
    if args.name in CATALOGS:
        return _catalog(args)
    if args.name and names_catalog_entry(args.name):  # list Hardware.Cloud.H100: the entry, as show gives it
        args.context, args.batch, args.precision = 8192, 1, "bf16"
        return cmd_show_record(args, args.name)
    if args.name:
        return _describe(args)
    entries = [(key, type(getattr(generated.Scenarios, key)).__name__, getattr(generated.Scenarios, key).name)
               for key in generated.Scenarios]
    classes = [(cls.__name__, (cls.__doc__ or "").split("\n")[0]) for cls in generated.SCENARIO_CLASSES]
    data = {"scenarios": [dict(zip(("name", "class", "title"), e, strict=True)) for e in entries],
            "classes": [dict(zip(("name", "summary"), c, strict=True)) for c in classes]}
    emit(args, data, table(entries, ("scenario", "class", "title")) + "\n\n" + table(classes, ("class", "summary")))
    return 0


CATALOGS = ("Hardware", "Models", "Datasets", "Systems", "Constants")


def _catalog(args: argparse.Namespace) -> int:
    """``list Models`` (or another catalog): every entry's path, as ``--set`` and Python take it."""

    def walk(namespace: Namespace, prefix: str) -> list[tuple[str, str]]:
        rows = []
        for key in namespace:
            entry = getattr(namespace, key)
            path = f"{prefix}.{key}"
            rows += walk(entry, path) if isinstance(entry, Namespace) else [(path, str(getattr(entry, "name", entry)))]
        return rows

    rows = walk(getattr(generated, args.name), args.name)
    emit(args, {"catalog": args.name, "entries": [{"path": p, "name": n} for p, n in rows]},
         table(rows, ("path", "name or value")))
    return 0


def _describe(args: argparse.Namespace) -> int:
    """``list X``: a class's inputs (what each expects, its default) and outputs (path, unit)."""
    cls = scenario_class(args.name)
    registry = generated.Scenarios
    example = getattr(registry, args.name) if args.name in registry else next(
        (getattr(registry, key) for key in registry if type(getattr(registry, key)) is cls), None)
    outputs = output_rows(cls, example)
    inputs: list[tuple[str, ...]] = list(input_rows(cls))
    if args.name in registry:  # an entry's own values beside what the class would take by default
        held = {name: input_text(value) for name, value in getattr(registry, args.name).inputs().items()}
        inputs = [(name, kind, unit, held.get(name, "–"), default, domain, doc)
                  for name, kind, unit, default, domain, doc in inputs]
    data = {"class": cls.__name__, "summary": (cls.__doc__ or "").split("\n")[0],
            "inputs": [{**info._asdict(), "unit": label(info.unit)} for info in describe(cls)],
            "outputs": [{"path": path, "unit": unit} for path, unit in outputs]}
    text = (f"{cls.__name__}: {data['summary']}\n\ninputs:\n"
            + table(inputs, ("input", "kind", "unit") + (("value in " + args.name,) if args.name in registry else ())
                    + ("default", "domain", "doc"))
            + "\n\noutputs" + (f" (table keys as in {args.name if args.name in registry else 'a registry entry'})"
                                if example is not None else "") + ":\n" + table(outputs, ("output", "unit")))
    emit(args, data, text)
    return 0


def _report(args: argparse.Namespace, scenario: Any, wanted: list[str] | None = None) -> int:
    outputs = outputs_of(scenario)
    if wanted:
        outputs = {path: outputs[path] for path in selected(wanted, list(outputs))}

    notes = workload_notes(scenario)  # which parameter count the numbers use, and the architecture's
    data = {"name": scenario.name, "class": type(scenario).__name__, "inputs": scenario.inputs(),
            "outputs": {path: {"value": value, "unit": unit} for path, (value, unit) in outputs.items()},
            "parameter_counts": notes}
    refused = infeasible_paths(scenario)  # outputs a setup that does not fit (or pay off) lacks: say so, not "absent"
    rows = [(path, DOES_NOT_FIT if value is None and (path in refused or path.split("[", 1)[0] + "[]" in refused)
             else shown(keyed(scenario, path, value), unit)) for path, (value, unit) in outputs.items()]
    footer = "".join(f"\n{name}: {note}" for name, note in notes.items())
    inputs = "" if wanted else table(entry_inputs(scenario), ("input", "value")) + "\n\n"  # what was asked, then
    emit(args, data, f"{type(scenario).__name__}: {scenario.name}\n" + inputs + table(rows, ("output", "value"))
         + footer)
    return 0


def selected(wanted: list[str], paths: list[str]) -> list[str]:
    """The paths named, each exactly or as a prefix (``host`` -> ``host.*``, ``op_flops`` ->
    ``op_flops[...]``), in the order of ``paths``; an unknown name is a usage error."""
    chosen: set[str] = set()
    for name in wanted:
        matches = [p for p in paths if p == name or p.startswith((name + ".", name + "["))]
        if not matches:
            raise _nearest(name, paths, "output")
        chosen.update(matches)
    return [p for p in paths if p in chosen]


def cmd_show(args: argparse.Namespace) -> int:
    if names_catalog_entry(args.name):  # show Hardware.Cloud.H100, show Models.Language.Llama3_70B
        if args.outputs:
            raise UsageError(f"{args.name} is a catalog entry: it has fields, not outputs to pick")
        return cmd_show_record(args, args.name)
    return _report(args, instance(args.name), args.outputs)


def cmd_eval(args: argparse.Namespace) -> int:
    # a registry name is a starting point as well as a class: `eval Gpt3ThreeDParallel1K --set pp_size=8`
    return _report(args, built(args.scenario, args.set or [], args.base), args.outputs)


def cmd_sweep(args: argparse.Namespace) -> int:
    import numpy

    varied = once_each((parse_vary(scenario_class(args.name), v) for v in args.vary), "--vary")
    both = [name for name in varied if any(s.partition("=")[0].strip() == name for s in args.set or [])]
    if both:  # the varied values would silently replace the --set one
        raise UsageError(f"{both[0]} is given to both --vary and --set; give it in one")
    base = built(args.name, args.set or [])
    available = list(flat_outputs(base))
    wanted = [o.strip() for o in args.outputs.split(",")] if args.outputs else available
    for path in wanted:
        if path not in available:
            raise _nearest(path, available, "output")
    rows = check_grid({name: len(values) for name, values in varied.items()}, len(varied) + len(wanted))
    if args.out:
        _check_writable(args.out)  # before the sweep runs, not after
    grids = numpy.meshgrid(*varied.values(), indexing="ij")
    columns = {name: grid.ravel() for name, grid in zip(varied, grids, strict=True)}
    chunk = max(1, min(rows, 200_000))
    started, results = time.perf_counter(), []
    for first in range(0, rows, chunk):
        part = {name: values[first:first + chunk] for name, values in columns.items()}
        results.append(sweep(base, part))
        elapsed = time.perf_counter() - started
        if elapsed > 1.0 and drawn(sys.stderr, args.json):  # a bar on a terminal, nothing on a pipe
            done = min(rows, first + chunk)
            print(f"\r{line(f'{done}/{rows} rows, {elapsed:.1f} s', done, rows)}", end="", file=sys.stderr,
                  flush=True)
    if time.perf_counter() - started > 1.0 and drawn(sys.stderr, args.json):
        print(file=sys.stderr)
    units = {**results[0].input_units, **results[0].units}
    table_data = {**columns, **{path: numpy.concatenate([r[path] for r in results]) for path in wanted}}
    if args.out:
        _write_sweep(args.out, table_data, units, list(varied))
    summary = f"{rows} rows x {len(wanted)} outputs" + (f" -> {args.out}" if args.out else "")
    if args.json and not args.out:
        print(json_text({"columns": {k: {"unit": units[k], "values": v.tolist()} for k, v in table_data.items()},
                         "varied": list(varied)}, indent=None))
    else:
        print(summary, file=sys.stderr if args.json else sys.stdout)
        if not args.out:
            named = {column: choice_labels(type(base), column) for column in table_data}
            preview = [[cell(float(table_data[c][i]), named[c]) for c in table_data] for i in range(min(rows, 20))]
            print(table(preview, [column_label(c, units[c]) for c in table_data]))
    return 0


def column_label(path: str, unit: str) -> str:
    """A column's header in tables and CSV: ``compute_time [µs]``, or the bare path when dimensionless."""
    return f"{path} [{unit}]" if unit else path


def _check_writable(path: str) -> None:
    if not path.endswith((".csv", ".json")):
        raise UsageError(f"--out must end in .csv or .json, got {path!r}")
    existed = os.path.lexists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise UsageError(f"--out {path!r} cannot be written: {error.strerror}") from None
    if not existed:
        os.remove(path)


def _write_sweep(path: str, data: dict[str, Any], units: dict[str, str], varied: list[str]) -> None:
    import numpy

    if path.endswith(".json"):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"columns": {k: {"unit": units[k], "values": v.tolist()} for k, v in data.items()},
                       "varied": varied}, handle, ensure_ascii=False)
    else:
        header = ",".join(column_label(k, units[k]) for k in data)
        numpy.savetxt(path, numpy.column_stack(list(data.values())), delimiter=",", header=header, comments="",
                      fmt="%.17g", encoding="utf-8")


def cmd_sensitivity(args: argparse.Namespace) -> int:
    scenario = built(args.name, args.set or [])
    rows = sensitivity(scenario, args.output)
    data = [r.__dict__ for r in rows]
    named = argument_labels(type(scenario))  # the inputs a user sets, not the evaluator's argument names
    text = table([(named.get(r.input, r.input), shown(r.value, r.unit), "-" if r.derivative is None else f"{r.derivative:.6g}",
                   f"{r.elasticity:+.4f}" if r.elasticity is not None else "undefined", r.note) for r in rows],
                 ("input", "value", "d output / d input", "elasticity", "note"))
    emit(args, data, f"{args.output} of {called(args.name, args.set)}, inputs by elasticity (d ln y / d ln x):\n{text}")
    return 0


def called(name: str, settings: list[str] | None) -> str:
    """How an analysis names what it ran on: the name given, and the inputs set on top."""
    return f"{name} with {', '.join(s.strip() for s in settings)}" if settings else name


def cmd_compare(args: argparse.Namespace) -> int:
    if args.b is None and not args.set:
        raise UsageError("compare needs a second scenario: a registry name, or --set changing inputs of the first")
    a = instance(args.a)
    b = built(args.b or args.a, args.set or [])
    b_label = called(args.b or args.a, args.set)
    changed, changes = compare(a, b)
    data = {"inputs": {k: {"a": v[0], "b": v[1]} for k, v in changed.items()},
            "outputs": [c.__dict__ for c in changes]}
    named = argument_labels(type(a))  # the inputs a user sets, not the evaluator's argument names
    given = [(name, input_text(value), input_text(b._given[name])) for name, value in a._given.items()
             if name in b._given and value != b._given[name]]
    inputs = table(given, ("input", args.a, b_label))
    rows = []
    for c in changes:
        top = ", ".join(f"{named.get(name, name)} {share:+.3f}" for name, share in c.attribution[:3])
        change = (f"{c.relative:+.2%}" if c.relative is not None else "from 0" if c.before == 0 else
                  "beyond double range" if isinstance(c.before, (int, float)) and isinstance(c.after, (int, float))
                  else "changed")
        rows.append((c.output, absent_or_shown(a, c.output, c.before, c.unit),
                     absent_or_shown(b, c.output, c.after, c.unit), change, top))
    outputs = table(rows, ("output", args.a, b_label, "change", "first-order Δln by input"))
    emit(args, data, f"inputs that differ:\n{inputs}\n\noutputs that changed:\n{outputs}")
    return 0
