"""The docs site's extra context and pages: cross-links, worked examples, charts, catalog pages.

``scenario_docs`` adds to a scenario page's context: a symbol legend per equation (each
symbol linked to where it is defined), a worked example per registry instance, the
sweep chart, and links from instances to the hardware they use. ``site_files`` renders
the pages that are not about one scenario (the hardware catalog with its rooflines, the
alphabetical index of outputs, the units page) and every chart.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sympy
from jinja2 import Environment

from symbolic.catalog import TIERS, Hardware, NodeRecord, hardware_records
from symbolic.codegen.catalog_pages import models_page, shown, systems_page
from symbolic.codegen.roofline_svg import roofline_svgs
from symbolic.codegen.charts import Placement, ceilings, roofline_charts, sweep_chart
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.record import ScenarioRecord
from symbolic.analysis.exact import evaluate, instance_values, needed
from symbolic.codegen.worked import number_latex, worked_example
from symbolic.model.instances import EntryRef
from symbolic.model import UNIT_SYMBOLS, GroupDecl, InputDecl, ListDecl, ListQuantity, Quantity, ScenarioInputDecl, ScenarioModel
from symbolic.model.dependencies import closure, reads
from symbolic.catalog.refs import source_of, value_of
from symbolic.runtime.hardware import CHAIN, PEAK, PRECISION_ALIASES
from symbolic.runtime.units import UNITS_FILE, registry

Header = Callable[[str, str], list[str]]
GLANCE_CLOSED_FORM = 200  # longest closed form (LaTeX characters) shown beside a chart; all are under Equations
# A node's path names a node tier (Hardware.Tech.Storage.* are storage tiers, not nodes).
_HARDWARE_PATH = re.compile(rf"\bHardware\.({'|'.join(TIERS)})\.(\w+)")


def slug(text: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc) gives a heading with this text."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def node_anchor(path: str) -> str:
    """The hardware page's anchor of a node, e.g. ``Cloud.H100`` -> ``hardwarecloudh100``."""
    return slug(f"Hardware.{path}")


def hardware_used(instance: Any) -> list[str]:
    """Catalog paths of the hardware nodes an instance's declaration mentions, in order."""
    found: dict[str, None] = {}
    for value in instance.all_inputs().values():
        for tier, key in _HARDWARE_PATH.findall(source_of(value)):
            found[f"{tier}.{key}"] = None
    return list(found)


# -- symbol legends ----------------------------------------------------------------------------
@dataclass(frozen=True)
class LegendEntry:
    latex: str
    name: str
    href: str
    title: str

    @property
    def markdown(self) -> str:
        title = self.title.replace('"', "'").replace("\n", " ")
        return f'[${self.latex}$ `{self.name}`]({self.href} "{title}")'


