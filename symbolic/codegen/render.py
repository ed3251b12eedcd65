"""Render every generated file from the declarations, in memory: ``{path: text}``."""

from __future__ import annotations

import re
from pathlib import Path
from fractions import Fraction
from typing import Any

import sympy

from symbolic.catalog import (
    constant_records,
    dataset_records,
    entry_arguments,
    hardware_records,
    link_arguments,
    network_records,
    node_extra,
    systems_entries,
    workload_entries,
)
from symbolic.codegen.calls import Call, Code
from symbolic.codegen.charts import placements, sweep_chart
from symbolic.codegen.environment import environment, header
from symbolic.scenarios.discover import ScenarioModule, check_unique_names, discover
from symbolic.codegen.record import ScenarioRecord
from symbolic.codegen.formatting import formatted
from symbolic.codegen.latex import equations
from symbolic.codegen.module_calls import descriptor, input_spec, spec_call, type_text
from symbolic.codegen.jsprint import js_module
from symbolic.codegen.python import code_name, evaluator_of
from symbolic.codegen.pyprint import HELPERS
from symbolic.catalog import record_types
from symbolic.codegen.records import RECORD_MODULES, install, record_module, record_source
from symbolic.codegen.derivations import derivations_markdown
from symbolic.codegen.reference_pages import reference_files
from symbolic.codegen.site_pages import Legends, hardware_used, scenario_docs, site_files
from symbolic.codegen.structured_inputs import structured_input
from symbolic.codegen.usage import usage
from symbolic.analysis.dimensions import check_model
from symbolic.analysis.domains import check_defined
from symbolic.codegen.arrays import check_on_arrays
from symbolic.codegen.rules import check_rules
from symbolic.analysis.restated import check_docs
from symbolic.model.instances import Instance
from symbolic.model import (
    GroupDecl,
    InputDecl,
    ListDecl,
    MethodDecl,
    NodeDecl,
    OutputDecl,
    ScenarioInputDecl,
    ScenarioModel,
    SubDecl,
    TableDecl,
    TextDecl,
    WorkloadDecl,
)
from symbolic.model.arguments import argument_spec
from symbolic.model.dependencies import closure
from symbolic.catalog.refs import source_of, value_of
from symbolic.scenarios import FAMILIES
from symbolic.runtime.validation import REQUIRED, ListSpec, Spec
from symbolic.codegen.validation_page import RUN
import generated


