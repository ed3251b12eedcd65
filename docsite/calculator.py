"""The data of each scenario page's calculator, read from the generated runtime at site build.

The form's inputs are the generated class's own specs (``_specs``, ``_nodes``, ``_precisions``,
``_choices``, ``_datasets``, ``_workloads``, ``_scenarios``: what ``symbolic.runtime.validation``
checks), with their domains in the words its messages use. Catalog inputs become selects whose
options carry the evaluator arguments the runtime resolves for them (``resolve_in`` for nodes,
``_workload`` for records), or the error message it raises: the page computes no catalog value
and writes no rule of its own. Registry instances give the starting points. The formulas are the
generated JavaScript modules (``generated/js``), inlined in the page and imported from Blob URLs.
"""

from __future__ import annotations

import itertools

import json
import re
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

import generated
from generated import Datasets, Hardware, Models, Scenarios, Systems
from symbolic.runtime.errors import MlsysymError
from symbolic.runtime.hardware import is_fleet, resolve_in
from symbolic.runtime.outputs import GroupOutput, ListOutput, SubScenario, TableOutput
from symbolic.runtime.scenario import ScenarioBase, _workload
from symbolic.runtime.validation import REQUIRED, ListSpec

ROOT = Path(__file__).resolve().parents[1]
SENTINEL = "PRECISION_NOT_LISTED"  # stands for the reader's precision in the message template


def _catalog(root: Any, name: str) -> list[tuple[str, Any]]:
    """``(Python path, entry)`` of a catalog root, tiered or not, in catalog order."""
    found = []
    for key in root:
        entry = getattr(root, key)
        if isinstance(entry, type(root)):
            found += [(f"{name}.{key}.{inner}", getattr(entry, inner)) for inner in entry]
        else:
            found.append((f"{name}.{key}", entry))
    return found


def _path_of(value: Any) -> str | None:
    """The Python expression that names a catalog entry or a registry instance (None when absent)."""
    if value is None:
        return None
    if isinstance(value, ScenarioBase):
        return next(f"Scenarios.{key}" for key in Scenarios if getattr(Scenarios, key) is value)
    if hasattr(value, "registry_path"):  # a custom record (a registry entry's own model) by its name
        return value.registry_path or f"{type(value).__name__}({value.name!r})"
    kind = type(value).__name__
    return f"Hardware.{value.path}" if kind == "HardwareNode" else f"Datasets.{value.path}"


def _floats(args: dict[str, Any]) -> list[str]:
    return sorted(name for name, value in args.items() if isinstance(value, float))


def _error(call: Any) -> tuple[Any, str | None]:
    try:
        return call(), None
    except MlsysymError as error:
        return None, str(error)


def _node_options(title: str, spec: Any) -> dict[str, Any]:
    entries = _catalog(Hardware, "Hardware")
    if spec.fleet:
        entries += [(path, entry) for path, entry in _catalog(Systems, "Systems") if is_fleet(entry)]
    options = {}
    for path, node in entries:
        accelerator = node.node.accelerator if is_fleet(node) else node
        fields = []  # in resolution order: [argument, value | None, error | None] or [argument, "peak"]
        for what, argument in spec.fields.items():
            if what == "peak":
                fields.append([argument, "peak", None])
            else:
                value, error = _error(lambda n=node, w=what: resolve_in(n, w, None, scenario=title,
                                                                        input_name=spec.precision))
                fields.append([argument, value, error])
        peaks = {}
        unlisted = ""
        if "peak" in spec.fields:
            peaks = {p: accelerator.peak_flops_per_second(p) for p in accelerator.precision_names}
            _, unlisted = _error(lambda n=node: resolve_in(n, "peak", SENTINEL, scenario=title, input_name=spec.precision))
        options[path] = {"label": getattr(node, "name", path), "precisions": list(accelerator.precision_names),
                         "fields": fields, "peaks": peaks, "unlisted": unlisted or ""}
    return options