class Legends:
    """Where each symbol of a model is defined, for the links under its equations."""

    def __init__(self, model: ScenarioModel) -> None:
        self.model = model
        self.inputs: dict[sympy.Basic, InputDecl] = {}
        for decl in model.inputs:
            self.inputs[decl.symbol] = decl
            if isinstance(decl.symbol, sympy.IndexedBase):
                self.inputs[decl.symbol.label] = decl
        self.quantities: dict[sympy.Basic, Quantity] = {}
        for quantity in model.quantities:
            self.quantities[quantity.symbol] = quantity
            if isinstance(quantity.symbol, sympy.IndexedBase):
                self.quantities[quantity.symbol.label] = quantity
        self.order = {symbol: n for n, symbol in enumerate([*self.inputs, *self.quantities])}

    def entry(self, symbol: sympy.Basic) -> LegendEntry | None:
        if symbol in self.inputs:
            decl = self.inputs[symbol]
            if not decl.structured:
                return LegendEntry(decl.latex, decl.name, f"#input-{decl.name}", decl.spec.doc)
            owner = next(s for s in self.model.structured if s.name == decl.structured)
            if isinstance(owner, ScenarioInputDecl) and owner.scenario is not None and decl.resolves.startswith("output:"):
                path = decl.resolves.removeprefix("output:")  # a number read from one of its outputs
                anchor = slug(re.sub(r"\[.*\]$", "", path))
                return LegendEntry(decl.latex, f"{owner.name}.{path}", f"{owner.scenario.name}.md#{anchor}",
                                   decl.spec.doc)
            if isinstance(owner, ScenarioInputDecl) and owner.scenario is not None:
                inner = next(d for d in owner.scenario.inputs if d.name == decl.resolves)
                return LegendEntry(decl.latex, f"{owner.name}.{decl.resolves}",
                                   f"{owner.scenario.name}.md#input-{inner.structured or inner.name}", decl.spec.doc)
            return LegendEntry(decl.latex, f"{owner.name}.{decl.resolves}", f"#input-{owner.name}", decl.spec.doc)
        quantity = self.quantities.get(symbol)
        if quantity is None:
            return None  # a unit constant or a bound index
        if quantity.hidden:
            return self._hidden(quantity)
        section = quantity.sub or re.sub(r"\[.*\]$", "", quantity.name)
        if quantity.table:  # one entry for the whole table, e.g. op_flops_k
            latex = re.sub(r"_\{\\mathrm\{[^{}]*\}\}$", "_{k}", quantity.latex)
            return LegendEntry(latex, section, f"#{slug(section)}", quantity.doc)
        return LegendEntry(quantity.latex, quantity.name, f"#{slug(section)}", quantity.doc)

    def _hidden(self, quantity: Quantity) -> LegendEntry:
        """A step of a contained scenario links to the contained scenario's own page."""
        rest = quantity.name.removeprefix(f"{quantity.sub}.")
        inner = self.model.contains.get(quantity.sub)
        if inner is not None:
            if any(q.name == rest for q in inner.quantities):
                section = re.sub(r"\[.*\]$", "", rest)
                return LegendEntry(quantity.latex, quantity.name, f"{inner.name}.md#{slug(section)}", quantity.doc)
            if any(d.name == rest and not d.structured for d in inner.inputs):
                return LegendEntry(quantity.latex, quantity.name, f"{inner.name}.md#input-{rest}", quantity.doc)
        return LegendEntry(quantity.latex, quantity.name, "#equations", quantity.doc)

    def reads(self, quantity: Quantity) -> set[sympy.Basic]:
        """The symbols a quantity's definition reads, and the inputs its closed form reads."""
        direct = reads(quantity)
        closed_inputs = {s for s in closure(direct, self.quantities) if s in self.inputs}
        return {*direct, *closed_inputs}

    def markdown(self, quantities: list[Quantity]) -> str:
        """One line linking every symbol the quantities' equations use."""
        own = {q.symbol for q in quantities}
        symbols = set().union(*(self.reads(q) for q in quantities)) - own if quantities else set()
        return self.for_symbols(symbols)

    def for_symbols(self, symbols: set[sympy.Basic]) -> str:
        """One line linking the given symbols (e.g. those of a derived formula)."""
        entries: dict[str, LegendEntry] = {}
        for symbol in sorted(symbols, key=lambda s: (self.order.get(s, len(self.order)), str(s))):
            if symbol in UNIT_SYMBOLS:
                continue
            entry = self.entry(symbol)
            if entry is not None:
                entries.setdefault(entry.name, entry)
        return " · ".join(e.markdown for e in entries.values())


# -- scenario pages -----------------------------------------------------------------------------------
def scenario_docs(module: ScenarioModule, sections: list[dict[str, Any]], header: Header) -> dict[str, Any]:
    """Context keys the scenario templates use beyond the declaration itself."""
    model = module.model
    legends = Legends(model)
    section_legends = {}
    for section in sections:
        if section["kind"] in ("table", "sub"):
            section_legends[section["path"]] = legends.markdown([q for q, _ in section["equations"]])
        for quantity, _ in section["equations"]:
            section_legends.setdefault(quantity.name, legends.markdown([quantity]))
    chart = sweep_chart(module, header(module.source, "charts.mplstyle"))
    glance = None
    if chart is not None:
        found = {q.name: (q, e, s["path"]) for s in sections for q, e in s["equations"]}
        # a keyed list entry (result.ring_time[64]) shows the list's equation, once
        paths = dict.fromkeys(series.quantity if series.quantity in found else series.quantity.partition("[")[0]
                              for series in chart[0].series)
        plotted = [found[path] for path in paths]
        glance = {"path": f"../charts/{model.name}.svg", "caption": chart[0].caption,
                  "equations": [(q, e, f"#{slug(path)}", len(e.closed) <= GLANCE_CLOSED_FORM) for q, e, path in plotted]}
    instances = []
    for instance in module.instances:
        nodes = hardware_used(instance)
        values = {}
        for name, value in instance.all_inputs().items():
            plain = value_of(value)
            if getattr(plain, "path", "") and type(plain).__name__ == "HardwareNode":
                values[name] = f"[Hardware.{plain.path}](../hardware.md#{node_anchor(plain.path)})"
            elif hasattr(plain, "scenario") and hasattr(plain, "key"):
                values[name] = f"[Scenarios.{plain.key}]({plain.scenario.model.name}.md#{slug(plain.key)})"
            elif isinstance(value, EntryRef):  # another entry's output or input: linked to where it comes from
                owner = value.owner
                text = f"{type(plain)(float(plain.magnitude), plain.units):~P}" if hasattr(plain, "units") else plain
                values[name] = f"[{text}]({owner.scenario.model.name}.md#{slug(owner.key)})"
        worked = worked_example(model, instance)
        instances.append({
            "grids": grid_tables(model, instance),
            "key": instance.key,
            "links": values,
            "hardware": [(path, f"../hardware.md#{node_anchor(path)}") for path in nodes],
            "worked": worked,
            "steps": [(step, f"#{slug(_section_of(model, step.name))}") for step in worked.steps],
        })
    return {
        "legends": section_legends,
        "chart": glance,
        "docs_instances": instances,
    }