def _model_context(module: ScenarioModule) -> dict[str, Any]:
    model = module.model
    check_model(model)
    check_defined(model)
    check_docs(model)
    evaluator = evaluator_of(model)
    used = {argument.name for argument in evaluator.arguments}
    by_name = {item.name: item for item in model.structured}

    def owner(decl: InputDecl) -> str:
        """What a missing optional number is named by: a field of a record or node as such
        (`workload.training_ops`, `hardware.tdp`), else its input."""
        item = by_name.get(decl.structured)
        if isinstance(item, WorkloadDecl) or (isinstance(item, NodeDecl) and decl.resolves == "tdp"):
            return f"{decl.structured}.{decl.resolves}"
        return decl.structured or decl.name

    owners = {decl.name: owner(decl) for decl in model.inputs}
    plain = [decl for decl in model.inputs if not decl.structured and not decl.argument]
    specs = {decl.name: input_spec(decl) for decl in plain}

    structured: list[tuple[str, Call]] = []
    docs_rows: dict[str, dict[str, Any]] = {}
    signature_defaults: dict[str, Any] = {}  # each input's default in the class's __init__
    for decl in plain:
        spec = specs[decl.name]
        docs_rows[decl.name] = {"name": decl.name, "latex": decl.latex, "unit": spec.unit, "doc": spec.doc,
                                "type": type_text(spec),
                                "domain": spec.domain, "default": _default_text(spec)}
    validation_imports = {"ListSpec" if isinstance(s, ListSpec) else "InputSpec" for s in specs.values()}
    scenario_imports = set()
    for item in model.structured:
        handled = structured_input(item, model, used)
        structured.append((handled.attribute, handled.spec))
        validation_imports |= handled.imports
        if handled.scenario:
            scenario_imports.add(handled.scenario)
        docs_rows[item.name] = {"name": item.name, "latex": "", "unit": "", "doc": item.doc, "type": handled.type,
                                "domain": handled.domain, "default": handled.default}
        signature_defaults[item.name] = Code(handled.signature_default)
    precisions = []
    for p in model.precisions:
        required = p.default is REQUIRED
        precisions.append(Call.of("PrecisionSpec", p.name, default=Code("REQUIRED") if required else p.default,
                                  doc=p.doc))
        validation_imports |= {"PrecisionSpec", *(["REQUIRED"] if required else [])}
        docs_rows[p.name] = {"name": p.name, "latex": "", "unit": "", "doc": p.doc, "type": "str",
                             "domain": f"a key of {' and '.join(p.nodes)}.precision_flops",
                             "default": "required" if required else repr(p.default)}
        signature_defaults[p.name] = Code("REQUIRED") if required else p.default
    for name, spec in specs.items():
        default = spec.default
        signature_defaults[name] = (Code("REQUIRED") if default is REQUIRED
                                    else tuple(default) if isinstance(default, list) else default)
    signature = [(name, signature_defaults[name]) for name in model.input_order]
    if any(default == Code("REQUIRED") for _, default in signature):
        validation_imports.add("REQUIRED")
    requirements = []
    for requirement in evaluator.requirements:
        check = Code(f"lambda {', '.join(requirement.names)}: {requirement.code}")
        extra: dict[str, Any] = {"unless": requirement.unless} if requirement.unless else {}
        extra |= {"when": requirement.when} if requirement.when else {}
        extra |= {"tested": requirement.tested} if requirement.tested else {}
        requirements.append(Call.of("Requirement", requirement.names, check, requirement.message, **extra))
        validation_imports.add("Requirement")

    feasibility = _feasibility_specs(model)
    reached = usage(model, evaluator)  # refuses an input that reaches no output
    equations_by_name = equations(model)
    runtime_imports: set[str] = set()  # the output descriptors the module uses
    descriptors = [(o.name, descriptor(o, o.name, evaluator, owners, runtime_imports)) for o in model.outputs]
    methods = [o for o in model.outputs if isinstance(o, MethodDecl)]
    if methods:
        validation_imports.add("InputSpec")  # each argument's check
    contained = [*model.contains.values(),
                 *(s.scenario for s in model.structured if isinstance(s, ScenarioInputDecl) and s.scenario is not None)]
    where = {inner.name: inner.module.rsplit(".", 1)[-1] for inner in contained}
    subs = {o.scenario.name for o in model.outputs if isinstance(o, SubDecl) and o.scenario is not None}
    sections = _sections(model, equations_by_name)
    context = {
        "model": model,
        "module": module,
        "specs": [spec_call(specs[decl.name]) for decl in plain],
        "structured": structured,
        "precisions": precisions,
        "requirements": requirements,
        "fits": feasibility["fits"],
        "needs": reached.needs,
        "bounds": feasibility["bounds"],
        "descriptors": descriptors,
        "methods": methods,
        "arguments": [{"name": decl.name, "keyword": decl.argument, "latex": decl.latex, "unit": decl.spec.unit,
                       "domain": argument_domain(decl), "doc": decl.spec.doc,
                       "methods": [m.name for m in methods if decl in m.arguments]} for decl in model.arguments()],
        "attributes": [o for o in model.outputs if not isinstance(o, MethodDecl)],
        "signature": signature,
        "inputs": [docs_rows[name] for name in model.input_order],
        "evaluator": evaluator,
        "equations": equations_by_name,
        "sections": sections,
        "code_name": code_name,
        "instances": [_instance_context(i) for i in module.instances],
        "imports": sorted((where[name], name) for name in subs | scenario_imports),
        "runtime_imports": sorted(runtime_imports, key=str.lower),
        "validation_imports": sorted(validation_imports, key=lambda n: (n != "REQUIRED", n)),
        # the docs site: symbol legends, worked examples, charts, hardware links (symbolic/codegen/site_pages.py)
        **scenario_docs(module, sections, header),
    }
    functions = compiled_functions(context)
    check_on_arrays(model, module.instances, functions)  # every printed form runs on arrays, as sweeps give them
    context["derivations"] = derivations_markdown(model, list(module.instances), Legends(model).for_symbols,
                                                   functions)
    return context


