"""mlsysym: the scenarios from a shell.

Evaluation commands (list, show, eval, sweep, sensitivity, compare) use only the
generated runtime and never import sympy; derivation commands (explain, solve, scaling)
load the symbolic declarations. Exit status: 0 success, 2 bad usage or input, 1 internal
error. ``--json`` prints machine-readable output instead of tables.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

EPILOG = """examples:
  mlsysym show MnistTwoLayerTrainingStepOnH100
  mlsysym eval MlpTrainingStepScenario --from MnistTwoLayerTrainingStepOnH100 --set batch_size=64 --set hardware=B200
  mlsysym sweep MnistTwoLayerTrainingStepOnH100 --vary batch_size=1..4096:log2 --outputs compute_time,memory_time --out sweep.csv
  mlsysym solve MnistTwoLayerTrainingStepOnH100 --for batch_size --where compute_time=memory_time
  mlsysym solve PhoneFullUpdateWorkingSet --for parameters --where total=8GiB
  mlsysym sensitivity MnistEpochCpuVersusH100 'result.total_time[accelerator]'
  mlsysym scaling UpdateWorkingSetScenario total
  mlsysym compare MnistDenseNetwork MnistDenseNetworkLargeBatch
"""


class UsageError(Exception):
    """Bad usage or input on the command line (exit status 2)."""


# -- names and values ----------------------------------------------------------------------
def _nearest(name: str, known: Sequence[str], what: str) -> UsageError:
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else " (see `mlsysym list`)"
    return UsageError(f"unknown {what} {name!r}{hint}")


def instance(name: str) -> Any:
    """A registry entry by name."""
    from generated import Scenarios

    if name not in Scenarios:
        raise _nearest(name, list(Scenarios), "scenario")
    return getattr(Scenarios, name)


def scenario_class(name: str) -> type:
    """A scenario class by name, or the class of a registry entry."""
    import generated

    classes = {cls.__name__: cls for cls in generated.SCENARIO_CLASSES}
    if name in classes:
        return classes[name]
    if name in generated.Scenarios:
        return type(getattr(generated.Scenarios, name))
    raise _nearest(name, list(classes) + list(generated.Scenarios), "scenario class")


def hardware_node(text: str) -> Any:
    from generated import Hardware

    parts = text.removeprefix("Hardware.").split(".")
    nodes = {f"{tier}.{key}": node for tier in Hardware for key, node in getattr(Hardware, tier).items()}
    if len(parts) == 2 and ".".join(parts) in nodes:
        return nodes[".".join(parts)]
    by_key = {path.split(".")[1]: node for path, node in nodes.items()}
    if len(parts) == 1 and parts[0] in by_key:
        return by_key[parts[0]]
    raise _nearest(text, list(by_key), "hardware node")


def number(text: str) -> Any:
    """``32`` -> 32, ``1e7`` -> 1e7, ``10us`` / ``3.35 TB/s`` -> a Quantity."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        from generated import Q_

        try:
            return Q_(text)
        except Exception as error:  # pint's parse errors are many types
            raise UsageError(f"cannot read {text!r} as a number or a quantity with a unit: {error}") from None
    if not math.isfinite(value):
        raise UsageError(f"{text!r} is not a finite number")
    return value


def parse_setting(cls: type, setting: str) -> tuple[str, Any]:
    """``name=value`` for an input of ``cls``, the value read as that input expects."""
    if "=" not in setting:
        raise UsageError(f"--set expects name=value, got {setting!r}")
    name, _, text = setting.partition("=")
    name, text = name.strip(), text.strip()
    kinds: dict[str, str] = {}
    for spec in cls._specs:
        kinds[spec.name] = "list" if hasattr(spec, "min_length") else "number"
    kinds.update({n.name: "node" for n in cls._nodes})
    kinds.update({d.name: "dataset" for d in cls._datasets})
    kinds.update({s.name: "scenario" for s in cls._scenarios})
    kinds.update({p.name: "text" for p in cls._precisions})
    if name not in kinds:
        raise _nearest(name, list(kinds), f"input of {cls.__name__}")
    kind = kinds[name]
    if text.lower() in ("none", "null", ""):
        return name, None
    if kind == "number":
        return name, number(text)
    if kind == "list":
        return name, [number(item) for item in text.strip("[]()").split(",") if item.strip()]
    if kind == "node":
        return name, hardware_node(text)
    if kind == "dataset":
        from generated import Datasets

        if text.removeprefix("Datasets.") not in Datasets:
            raise _nearest(text, list(Datasets), "dataset")
        return name, getattr(Datasets, text.removeprefix("Datasets."))
    if kind == "scenario":
        return name, instance(text.removeprefix("Scenarios."))
    return name, text


