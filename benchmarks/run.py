"""mlsysym's benchmark suite (issue 6): ``make bench`` runs ``.venv/bin/python benchmarks/run.py``.

Measures in one run, side by side, and prints medians and ratios:

1. one full evaluation of each seed scenario at its registry instance: the raw
   evaluator, a hand-written function (the limit), the same formulas on pint Quantities
   (the incumbent), sympy ``lambdify`` without CSE, sympy ``subs``/``evalf``, and the
   Quantity API as people use it (build from inputs, read every output);
2. a sweep of 10⁶ rows of the training step through the numpy path, against a numpy
   copy of the same output size (the memory floor);
3. ``import generated`` in a fresh interpreter, against ``import sympy`` and ``import pint``;
4. regeneration: ``render_all()`` and each scenario's part, in fresh interpreters;
5. CLI start-up, when ``.venv/bin/mlsysym`` exists.

Everything is written to ``benchmarks/results.json`` (every sample, medians, ratios,
targets). ``--quick`` runs fewer rounds (for trying the suite, not for the record).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import json
import math
import platform
from pathlib import Path
import sys
import time
from typing import Any

import numpy as np

import fresh
import handwritten
import pint_formulas
import rounding
import search_bench
import suite
import synthetic
from report import API, CANDIDATES, HAND, LAMBDIFY, PINT, RAW, SUBS, report, shown
from sympy_forms import Forms
from timing import ROOT, Measurement, interleaved

import generated
from generated import Scenarios
from symbolic.runtime.outputs import Result
from symbolic.runtime.scenario import ScenarioBase
from symbolic.scenarios import module_name as scenario_module_name

# (class, generated module, registry instance, short label)
SCENARIOS = (
    ("MlpTrainingStepScenario", "mlp_training_step", "MnistTwoLayerTrainingStepOnH100", "MlpTrainingStep"),
    ("HostDispatchScenario", "host_dispatch", "SmallKernelDispatch", "HostDispatch"),
    ("UpdateWorkingSetScenario", "update_working_set", "PhoneFullUpdateWorkingSet", "UpdateWorkingSet"),
    ("DenseNetworkScenario", "dense_network", "MnistDenseNetwork", "DenseNetwork"),
    ("EpochOverheadScenario", "epoch_overhead", "MnistEpochCpuVersusH100", "EpochOverhead"),
)
SWEEP_ROWS = 10**6
CLI_COMMANDS = {  # label -> arguments of .venv/bin/mlsysym
    "--help": ["--help"],
    "show MnistTwoLayerTrainingStepOnH100": ["show", "MnistTwoLayerTrainingStepOnH100"],
    "solve PhoneFullUpdateWorkingSet --for parameters --where total=8GiB":
        ["solve", "PhoneFullUpdateWorkingSet", "--for", "parameters", "--where", "total=8GiB"],
}
RELATIVE_TOLERANCE = 1e-9

LIMITS = {  # the targets of issue 6
    "raw": 1.3,  # raw evaluator ≤ 1.3× the hand-written function
    "api": 20.0,  # Quantity API ≥ 20× faster than the pint-Quantity version
    "sweep": 4.0,  # 10⁶-row numpy sweep ≤ 4× the copy floor
    "compiled": 1.5,  # optional compiled sweep backend ≤ 1.5× the floor
    "import": 0.050,  # import generated ≤ 50 ms
    "regeneration": 0.2,  # ≤ 0.2 s per scenario
}


# -- helpers -----------------------------------------------------------------------------
def flatten(value: Any, path: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], Any]:
    """A nested result as ``{path: number}``; Quantities become their magnitudes."""
    if isinstance(value, dict):
        return {key: item for name, entry in value.items() for key, item in flatten(entry, (*path, name)).items()}
    if isinstance(value, list):
        return {key: item for index, entry in enumerate(value) for key, item in flatten(entry, (*path, index)).items()}
    return {path: getattr(value, "magnitude", value)}


def agree(label: str, reference: dict[tuple[Any, ...], Any], other: dict[tuple[Any, ...], Any],
          same_keys: bool = True) -> None:
    """Raise unless ``other`` has the reference's values (relative 1e-9), key by key."""
    problems = []
    if same_keys and reference.keys() != other.keys():
        problems.append(f"keys differ: {sorted(map(str, reference.keys() ^ other.keys()))}")
    for key, value in reference.items():
        if key not in other:
            continue
        theirs = other[key]
        if isinstance(value, str) or value is None or theirs is None:
            ok = value == theirs
        else:
            ok = math.isclose(float(value), float(theirs), rel_tol=RELATIVE_TOLERANCE, abs_tol=0.0)
        if not ok:
            problems.append(f"{'.'.join(map(str, key))}: {value!r} != {theirs!r}")
    if problems:
        raise AssertionError(f"{label} disagrees with the raw evaluator:\n  " + "\n  ".join(problems))