def _feasibility_specs(model: ScenarioModel) -> dict[str, list[Call]]:
    """``FitsSpec(...)`` per ``Fits`` and ``Bound(...)`` per declared output range, each naming the
    inputs (as users name them) its values read, through the dependency graph."""
    by_symbol = {q.symbol: q for q in model.quantities}

    def inputs_of(symbols: list[sympy.Basic]) -> tuple[str, ...]:
        found = closure(symbols, by_symbol)
        names = [decl.structured or decl.name for decl in model.inputs if decl.symbol in found and not decl.argument]
        order = {name: position for position, name in enumerate(model.input_order)}
        return tuple(sorted(set(names), key=lambda name: order.get(name, len(order))))

    fits = [Call.of("FitsSpec", f.name, f.message, f.unit, inputs_of([f.need, f.have])) for f in model.feasibility]
    by_path = {q.name: q for q in model.quantities}
    bounds = [Call.of("Bound", path, low, high, inputs_of([by_path[path].symbol]))
              for path, (low, high) in model.bounds.items()]
    return {"fits": fits, "bounds": bounds}


def compiled_functions(context: dict[str, Any]) -> dict[str, Any]:
    """``evaluate`` and ``gradient`` of a scenario, compiled from the very text the generated
    module will hold, so numbers shown in the docs come from the code users run. The contained
    scenarios it calls are compiled the same way, from this run's declarations (their generated
    modules may be stale until this run writes them)."""
    text = environment().get_template("evaluator_functions.py.j2").render(**context)
    evaluator = context["evaluator"]
    namespace: dict[str, Any] = {}
    for module, function in evaluator.calls:
        inner = next(m for m in context["model"].contains.values() if m.module.rsplit(".", 1)[-1] == module)
        namespace[f"{module}_{function}"] = _compiled_contained(inner)[function]
    helpers = sorted({*HELPERS, *evaluator.helpers})
    source = f"from typing import Any\nfrom symbolic.runtime.mathops import {', '.join(helpers)}\n" + text
    exec(compile(source, f"<evaluator of {context['model'].name}>", "exec"), namespace)  # noqa: S102
    return namespace


_COMPILED: dict[int, tuple[ScenarioModel, dict[str, Any]]] = {}


def _compiled_contained(model: ScenarioModel) -> dict[str, Any]:
    """A contained scenario's compiled functions (their docstrings left empty: only the code runs)."""
    found = _COMPILED.get(id(model))
    if found is None or found[0] is not model:
        blank = {q.name: type("Equation", (), {"text": ""}) for q in model.quantities}
        functions = compiled_functions({"model": model, "evaluator": evaluator_of(model), "equations": blank})
        found = _COMPILED[id(model)] = (model, functions)
    return found[1]