def grid_tables(model: ScenarioModel, instance: Any) -> list[dict[str, Any]]:
    """Each grid output of ``instance`` (``times[path][message]``) as a Markdown table: rows by the
    keys of its first keyed input, columns by the second, values in the output's unit."""
    grids = [(q, o) for q in model.quantities for o in _grid_outputs(model.outputs)
             if isinstance(q, ListQuantity) and q.inner and q.name.split(".")[-1] == o.name]
    if not grids:
        return []
    evaluation = evaluate(model, instance_values(instance), needed(model, [q.name for q, _ in grids]))
    given = instance.all_inputs()
    tables = []
    for quantity, output in grids:
        rows = [str(k) for k in value_of(given[output.keyed_by])]
        columns = [str(k) for k in value_of(given[output.columns_by])]
        values = evaluation.shown[quantity.name]
        lines = ["| " + " | ".join([f"`{output.keyed_by}` \\ `{output.columns_by}`", *columns]) + " |",
                 "| " + " | ".join(["---"] * (len(columns) + 1)) + " |"]
        for n, row in enumerate(rows):
            cells = [f"{float(v):.6g}" for v in values[n * len(columns):(n + 1) * len(columns)]]
            lines.append("| " + " | ".join([row, *cells]) + " |")
        tables.append({"path": quantity.name, "unit": quantity.unit, "anchor": f"#{slug(quantity.name)}",
                       "empty": not rows or not columns, "table": "\n".join(lines)})
    return tables


def _grid_outputs(outputs: Any) -> Any:
    for output in outputs:
        yield from _grid_outputs(output.members) if isinstance(output, GroupDecl) else (
            [output] if isinstance(output, ListDecl) and output.columns_by else [])


def _section_of(model: ScenarioModel, name: str) -> str:
    """The Equations section a quantity (or one entry of a list or grid) is shown in."""
    base = re.sub(r"(\[[^\]]*\])+$", "", name)
    quantity = next((q for q in model.quantities if q.name in (name, base)), None)
    return quantity.sub if quantity is not None and quantity.sub else base


# -- the other pages ------------------------------------------------------------------------------
def site_files(env: Environment, scenarios: list[ScenarioRecord], header: Header) -> dict[str, str]:
    """The hardware, outputs and units pages and the roofline charts, keyed by path."""
    files: dict[str, str] = {}
    used: dict[str, list[str]] = {}
    for scenario in scenarios:
        for instance in scenario.instances:
            for path in instance["hardware"]:
                used.setdefault(path, []).append(instance["key"])
    where = {instance["key"]: scenario.name for scenario in scenarios for instance in scenario.instances}
    workloads = [Placement(*placement) for scenario in scenarios for placement in scenario.placements]
    charts = roofline_charts(workloads, sorted(used), header("symbolic/catalog/hardware.toml", "charts.mplstyle"))
    for name, svg in charts.items():
        files[f"generated/docs/charts/roofline/{name}.svg"] = svg
    light = [record for record in hardware_records() if record.path not in charts]  # the rest, drawn fast
    for path, svg in roofline_svgs(env, light, workloads, header("symbolic/catalog/hardware.toml",
                                                                 "roofline.svg.j2")).items():
        files[f"generated/docs/charts/roofline/{path}.svg"] = svg
    tiers: dict[str, list[dict[str, Any]]] = {}
    for record in hardware_records():
        tiers.setdefault(record.tier, []).append(_node_row(record, used.get(record.path, []), where))
    files["generated/docs/hardware.md"] = env.get_template("hardware.md.j2").render(
        header=header("symbolic/catalog/hardware.toml, symbolic/runtime/hardware.py", "hardware.md.j2"), tiers=tiers,
        workloads=workloads, aliases=PRECISION_ALIASES, peak=PEAK, chain=CHAIN,
        charted={record.path for record in hardware_records()})
    files["generated/docs/models.md"] = models_page(env, header("symbolic/catalog/workloads.py, workloads.toml",
                                                                "models.md.j2"))
    files["generated/docs/systems.md"] = systems_page(env, header("symbolic/catalog/systems.py, systems.toml",
                                                                  "systems.md.j2"))
    files["generated/docs/outputs.md"] = env.get_template("outputs.md.j2").render(
        header=header("symbolic/scenarios/*/*.py", "outputs.md.j2"), letters=_outputs_index(scenarios))
    files["generated/docs/units.md"] = env.get_template("units.md.j2").render(
        header=header("symbolic/units.txt", "units.md.j2"), **units_page())
    return files