def read_everything(scenario: ScenarioBase) -> dict[str, Any]:
    """Every output attribute as a user reads it: groups field by field, contained scenarios in full."""
    values: dict[str, Any] = {}
    for name, value in scenario.outputs().items():
        if isinstance(value, ScenarioBase):
            values[name] = {**value.inputs(), **read_everything(value)}
        elif isinstance(value, Result):
            values[name] = value.fields()
        else:
            values[name] = value
    return values


# -- 1. one full evaluation --------------------------------------------------------------
def evaluation(rounds: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, Measurement]]]:
    """Check every candidate against the raw evaluator, then time all 30 (scenario, candidate) pairs
    interleaved in one set of rounds, so that a burst of load elsewhere hits them all alike."""
    candidates: dict[str, Any] = {}
    described = {}
    for class_name, module_name, instance_name, label in SCENARIOS:
        instance = getattr(Scenarios, instance_name)
        cls = type(instance)
        evaluate = importlib.import_module(f"generated.{module_name}").evaluate
        hand = getattr(handwritten, module_name)
        incumbent = getattr(pint_formulas, module_name)
        model = getattr(importlib.import_module(scenario_module_name(module_name)), class_name).model
        args = dict(instance._args)
        pint_args = pint_formulas.inputs_of(instance)
        inputs = instance.inputs()
        forms = Forms(model, args)

        reference = flatten(evaluate(**args))
        agree(f"{label}: hand-written", reference, flatten(hand(**args)))
        agree(f"{label}: pint Quantities", reference, flatten(incumbent(**pint_args)))
        lambdified, substituted = forms.lambdified(), forms.substituted()
        agree(f"{label}: sympy lambdify", reference, lambdified(), same_keys=False)
        agree(f"{label}: sympy subs/evalf", reference, substituted(), same_keys=False)
        agree(f"{label}: Quantity API", reference, flatten(read_everything(cls(**inputs))))
        print(f"  {label}: {len(reference)} outputs agree (a, b, c, f: rel {RELATIVE_TOLERANCE:g}; "
              f"d, e: {len(forms.paths)} closed forms)", file=sys.stderr)

        candidates.update({
            f"{label}|{RAW}": lambda evaluate=evaluate, args=args: evaluate(**args),
            f"{label}|{HAND}": lambda hand=hand, args=args: hand(**args),
            f"{label}|{PINT}": lambda incumbent=incumbent, pint_args=pint_args: incumbent(**pint_args),
            f"{label}|{LAMBDIFY}": lambdified,
            f"{label}|{SUBS}": substituted,
            f"{label}|{API}": lambda cls=cls, inputs=inputs: read_everything(cls(**inputs)),
        })
        described[label] = (class_name, instance_name, len(reference))
    gc.collect()
    gc.freeze()  # setup garbage (sympy, closed forms) out of the collector's way
    measured = interleaved(candidates, rounds, batch_seconds=0.005)
    records, by_scenario = [], {}
    for label, (class_name, instance_name, outputs) in described.items():
        by_scenario[label] = {name: measured[f"{label}|{name}"] for name in CANDIDATES}
        base = by_scenario[label][HAND].median
        for name, measurement in by_scenario[label].items():
            measurement.name = name
            records.append({"group": "evaluation", "scenario": class_name, "instance": instance_name,
                            "candidate": name, "outputs": outputs, "baseline": HAND, "ratio_to_baseline": measurement.median / base,
                            **measurement.as_json()})
    return records, by_scenario