def _sections(model: ScenarioModel, equations_by_name: dict[str, Any]) -> list[dict[str, Any]]:
    """One docs section per output (group members each get their own), with its equations."""
    sections: list[dict[str, Any]] = []

    def visit(output: OutputDecl, prefix: str) -> None:
        path = prefix + output.name
        if isinstance(output, GroupDecl):
            fields = ", ".join(f"`{m.name}`" for m in output.members)
            sections.append({"path": path, "kind": "group", "doc": output.doc, "unit": "",
                             "type": f"a group; its fields: {fields}", "equations": []})
            for member in output.members:
                visit(member, path + ".")
            return
        values = "Quantity" if output.unit else "numbers"
        title = ""
        if isinstance(output, TableDecl):
            found = [q for q in model.quantities if q.name.startswith(path + "[")]
            kind = f"dict of {values}"
        elif isinstance(output, SubDecl):
            found = [q for q in model.quantities if q.sub == output.name and not q.hidden]
            kind = f"[{output.scenario.name}]({output.scenario.name}.md)" if output.scenario else ""
            title = output.sub.title if output.sub else ""
        else:
            found = [q for q in model.quantities if q.name == path]
            kind = "str" if isinstance(output, TextDecl) else "Quantity" if output.unit else "number"
            if isinstance(output, MethodDecl):
                kind = f"method `{method_signature(output)}` → {kind}"
            if isinstance(output, ListDecl):
                kind = f"list of {values}"
                if output.keyed_by:
                    kind = f"dict of {values} by the keys of `{output.keyed_by}`"
                if output.columns_by:
                    kind = (f"dict by the keys of `{output.keyed_by}` of dicts of {values} "
                            f"by the keys of `{output.columns_by}`")
        sections.append({"path": path, "kind": output.kind, "doc": output.doc, "unit": output.unit, "type": kind,
                         "equations": [(q, equations_by_name[q.name]) for q in found], "title": title})

    for output in model.outputs:
        visit(output, "")
    for quantity in model.quantities:  # private steps: on the page, after the outputs, not in the outputs index
        if quantity.private:
            sections.append({"path": quantity.name, "kind": "step", "doc": quantity.doc, "unit": quantity.unit,
                             "type": "a private step (not an attribute: read by the outputs, shown here)",
                             "equations": [(quantity, equations_by_name[quantity.name])], "title": ""})
    return sections


def method_signature(output: MethodDecl) -> str:
    """``name(a, b=1)``, as people call the method."""
    parts = []
    for decl in output.arguments:
        default = decl.spec.default
        if argument_spec(decl).required:
            parts.append(decl.argument)
        else:
            shown = "None" if isinstance(default, sympy.Basic) and not default.is_Number else repr(default)
            parts.append(f"{decl.argument}={shown}")
    return f"{output.name}({', '.join(parts)})"


def argument_domain(decl: InputDecl) -> str:
    """An argument's domain in words, with its default."""
    if argument_spec(decl).key_of:
        return f"a key of `{argument_spec(decl).key_of}`"
    spec = input_spec(decl)
    text = spec.domain
    if spec.default_rule:
        text += f"; when not given, {spec.default_rule}"
    elif not argument_spec(decl).required:
        text += f"; default {spec.default!r}"
    return text


def _default_text(spec: Spec) -> str:
    if spec.default is REQUIRED:
        return "required"
    if spec.default_rule:
        return f"= {spec.default_rule}"
    return "None (optional)" if spec.default is None else repr(spec.default)


CATALOG_NAMES = ("Constants", "Datasets", "Hardware", "Models", "Systems")


def _instance_context(instance: Instance) -> dict[str, Any]:
    sources = {name: source_of(value) for name, value in instance.inputs.items()}
    text = " ".join(sources.values())
    return {
        "key": instance.key,
        "name": instance.name,
        "description": instance.description,
        "class": instance.scenario.model.name,
        "base": instance.base.key if instance.base else "",
        "sources": sources,
        # what the registry's builder imports when first called
        "catalog_names": [n for n in CATALOG_NAMES if re.search(rf"\b{n}\b", text)],
        # record types a custom record is built with (symbolic.catalog.custom): module -> names
        "record_imports": sorted((module, name) for name, module in record_types().items()
                                 if re.search(rf"(?<![.\w]){name}\(", text)),
        "uses_quantity": "Q_(" in text,
        "values": {name: _shown(value_of(value)) for name, value in instance.all_inputs().items()},
    }