def build(cls: type, base: Any, settings: Sequence[str]) -> Any:
    changes = dict(parse_setting(cls, s) for s in settings)
    if base is None:
        return cls(**changes)
    if not changes:
        return base
    label = ", ".join(s.strip() for s in settings)
    return base.variant(name=f"{base.name}, with {label}", **changes)


# -- printing -----------------------------------------------------------------------------
def shown(value: Any, unit: str = "") -> str:
    if isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    return f"{text} {unit}".strip()


def table(rows: list[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def outputs_of(scenario: Any) -> dict[str, tuple[Any, str]]:
    """Every output as ``path: (value, unit)``: numbers, and lists and text too."""
    from symbolic.runtime.analysis import flat_outputs
    from symbolic.runtime.scenario import GroupOutput, ListOutput, SubScenario

    rows = flat_outputs(scenario)
    extra: dict[str, tuple[Any, str]] = {}

    def walk(descriptor: Any, value: Any, prefix: str) -> None:
        path = prefix + descriptor.name
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                walk(field, value[field.name], path + ".")
        elif isinstance(descriptor, SubScenario):
            for name in descriptor.scenario._outputs:
                walk(getattr(descriptor.scenario, name), value[name], path + ".")
        elif isinstance(descriptor, ListOutput) or isinstance(value, str) or value is None:
            extra[path] = (value, descriptor.unit)

    values = scenario.evaluate()
    for name in type(scenario)._outputs:
        walk(getattr(type(scenario), name), values[name], "")
    merged = {**rows, **extra}
    order = list(_paths(type(scenario), values, ""))
    return {path: merged[path] for path in order if path in merged}


def _paths(cls: type, values: dict[str, Any], prefix: str) -> Any:
    from symbolic.runtime.scenario import GroupOutput, SubScenario, TableOutput

    def walk(descriptor: Any, value: Any, path: str) -> Any:
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                yield from walk(field, value[field.name], f"{path}.{field.name}")
        elif isinstance(descriptor, SubScenario):
            yield from _paths(descriptor.scenario, value, path + ".")
        elif isinstance(descriptor, TableOutput):
            yield from (f"{path}[{key}]" for key in value)
        else:
            yield path

    for name in cls._outputs:
        yield from walk(getattr(cls, name), values[name], prefix + name)


def jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, "units"):
        return {"value": value.magnitude, "unit": f"{value.units:~P}"}
    if hasattr(value, "path") and hasattr(value, "name"):
        return value.path or value.name
    if hasattr(value, "_given"):
        return value.name
    return value


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=jsonable) if args.json else text)


# -- commands -----------------------------------------------------------------------------
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


def parse_vary(text: str) -> tuple[str, list[Any]]:
    """``name=1..4096:log2`` | ``name=a..b`` | ``name=a..b:step=s`` | ``name=a..b:lin=n`` | ``name=log=n`` | ``name=v1,v2``."""
    import numpy

    if "=" not in text:
        raise UsageError(f"--vary expects name=range, got {text!r}")
    name, _, spec = text.partition("=")
    spec = spec.strip()
    try:
        if ".." not in spec:
            return name.strip(), [number(item) for item in spec.split(",") if item.strip()]
        span, _, mode = spec.partition(":")
        start_text, _, stop_text = span.partition("..")
        start, stop = float(start_text), float(stop_text)
        if stop < start:
            raise UsageError(f"--vary {name}: the range {span} is empty")
        if mode == "log2":
            if start <= 0:
                raise UsageError(f"--vary {name}: log2 needs a positive start")
            powers = numpy.arange(math.ceil(math.log2(start)), math.floor(math.log2(stop)) + 1)
            values = (2.0 ** powers).tolist()
        elif mode.startswith("lin="):
            values = numpy.linspace(start, stop, int(mode[4:])).tolist()
        elif mode.startswith("log="):
            values = numpy.geomspace(start, stop, int(mode[4:])).tolist()
        elif mode.startswith("step=") or not mode:
            step = float(mode[5:]) if mode else 1.0
            if step <= 0:
                raise UsageError(f"--vary {name}: step must be positive")
            values = numpy.arange(start, stop + step / 2, step).tolist()
        else:
            raise UsageError(f"--vary {name}: unknown mode {mode!r} (log2, lin=N, log=N, step=S)")
    except ValueError as error:
        raise UsageError(f"--vary {text!r}: {error}") from None
    if not values:
        raise UsageError(f"--vary {name}: no values in {spec!r}")
    return name.strip(), [int(v) if float(v).is_integer() else v for v in values]


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
    rows = [(name, f"x^{power}", _growth_word(power)) for name, power in result.per_input.items()]
    text = table(rows, ("input", "leading power", "growth"))
    emit(args, data, f"{result.output}: leading-order growth as each input grows alone\n{text}\n"
                     f"all inputs together: x^{result.overall}; "
                     f"{'a polynomial' if result.polynomial else 'not a polynomial'} in the inputs")
    return 0