def _workload_options(title: str, spec: Any, custom: list[Any]) -> dict[str, Any]:
    """The catalog's workloads of the accepted types, then the custom records registry entries use."""
    options = {}
    for path, record in _catalog(Models, "Models") + [(_path_of(record), record) for record in custom]:
        if not {kind.__name__ for kind in type(record).__mro__} & set(spec.types):
            continue
        args: dict[str, Any] = {}
        _, error = _error(lambda r=record, a=args: _workload(title, spec, r, a))
        options[path] = {"label": record.name, "args": args if error is None else {}, "floats": _floats(args),
                         "error": error or ""}
    return options


def _scenario_options(spec: Any, shared: dict[str, list[tuple[str, Any]]] | None = None) -> dict[str, Any]:
    """Each registry entry of the input's class, as the evaluator arguments it gives; with ``same=``
    inputs (``shared``: their form options), also those of the entry rebound to each option (``bound``)."""
    options = {}
    for key in Scenarios:
        inner = getattr(Scenarios, key)
        if type(inner) is not spec.scenario:
            continue
        options[f"Scenarios.{key}"] = {"label": inner.name, **_given_by(spec, inner)}
        if spec.same and shared:
            own = "|".join(_form_text(inner._given[name]) or "" for name in spec.same)
            bound = {}
            for combination in itertools.product(*(shared[name] for name in spec.same)):
                text = "|".join(path for path, _ in combination)
                try:
                    rebound = inner.variant(**{name: value for name, (_, value) in zip(spec.same, combination,
                                                                                        strict=True)})
                except MlsysymError as problem:
                    bound[text] = {"args": {}, "floats": [], "error": f"input '{spec.name}' rebound: {problem}"}
                    continue
                bound[text] = _given_by(spec, rebound)
            options[f"Scenarios.{key}"].update(own=own, bound=bound)
    return options


def _given_by(spec: Any, inner: Any) -> dict[str, Any]:
    """The evaluator arguments a contained instance gives (an error naming the output it cannot give)."""
    from symbolic.runtime.scenario import _output_number

    args = {outer: inner._args[name] for name, outer in spec.arguments.items()}
    error = ""
    for path, outer in spec.outputs.items():
        try:
            args[outer] = _output_number(inner, path)
        except MlsysymError as problem:
            error = f"input '{spec.name}' cannot give its '{path}': {problem}"
    return {"args": args, "floats": _floats(args), "error": error}


def _spec(spec: Any) -> dict[str, Any]:
    default = spec.default
    listed = isinstance(spec, ListSpec)
    data = {"kind": ("keyed" if spec.keyed else "list") if listed else "number", "unit": spec.unit,
            "integer": spec.integer, "minimum": spec.minimum, "strict": spec.strict, "maximum": spec.maximum,
            "strict_maximum": spec.strict_maximum, "domain": spec.domain, "scalar_domain": spec.scalar_domain,
            "doc": spec.doc, "rule": spec.default_rule,
            "default": "required" if default is REQUIRED else _form_text(default)}
    if listed:
        data.update(min_length=spec.min_length, unique=spec.unique, aligned_to=spec.aligned_to)
    return data