def _shown(value: Any) -> str:
    if isinstance(value, dict):  # a keyed list input: name: value, in its order
        return "{" + ", ".join(f"{key}: {_shown(item)}" for key, item in value.items()) + "}"
    path = getattr(value, "path", "")
    if path and hasattr(value, "registry_path"):
        return value.registry_path
    if path:
        return f"Hardware.{path}" if type(value).__name__ == "HardwareNode" else f"Datasets.{path}"
    if hasattr(value, "units") and isinstance(value.magnitude, Fraction):  # another entry's output, exact
        value = type(value)(float(value.magnitude), value.units)
    if hasattr(value, "units"):
        return f"{value:~P}"
    if isinstance(value, Instance):
        return f"Scenarios.{value.key}"
    return repr(value)


def render_scenario(module: ScenarioModule) -> ScenarioRecord:
    """One scenario's own files (evaluator module, Markdown and LaTeX pages, chart) and its record."""
    check_rules(module)  # names, its test file, shares (symbolic/codegen/rules.py)
    env = environment()
    context = _model_context(module)
    name = module.model.name
    files = {
        f"generated/{module.name}.py": env.get_template("evaluator.py.j2").render(
            header=header(module.source, "evaluator.py.j2"), **context),
        f"generated/docs/scenarios/{name}.md": env.get_template("scenario.md.j2").render(
            header=header(module.source, "scenario.md.j2"), **context),
        f"generated/latex/{name}.tex": env.get_template("scenario.tex.j2").render(
            header=header(module.source, "scenario.tex.j2"), **context),
        f"generated/js/{module.name}.mjs": env.get_template("evaluator.mjs.j2").render(
            header=header(module.source, "evaluator.mjs.j2"), js=js_module(module.model, context["evaluator"]),
            **context),
    }
    chart = sweep_chart(module, header(module.source, "charts.mplstyle"))
    if chart is not None:
        files[f"generated/docs/charts/{name}.svg"] = chart[1]
        printed = sweep_chart(module, header(module.source, "charts.mplstyle"), kind="pdf")
        assert printed is not None
        files[f"generated/latex/charts/{name}.pdf"] = printed[1]  # the same chart for the handbook
    files = formatted(files)
    instances = [{**_instance_context(i), "hardware": hardware_used(i), "module": module.name} for i in module.instances]
    sections = [{key: str(section[key]) for key in ("path", "kind", "unit", "doc", "type")}
                for section in context["sections"] if section["kind"] != "step"]
    return ScenarioRecord(module.name, module.family, module.source, name, module.model.summary, tuple(instances),
                          tuple(sections), tuple((p.label, p.intensity, p.precision) for p in placements([module])),
                          files)


RUNTIME_NAMES = {
    "symbolic.runtime.errors": ("InfeasibleError", "InputTypeError", "MissingInputError", "MlsysymError",
                                "ScenarioInputError"),
    "symbolic.runtime.hardware": ("DatasetProfile", "HardwareNode"),
    "symbolic.runtime.scenario": ("ScenarioBase",),
    "symbolic.runtime.units": ("Q_",),
}


def _public_names(records: list[ScenarioRecord]) -> dict[str, str]:
    """``generated``'s public names, each with the module that defines it."""
    names = {name: "generated.catalog" for name in CATALOG_NAMES} | {"Scenarios": "generated.registry"}
    names |= record_types()
    names |= {name: module for module, group in RUNTIME_NAMES.items() for name in group}
    names |= {record.name: f"generated.{record.module}" for record in records}
    return dict(sorted(names.items(), key=lambda item: item[0].lower()))


def validation_run_committed() -> bool:
    """Whether ``benchmarks/validation.json`` is there: the handbook then ends with its section."""

    return RUN.exists()