def _growth_word(power: Any) -> str:
    return {0: "constant", 1: "linear", 2: "quadratic", 3: "cubic", -1: "inverse"}.get(power, f"power {power}")


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


# -- the parser -----------------------------------------------------------------------------
class _Formatter(argparse.RawDescriptionHelpFormatter):
    """A fixed width, so the help (and the generated CLI page) does not depend on the terminal."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100, max_help_position=32)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also the source of the generated CLI reference page)."""
    parser = argparse.ArgumentParser(prog="mlsysym", description=__doc__.split("\n")[0],
                                     epilog=EPILOG, formatter_class=_Formatter)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text, formatter_class=_Formatter)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of tables")
        sub.set_defaults(handler=handler)
        return sub

    command("list", cmd_list, "list the named scenarios and the scenario classes")
    sub = command("show", cmd_show, "every output of a named scenario, with its unit")
    sub.add_argument("name", help="a registry name, e.g. MnistTwoLayerTrainingStepOnH100")
    sub = command("eval", cmd_eval, "evaluate a scenario class with inputs set on the command line")
    sub.add_argument("scenario", help="a scenario class (or a registry name: its class)")
    sub.add_argument("--from", dest="base", help="start from this registry entry's inputs")
    sub.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="an input: 64, 1e7, 10us, '3.35 TB/s', 784,128,10, H100, MNIST, fp16_dense, none")
    sub = command("explain", cmd_explain, "definition -> closed form -> numbers substituted -> result")
    sub.add_argument("name", help="a registry name")
    sub.add_argument("output", help="an output path, e.g. compute_time, host.overhead_ratio, result.rate[host]")
    sub = command("sweep", cmd_sweep, "evaluate a grid of input values through the vectorised evaluator")
    sub.add_argument("name", help="a registry name (the inputs not varied)")
    sub.add_argument("--vary", action="append", required=True, metavar="NAME=RANGE",
                     help="a..b (step 1), a..b:step=S, a..b:log2, a..b:lin=N, a..b:log=N, or v1,v2,...")
    sub.add_argument("--outputs", help="comma-separated output paths (default: all)")
    sub.add_argument("--out", help="write FILE.csv or FILE.json (default: print the first rows)")
    sub = command("solve", cmd_solve, "solve an output equation for an input, exactly")
    sub.add_argument("name", help="a registry name (the other inputs' values)")
    sub.add_argument("--for", dest="unknown", required=True, help="the input to solve for")
    sub.add_argument("--where", required=True, metavar="OUTPUT=VALUE",
                     help="e.g. compute_time=memory_time or total=8GiB")
    sub = command("sensitivity", cmd_sensitivity, "exact derivatives and elasticities of an output, ranked")
    sub.add_argument("name", help="a registry name")
    sub.add_argument("output", help="an output path")
    sub = command("scaling", cmd_scaling, "leading-order growth of an output in each input")
    sub.add_argument("scenario", help="a scenario class or registry name")
    sub.add_argument("output", help="an output path")
    sub = command("compare", cmd_compare, "what changed between two named scenarios of one class, and why")
    sub.add_argument("a", help="a registry name")
    sub.add_argument("b", help="a registry name of the same class")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # exits with 2 on bad usage
    from symbolic.runtime.errors import MlsysymError

    try:
        return args.handler(args)
    except (UsageError, MlsysymError) as error:
        print(f"mlsysym: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as error:  # an internal error: say so, with the type, for the bug report
        print(f"mlsysym: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