def _form_text(value: Any) -> str | None:
    """What the form shows for a value, as a reader would type it (None: left out)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return ", ".join(f"{key}: {_form_text(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(str(_form_text(item)) for item in value)
    if isinstance(value, (int, float, str)):
        return repr(value) if isinstance(value, float) else str(value)
    return _path_of(value)


def _outputs(cls: type[ScenarioBase]) -> list[dict[str, Any]]:
    def describe(output: Any) -> dict[str, Any]:
        data: dict[str, Any] = {"name": output.name, "unit": output.unit, "requires": list(output.requires),
                                "labels": [str(label) for label in output.labels], "guard": list(output.guard)}
        if isinstance(output, GroupOutput):
            data.update(kind="group", fields=[describe(field) for field in output.fields])
        elif isinstance(output, SubScenario):  # its evaluated inputs are shown too, as the evaluator returns them
            inputs = [{"name": spec.name, "unit": spec.unit, "requires": [], "labels": [],
                       "kind": "list" if isinstance(spec, ListSpec) else "scalar", "keys": "", "columns": ""}
                      for spec in output.scenario._specs]
            data.update(kind="group", title=output.title, fields=inputs + _outputs(output.scenario))
        elif isinstance(output, TableOutput):
            data.update(kind="table")
        elif isinstance(output, ListOutput):
            data.update(kind="list", keys=output.keys, columns=output.columns)
        else:
            data.update(kind="scalar")
        return data

    return [describe(cls.__dict__[name]) for name in cls._outputs]


def page_data(cls: type[ScenarioBase]) -> dict[str, Any]:
    """Everything the calculator of ``cls``'s page reads besides its JavaScript module."""
    title = cls.__name__
    inputs: dict[str, dict[str, Any]] = {}
    for spec in cls._specs:
        inputs[spec.name] = _spec(spec)
    for choice in cls._choices:
        inputs[choice.name] = {"kind": "choice", "options": dict(choice.options), "argument": choice.argument,
                               "case_insensitive": choice.case_insensitive, "domain": choice.domain, "doc": choice.doc,
                               "default": "required" if choice.default is REQUIRED else choice.default}
    for precision in cls._precisions:
        inputs[precision.name] = {"kind": "precision", "doc": precision.doc,
                                  "default": "required" if precision.default is REQUIRED else precision.default,
                                  "nodes": [n.name for n in cls._nodes if n.precision == precision.name]}
    for node in cls._nodes:
        inputs[node.name] = {"kind": "node", "doc": node.doc, "optional": node.optional, "precision": node.precision,
                             "fleet": node.fleet, "options": _node_options(title, node)}
    for dataset in cls._datasets:
        inputs[dataset.name] = {"kind": "dataset", "doc": dataset.doc, "argument": dataset.training_examples,
                                "options": {path: {"label": entry.name, "examples": entry.training_examples}
                                            for path, entry in _catalog(Datasets, "Datasets")}}
    entries = [getattr(Scenarios, key) for key in Scenarios if type(getattr(Scenarios, key)) is cls]
    for workload in cls._workloads:
        custom = [entry._given[workload.name] for entry in entries
                  if not getattr(entry._given.get(workload.name), "registry_path", "x")]
        inputs[workload.name] = {"kind": "workload", "doc": workload.doc, "types": list(workload.types),
                                 "fields": workload.fields,
                                 "options": _workload_options(title, workload, list({id(r): r for r in custom}.values()))}
    records = {workload.name: [(path, record) for path, record in _catalog(Models, "Models")
                               if {kind.__name__ for kind in type(record).__mro__} & set(workload.types)]
               for workload in cls._workloads}
    for scenario in cls._scenarios:
        inputs[scenario.name] = {"kind": "scenario", "doc": scenario.doc, "optional": scenario.optional,
                                 "class": scenario.scenario.__name__, "same": list(scenario.same),
                                 "arguments": sorted({*scenario.arguments.values(), *scenario.outputs.values()}),
                                 "options": _scenario_options(scenario, records)}
    arguments = _arguments(cls)
    instances = {}
    for key in Scenarios:
        instance = getattr(Scenarios, key)
        if type(instance) is cls:
            values = {name: _form_text(value) for name, value in instance._given.items()}
            values.update({name: _example(instance, argument) for name, argument in arguments.items()})
            instances[key] = {"name": instance.name, "values": values}
    inputs.update(arguments)
    order = [*cls._input_order, *arguments]
    return {"scenario": title, "module": cls.__module__.rsplit(".", 1)[-1], "order": order,
            "inputs": {name: inputs[name] for name in order}, "instances": instances,
            "outputs": _outputs(cls) + _methods(cls),
            # what must fit where (their guarded outputs show "does not fit"), and optional inputs no output
            # reads without others: the class's _fits and _needs, so the calculator refuses what it refuses
            "fits": [{"name": f.name, "message": f.message, "unit": f.unit} for f in cls._fits],
            "needs": {name: list(needed) for name, needed in cls._needs.items()}}