# -- 2. the sweep ------------------------------------------------------------------------
def sweep(rounds: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from generated.mlp_training_step import evaluate

    instance = Scenarios.MnistTwoLayerTrainingStepOnH100
    rows = np.arange(SWEEP_ROWS, dtype=np.int64)
    batch = 1 + rows % 4096
    hidden = 16 * (1 + (rows // 4096) % 256)
    ints = dict(instance._args, batch_size=batch, hidden_width=hidden)
    floats = dict(instance._args, batch_size=batch.astype(np.float64), hidden_width=hidden.astype(np.float64))

    outputs = flatten(evaluate(**ints))
    arrays = [key for key, value in outputs.items() if isinstance(value, np.ndarray) and value.shape == rows.shape]
    reference = flatten(handwritten.mlp_training_step(**ints))
    for key in outputs:
        if not np.allclose(outputs[key], reference[key], rtol=RELATIVE_TOLERANCE, atol=0):
            raise AssertionError(f"sweep: {key} differs between the raw evaluator and the hand-written function")
    source = np.ones((len(arrays), SWEEP_ROWS))
    candidates = {
        "numpy copy (floor)": source.copy,
        "raw evaluator, int64 inputs": lambda: evaluate(**ints),
        "raw evaluator, float64 inputs": lambda: evaluate(**floats),
        "hand-written, int64 inputs": lambda: handwritten.mlp_training_step(**ints),
    }
    gc.collect()
    measured = interleaved(candidates, rounds, batch_seconds=0.0, max_calls=1)
    floor = measured["numpy copy (floor)"].median
    records = [{"group": "sweep", "candidate": name, "rows": SWEEP_ROWS, "array_outputs": len(arrays),
                "baseline": "numpy copy (floor)", "ratio_to_baseline": m.median / floor, **m.as_json()}
               for name, m in measured.items()]
    info = {"rows": SWEEP_ROWS, "array_outputs": len(arrays), "outputs": len(outputs),
            "bytes": len(arrays) * SWEEP_ROWS * 8, "measured": measured}
    return records, info


# -- 3-5. fresh processes ----------------------------------------------------------------
def _failed(group: str, name: str, error: str) -> dict[str, Any]:
    return {"group": group, "candidate": name, "failed": error, "median_s": None}


def imports(rounds: int) -> list[dict[str, Any]]:
    samples = fresh.imports(rounds)
    ours = samples["import generated"]
    base = float(np.median(ours)) if isinstance(ours, list) else math.nan
    records = []
    for name, values in samples.items():
        if isinstance(values, str):
            records.append(_failed("import", name, values))
            continue
        median = float(np.median(values))
        records.append({"group": "import", "candidate": name, "median_s": median, "samples_s": values,
                        "method": "perf_counter around the import inside a fresh child",
                        "baseline": "import generated", "ratio_to_baseline": median / base})
    return records


def regeneration(rounds: int, budget_seconds: float) -> list[dict[str, Any]]:
    names = [module for _, module, _, _ in SCENARIOS]
    samples = fresh.regeneration(names, rounds, budget_seconds)
    records = []
    for name, runs in samples.items():
        if isinstance(runs, str):
            records.append(_failed("regeneration", name, runs))
            continue
        parts = {part: float(np.median([run[part] for run in runs])) for part in runs[0]}
        key = "render_all" if name == "render_all" else "scenario"
        records.append({"group": "regeneration", "candidate": name, "median_s": parts[key],
                        "samples_s": [run[key] for run in runs], "parts_median_s": parts, "runs": runs,
                        "method": "perf_counter inside a fresh child"})
    return records


def cli(rounds: int) -> list[dict[str, Any]]:
    samples = fresh.cli(CLI_COMMANDS, rounds)
    if samples is None:
        return [{"group": "cli", "candidate": "mlsysym", "available": False, "median_s": None,
                 "note": "not available: no console script .venv/bin/mlsysym"}]
    records = []
    base = samples["python -c pass"]
    for name, values in samples.items():
        if isinstance(values, str):
            records.append({**_failed("cli", name, values), "available": True})
            continue
        median = float(np.median(values))
        records.append({"group": "cli", "candidate": name, "available": True, "median_s": median,
                        "samples_s": values, "method": "wall time of the whole command",
                        "baseline": "python -c pass", "ratio_to_baseline": median / float(np.median(base))})
    return records


# -- targets and the report --------------------------------------------------------------
def target(name: str, measured: float | None, limit: float, comparison: str, unit: str, detail: str) -> dict[str, Any]:
    if measured is None:
        met = None
    else:
        met = measured <= limit if comparison == "<=" else measured >= limit
    return {"target": name, "measured": measured, "limit": limit, "comparison": comparison, "unit": unit,
            "met": met, "detail": detail}


def targets(evaluations: dict[str, dict[str, Measurement]], sweep_info: dict[str, Any],
            records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for label, measured in evaluations.items():
        hand, raw = measured[HAND].median, measured[RAW].median
        found.append(target(f"raw evaluator ≤ 1.3× hand-written: {label}", raw / hand, LIMITS["raw"], "<=", "×",
                            f"raw {shown(raw)}, hand-written {shown(hand)}"))
    for label, measured in evaluations.items():
        incumbent, api = measured[PINT].median, measured[API].median
        found.append(target(f"Quantity API ≥ 20× faster than pint: {label}", incumbent / api, LIMITS["api"], ">=",
                            "×", f"pint {shown(incumbent)}, Quantity API {shown(api)}"))
    sweep_measured = sweep_info["measured"]
    floor = sweep_measured["numpy copy (floor)"].median
    raw = sweep_measured["raw evaluator, int64 inputs"].median
    found.append(target("10⁶-row sweep ≤ 4× the copy floor (numpy path, int64 inputs)", raw / floor, LIMITS["sweep"],
                        "<=", "×", f"raw {shown(raw)}, floor {shown(floor)}"))
    found.append(target("compiled sweep backend ≤ 1.5× the copy floor (optional)", None, LIMITS["compiled"], "<=", "×",
                        "not shipped: a numba kernel generated from the same statements measured 2.0x the floor against "
                        "1.33x for this numpy path (it writes all 46 outputs per row; numpy broadcasts the constant ones)"))
    by_name = {(r["group"], r["candidate"]): r for r in records}
    imported = by_name[("import", "import generated")]
    found.append(target("import generated ≤ 50 ms", imported["median_s"], LIMITS["import"], "<=", "s",
                        imported.get("failed") or shown(imported["median_s"])))
    for _, module, _, label in SCENARIOS:
        part = by_name[("regeneration", module)]
        detail = part.get("failed") or "its _model_context in a fresh interpreter"
        found.append(target(f"regeneration ≤ 0.2 s per scenario: {label}", part["median_s"], LIMITS["regeneration"],
                            "<=", "s", detail))
    cached = by_name.get(("cli", "make check (cached render)"))
    if cached is not None:
        per_cached = None if cached.get("median_s") is None else cached["median_s"] / len(SCENARIOS)
        found.append(target("regeneration ≤ 0.2 s per scenario: unchanged sources (cached render)", per_cached,
                            LIMITS["regeneration"], "<=", "s", cached.get("failed") or
                            f"python -m symbolic.generate --check {shown(cached['median_s'])} in all, start-up included"))
    full = by_name[("regeneration", "render_all")]
    per = None if full["median_s"] is None else full["median_s"] / len(SCENARIOS)
    found.append(target("regeneration ≤ 0.2 s per scenario: render_all() ÷ scenarios", per, LIMITS["regeneration"],
                        "<=", "s", full.get("failed") or f"render_all {shown(full['median_s'])} for "
                        f"{len(SCENARIOS)} scenarios"))
    return found


def versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "platform": platform.platform(), "machine": platform.machine()}
    for name in ("numpy", "pint", "sympy", "jinja2"):
        found[name] = importlib.import_module(name).__version__
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, to try the suite (not for the record)")
    parser.add_argument("--pipeline-only", action="store_true",
                        help="only the pipeline at 50 scenarios, merged into the existing results.json")
    parser.add_argument("--search-only", action="store_true",
                        help="only the design-space search, merged into the existing results.json")
    parser.add_argument("--rounding-only", action="store_true",
                        help="only the rounding of the evaluators against exact sympy, merged into results.json")
    parser.add_argument("--suite-only", action="store_true",
                        help=f"only make test at {suite.COUNT} scenarios, merged into the existing results.json")
    options = parser.parse_args()
    if options.suite_only:
        suite.merge_into(ROOT / "benchmarks" / "results.json")
        return
    if options.rounding_only:
        rounding.merge_into(ROOT / "benchmarks" / "results.json")
        return
    if options.pipeline_only or options.search_only:
        pipeline_only() if options.pipeline_only else search_bench.merge_into(ROOT / "benchmarks" / "results.json")
        return
    rounds = ({"evaluation": 5, "sweep": 3, "import": 3, "regeneration": 1, "cli": 2} if options.quick else
              {"evaluation": 31, "sweep": 9, "import": 11, "regeneration": 5, "cli": 7})
    budget = 15.0 if options.quick else 70.0  # seconds of regeneration rounds (at least one round runs)
    started = time.perf_counter()
    sections: dict[str, float] = {}

    def section(name: str, run: Any, *arguments: Any) -> Any:
        print(f"benchmarks: {name} ...", file=sys.stderr)
        begun = time.perf_counter()
        result = run(*arguments)
        sections[name] = time.perf_counter() - begun
        return result

    records, evaluations = section("one full evaluation per scenario", evaluation, rounds["evaluation"])
    gc.unfreeze()
    sweep_records, sweep_info = section("10⁶-row sweep", sweep, rounds["sweep"])
    records += sweep_records
    records += section("imports in fresh interpreters", imports, rounds["import"])
    records += section("regeneration in fresh interpreters", regeneration, rounds["regeneration"], budget)
    records += section("CLI start-up", cli, rounds["cli"])
    searched = section("design-space search", search_bench.measure, 1 if options.quick else 3)
    rounded = section("rounding against exact sympy", rounding.measure)
    suite_info = section(f"make test at {suite.COUNT} scenarios", suite.measure)
    pipeline = section("pipeline at 50 scenarios", synthetic.measure, 1 if options.quick else 3)
    found = (targets(evaluations, sweep_info, records) + search_bench.targets(searched) + rounding.targets(rounded)
             + suite.targets(suite_info) + synthetic.targets(pipeline))
    text = (report(evaluations, sweep_info, records, found) + "\n\n" + search_bench.table(searched) + "\n\n"
            + rounding.table(rounded) + "\n\n" + suite.table(suite_info) + "\n\n"
            + synthetic.table(pipeline))  # the pipeline's block last: --pipeline-only replaces the tail
    elapsed = time.perf_counter() - started
    print(text)
    print(f"\n({elapsed:.0f} s; medians over interleaved rounds: {rounds}, regeneration within {budget:.0f} s; "
          "results in benchmarks/results.json)")
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "cpus": __import__("os").cpu_count(),
        # relative to the repository: the results file records no path of the machine it ran on
        "generated": Path(generated.__file__).resolve().relative_to(ROOT).as_posix(),
        "rounds": rounds,
        "quick": options.quick,
        "seconds": elapsed,
        "section_seconds": sections,
        "notes": [
            "Evaluation: median over rounds of seconds per call; each round runs one calibrated batch (~5 ms) of "
            "every candidate in rotating order, the garbage collector off inside a batch. Ratios are to the "
            "hand-written function unless stated.",
            "Raw evaluator and hand-written function take the same numbers (the instance's evaluator arguments).",
            "pint Quantities: unit-bearing inputs are Quantities as the reference passes them (hardware rates as "
            "published), counts plain ints, every unit-bearing output converted with .to(display unit), units "
            "parsed once up front.",
            "sympy lambdify: one function returning every output's closed form (cse=False, modules='math'), unit "
            "scales folded in; sympy subs/evalf: expr.subs(values).evalf() per closed form. For DenseNetwork and "
            "EpochOverhead the concrete layer_widths are substituted and Sum/MaxOver/Len expanded with .doit() "
            "first; the text output 'architecture' is left out of both.",
            "Quantity API: type(instance)(**instance.inputs()) then every output attribute, group fields and the "
            "contained scenario's inputs and outputs.",
            "Sweep: one call per batch; the floor is ndarray.copy() of (array outputs x rows) float64, allocation "
            "included, as the evaluator allocates its outputs.",
            "Imports and regeneration: time.perf_counter inside a fresh child (interpreter start-up excluded). "
            "CLI: wall time of the whole command.",
        ],
        "measurements": records,
        "pipeline": pipeline,
        "search": searched,
        "rounding": rounded,
        "suite": suite_info,
        "targets": found,
        "table": text,
    }
    (ROOT / "benchmarks" / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


def pipeline_only() -> None:
    """Measure the pipeline at 50 scenarios and replace that part of ``benchmarks/results.json``."""
    path = ROOT / "benchmarks" / "results.json"
    results = json.loads(path.read_text(encoding="utf-8"))
    pipeline = synthetic.measure(1)  # one round: a cold render of 50 scenarios takes minutes
    found = synthetic.targets(pipeline)
    text = synthetic.table(pipeline)
    print(text)
    for item in found:
        print(f"  {'met' if item['met'] else 'NOT met'}: {item['target']} ({item['measured']:.3g} {item['unit']})")
    results["pipeline"] = pipeline
    results["targets"] = [t for t in results["targets"] if not t["target"].startswith("pipeline at ")] + found
    results["table"] = results["table"].split("\n\nPipeline at ")[0] + "\n\n" + text
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