def _rate(value: float, unit: str) -> str:
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def _node_row(record: NodeRecord, users: list[str], where: dict[str, str]) -> dict[str, Any]:
    bandwidth = float(record.memory_bandwidth.base)
    return {
        "record": record,
        "anchor": node_anchor(record.path),
        "bandwidth": _rate(bandwidth, "B/s"),
        "headline": _rate(float(record.peak_flops.base), "FLOP/s"),
        "headline_ridge": f"{float(record.peak_flops.base) / bandwidth:.4g}",
        "precisions": [(key, record.precision_flops[key].text if key in record.precision_flops else record.peak_flops.text,
                        _rate(peak, "FLOP/s"), f"{peak / bandwidth:.4g}") for key, peak in ceilings(record)],
        "users": [(key, f"scenarios/{where[key]}.md#{slug(key)}") for key in users],
        "facts": _node_facts(record),
        "aliases": getattr(getattr(Hardware.value.built, record.tier), record.key).precision_aliases,
    }


def _node_facts(record: NodeRecord) -> dict[str, str]:
    """Power, dispatch tax, price and links of a node, as the runtime node reports them (the
    links' one-way bandwidth and the labeled capacity come from their declared derivations)."""
    node = getattr(getattr(Hardware.value.built, record.tier), record.key)
    power = shown(node.tdp)
    if node.tdp_min is not None:
        power += f" ({shown(node.tdp_min)} – {shown(node.tdp_max)})"
    cost = shown(node.unit_cost) + ("" if node.unit_cost_max is None else f" (max {shown(node.unit_cost_max)})")
    links = {}
    for name in ("interconnect", "nvlink"):
        link = getattr(node, name)
        links[name] = "–" if link is None else (
            f"{link.name}: {shown(link.bandwidth)} {link.direction.replace('_', ' ')}, "
            f"{shown(link.bandwidth_per_direction.to('GB/s'))} one way"
            + ("" if link.latency is None else f", {shown(link.latency)}"))
    return {"tdp": power, "dispatch_tax": shown(node.dispatch_tax), "unit_cost": cost,
            "labeled": shown(node.memory.labeled_capacity.to("GB")), **links}


def _outputs_index(records: list[ScenarioRecord]) -> list[tuple[str, list[dict[str, Any]]]]:
    rows = []
    for record in records:
        name = record.name
        for section in record.sections:
            if section["kind"] == "group":
                continue
            rows.append({"name": section["path"].split(".")[-1], "path": section["path"], "scenario": name,
                         "href": f"scenarios/{name}.md#{slug(section['path'])}", "unit": section["unit"],
                         "doc": section["doc"], "type": section["type"].replace("](", "](scenarios/")})
    rows.sort(key=lambda r: (r["name"].lower(), r["scenario"], r["path"]))
    letters: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        letters.setdefault(row["name"][0].upper(), []).append(row)
    return list(letters.items())


# -- units -----------------------------------------------------------------------------------------------
def units_page() -> dict[str, Any]:
    """The units file as sections of prefixes and units, with each unit's dimension and base value."""
    lines = Path(UNITS_FILE).read_text(encoding="utf-8").splitlines()
    preamble = []
    for line in lines:
        if not line.startswith("#"):
            break
        preamble.append(line[1:].removeprefix(" "))
    sections: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    ureg = registry()
    for line in lines[len(preamble):]:
        text = line.strip()
        if not text:
            current = None
            continue
        if text.startswith("#"):
            current = {"title": text.lstrip("# ").strip(), "prefixes": [], "units": []}
            sections.append(current)
            continue
        if current is None:
            current = {"title": "Definitions", "prefixes": [], "units": []}
            sections.append(current)
        parts = [part.strip() for part in text.split("=")]
        name, definition, aliases = parts[0], parts[1], [a for a in parts[2:] if a and a != "_"]
        if name.endswith("-"):
            current["prefixes"].append({"name": name[:-1], "factor": definition,
                                        "symbols": [a.rstrip("-") for a in aliases],
                                        "value": number_latex(sympy.sympify(definition.replace("**", "^"),
                                                                            convert_xor=True))[0]})
            continue
        quantity = ureg.Quantity(1, name)
        dimension = str(quantity.dimensionality) if not quantity.dimensionless else "dimensionless"
        base = quantity.to_base_units()
        current["units"].append({"name": name, "definition": definition, "aliases": aliases, "dimension": dimension,
                                 "base": f"{base.magnitude:.6g} {base.units:~P}".strip()})
    return {"preamble": preamble, "sections": sections}