def _arguments(cls: type[ScenarioBase]) -> dict[str, dict[str, Any]]:
    """The methods' arguments, as fields after the inputs (one field for an argument several methods share)."""
    arguments: dict[str, dict[str, Any]] = {}
    for name in cls._methods:
        for argument in cls.__dict__[name].arguments:
            entry = arguments.setdefault(argument.argument, {
                **_spec(argument.spec), "kind": "argument", "keyword": argument.keyword, "key_of": argument.key_of,
                "example": argument.example, "methods": [], "default": ""})
            entry["methods"].append(name)
    return arguments


def _example(instance: ScenarioBase, argument: dict[str, Any]) -> str:
    """What an argument's field starts at: its declared example, or the first key of the input it is a key of."""
    if argument["key_of"]:
        return next(iter(instance._given[argument["key_of"]]), "")
    return _form_text(argument["example"]) or ""


def _methods(cls: type[ScenarioBase]) -> list[dict[str, Any]]:
    return [{"name": name, "unit": method.unit, "requires": list(method.requires), "kind": "method",
             "labels": [str(label) for label in method.labels], "arguments": [a.argument for a in method.arguments],
             "guard": list(method.guard)}
            for name in cls._methods for method in (cls.__dict__[name],)]


@lru_cache(maxsize=None)
def scenario_classes() -> dict[str, type[ScenarioBase]]:
    return {cls.__name__: cls for cls in generated.SCENARIO_CLASSES}


SECTION = """<section class="calculator" id="calculator" data-state="loading">
<h2>Calculator</h2>
<p class="calc-intro">Change any input: the outputs are recomputed in your browser by the evaluator generated
from the same declaration as the Python one. Bare numbers are read in the unit shown.</p>
<p><label>Start from <select class="calc-start"></select></label></p>
<form class="calc-form" autocomplete="off"></form>
<p class="calc-error" role="alert"></p>
<table class="calc-outputs"><thead><tr><th>Output</th><th>Value</th><th>Unit</th></tr></thead><tbody></tbody></table>
<p><button type="button" class="calc-copy-python">Copy as Python</button> <code class="calc-python"></code></p>
<p><button type="button" class="calc-copy-cli">Copy as CLI</button> <code class="calc-cli"></code></p>
<script type="application/json" id="calculator-data">{data}</script>
<script type="module">{script}</script>
</section>
"""


def section_html(name: str) -> str:
    """The calculator of scenario class ``name``'s page: a skeleton, its data and its scripts, all
    inline, so that the page works opened from disk too (browsers load no module file from file://)."""
    data = page_data(scenario_classes()[name])
    data["code"] = {"mathops": _module_text("mathops"), "evaluator": _module_text(data["module"]),
                    "contained": _contained_modules(data["module"])}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # JSON inside <script>: no "</" can close the element, no "<!--" can open a comment
    return SECTION.format(data=text.replace("<", "\\u003c"), script=_script())


def _module_text(module: str) -> str:
    return (ROOT / "generated" / "js" / f"{module}.mjs").read_text(encoding="utf-8")


def _contained_modules(module: str) -> list[list[str]]:
    """``[name, text]`` of every evaluator module ``module`` imports (a contained scenario's), each
    after those it imports itself, so the page can load them in that order."""
    ordered: dict[str, str] = {}

    def visit(name: str) -> None:
        for inner in re.findall(r'^import \{ evaluate as \w+ \} from "\./(\w+)\.mjs";$', _module_text(name), re.M):
            if inner not in ordered:
                visit(inner)
                ordered[inner] = _module_text(inner)

    visit(module)
    return [[name, text] for name, text in ordered.items()]


@lru_cache(maxsize=None)
def _script() -> str:
    text = Path(__file__).with_name("calculator.js").read_text(encoding="utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise ValueError("docsite/calculator.js must not contain '</script' or '<!--' (it is inlined)")
    return text


def copy_scripts(site: Path) -> None:
    """The generated evaluators into the site's js/ folder, for readers who import them."""
    target = site / "js"
    target.mkdir(parents=True, exist_ok=True)
    for module in sorted((ROOT / "generated" / "js").glob("*.mjs")):
        shutil.copy2(module, target / module.name)