def render_site(records: list[ScenarioRecord]) -> dict[str, str]:
    """The files about every scenario (registry, package, indexes, catalog, hardware), from the records."""
    env = environment()
    check_unique_names([(r.source, r.name, [i["key"] for i in r.instances]) for r in records])
    files: dict[str, str] = {}
    instances = [instance for record in records for instance in record.instances]
    files["generated/registry.py"] = env.get_template("registry.py.j2").render(
        header=header("symbolic/scenarios/*/*.py (Instance declarations)", "registry.py.j2"), instances=instances)
    files["generated/catalog.py"] = env.get_template("catalog.py.j2").render(
        header=header("symbolic/catalog/*.toml", "catalog.py.j2"),
        tiers=_grouped(hardware_records(), "tier"), datasets=dataset_records(),
        constants=_grouped(constant_records(), "section"),
        models=[(tier, [(e, *entry_arguments(e)) for e in group]) for tier, group in _grouped(workload_entries(), "tier")],
        record_types=record_types(),
        node_extras={r.path: node_extra(r) for r in hardware_records()},
        node_links={r.path: [(link, link_arguments(r, link)) for link in r.links] for r in hardware_records()},
        tech_storage=[(e, *entry_arguments(e)) for e in systems_entries() if e.tier == "TechStorage"],
        systems=[(tier, [(e, *entry_arguments(e)) for e in group])
                 for tier, group in _grouped(systems_entries(), "tier") if tier != "TechStorage"],
        network=_grouped(network_records(), "section"),
    )
    for name in RECORD_MODULES:
        files[f"generated/{name}.py"] = record_module(name, header(record_source(name), "records.py.j2"))
    files["generated/__init__.py"] = env.get_template("init.py.j2").render(
        header=header("symbolic/scenarios/*/*.py", "init.py.j2"), records=records, public=_public_names(records))
    files["generated/docs/index.md"] = env.get_template("index.md.j2").render(
        header=header("symbolic/scenarios/*/*.py", "index.md.j2"), instances=instances,
        families=[(title, group) for family, title in FAMILIES.items()
                  if (group := [record for record in records if record.family == family])])
    files["generated/latex/handbook.tex"] = env.get_template("handbook.tex.j2").render(
        header=header("symbolic/scenarios/*/*.py", "handbook.tex.j2"), records=records,
        validation=validation_run_committed())
    files.update(site_files(env, records, header))  # hardware, outputs, units pages; rooflines
    files.update(reference_files(env, header))  # the CLI reference and the benchmark results
    files["generated/js/mathops.mjs"] = env.get_template("mathops.mjs.j2").render(
        header=header("symbolic/codegen/jsprint.py (the helpers its output calls)", "mathops.mjs.j2"))
    return formatted(files)


def install_fresh_records() -> None:
    """Before the scenarios are loaded: where ``generated/workloads.py`` or ``systems.py`` is stale (a record
    type changed), the text it is about to hold becomes the module the catalog builds its records with."""

    texts = formatted({f"generated/{name}.py": record_module(name, header(record_source(name), "records.py.j2"))
                       for name in RECORD_MODULES})
    for name in RECORD_MODULES:
        on_disk = Path(generated.__file__).with_name(f"{name}.py")
        if not on_disk.is_file() or on_disk.read_text(encoding="utf-8") != texts[f"generated/{name}.py"]:
            install(name, texts[f"generated/{name}.py"])


def render_all(modules: list[ScenarioModule] | None = None) -> dict[str, str]:
    """Every generated file, keyed by its path relative to the repository root (no cache)."""
    if modules is None:
        install_fresh_records()
    modules = discover() if modules is None else modules
    records = [render_scenario(module) for module in modules]
    files = render_site(records)
    for record in records:
        files.update(record.files)
    return files


def _grouped(records: tuple[Any, ...], field: str) -> list[tuple[str, list[Any]]]:
    """Records grouped by ``field``, groups and members in file order."""
    groups: dict[str, list[Any]] = {}
    for record in records:
        groups.setdefault(getattr(record, field), []).append(record)
    return list(groups.items())
