"""Charts for the docs: matplotlib SVGs computed from the declarations, byte-for-byte reproducible.

Two kinds:

* a **sweep** per scenario: its main outputs against its main input, every point an
  exact evaluation of the declaration (``symbolic.analysis.exact``) at one registry
  instance's inputs with that one input changed; the instance itself is marked;
* a **roofline** per hardware node: the attainable rate ``min(peak, bandwidth × I)`` for
  every precision the node lists (its headline peak when it lists none), with every
  registry workload whose arithmetic intensity the declarations give placed on it;
* a **ridge map** per hardware tier: each node as one point at its ridge point and headline
  peak (the two numbers that fix its roofline), with the workloads' intensities.

The style lives in ``templates/charts.mplstyle``; the SVG keeps text as text, uses a
fixed hash salt for element ids and carries no date or tool version.
"""

from __future__ import annotations

import hashlib
import io
from importlib import metadata
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from symbolic.catalog import NodeRecord, hardware_records
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.locations import TEMPLATES
from symbolic.codegen.pdf_figure import pdf_text
from symbolic.runtime.errors import DeclarationError
from symbolic.analysis.exact import evaluate, exact, instance_values, needed
from symbolic.model.instances import Instance
from symbolic.model import GroupDecl, ListDecl
from symbolic.model.presentation import Sweep
from symbolic.catalog.refs import value_of

STYLE = "charts.mplstyle"
CHART_CACHE: Path | None = None  # where drawn SVGs are kept by a digest of what they plot (None: not kept)


def _cached(what: tuple[Any, ...], draw: Callable[[], str], suffix: str = ".svg") -> str:
    """``draw()``, or the chart (SVG, or PDF text) drawn before for the same data, style and matplotlib."""
    if CHART_CACHE is None:
        return draw()
    # the installed version, read without importing matplotlib (a cached chart needs none of it)
    matplotlib_version = metadata.version("matplotlib")
    key = hashlib.sha256(repr((what, (TEMPLATES / STYLE).read_text(encoding="utf-8"), matplotlib_version)).encode())
    path = CHART_CACHE / f"{key.hexdigest()}{suffix}"
    if path.is_file():
        path.touch()  # recently used: kept by the pruning in symbolic.codegen.pipeline
        return path.read_text(encoding="utf-8")
    svg = draw()
    CHART_CACHE.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(svg, encoding="utf-8")
    temporary.replace(path)
    return svg


@dataclass(frozen=True)
class Placement:
    """A registry workload on a roofline: its arithmetic intensity and its own precision."""

    label: str
    intensity: float  # flop/byte
    precision: str  # "" when the workload names none


# -- rendering ------------------------------------------------------------------------
def _svg(figure: Any, header: list[str], tight: bool = True) -> str:
    """SVG text: no XML declaration, no date or creator, the generated-file header first.

    ``tight`` crops to the drawn content (needed for a legend outside the axes; it costs
    a second drawing pass).
    """
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(figure)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None},
                   bbox_inches="tight" if tight else None)
    lines = buffer.getvalue().splitlines(keepends=True)
    if lines and lines[0].startswith("<?xml"):
        lines = lines[1:]
    return "".join(f"<!-- {line} -->\n" for line in header) + "".join(lines)


def _style() -> Any:
    import matplotlib

    return matplotlib.rc_context(fname=str(TEMPLATES / STYLE))


def _figure() -> Any:
    from matplotlib.figure import Figure

    _share_mathtext_parser()
    return Figure()


@lru_cache(maxsize=None)
def _share_mathtext_parser() -> None:
    """One mathtext parser for every renderer of the process.

    matplotlib gives each renderer its own ``TextToPath`` and with it its own
    ``MathTextParser``, whose parse cache is keyed by the parser object: every chart (twice,
    with a tight bounding box) parsed each log-axis tick label (``$\\mathdefault{10^{3}}$``)
    again with pyparsing, about a third of a chart's time. The parser keeps no state between
    parses beyond that cache, so sharing it changes no output.
    """
    from matplotlib import textpath
    from matplotlib.mathtext import MathTextParser

    shared = MathTextParser("path")
    own_init = textpath.TextToPath.__init__

    def init(self: Any) -> None:
        own_init(self)
        self.mathtext_parser = shared

    textpath.TextToPath.__init__ = init  # type: ignore[method-assign]


def sweep_chart(module: ScenarioModule, header: list[str], kind: str = "svg") -> tuple[Sweep, str] | None:
    """The scenario's sweep chart as SVG text (or, ``kind="pdf"``, as ASCII PDF text for the
    handbook), or None when it has no sweep (cached per process)."""
    sweep = module.model.chart
    if sweep is None:
        return None
    check_chart(module, sweep)
    key = (module.name, sweep, tuple(header), kind)
    if key not in _SWEEP_CACHE:
        _SWEEP_CACHE[key] = _sweep_drawn(module, sweep, header, kind)
    return sweep, _SWEEP_CACHE[key]


def check_chart(module: ScenarioModule, sweep: Sweep) -> None:
    """A chart names an instance of its module, one of the scenario's inputs (or an entry of a
    keyed list input) and outputs it defines: a misspelt name is a declaration error, not a
    page without its chart or a bare StopIteration."""
    model = module.model
    keys = [i.key for i in module.instances]
    if sweep.instance not in keys:
        raise DeclarationError(f"{model.name}: the chart's instance {sweep.instance!r} is not a registry entry of "
                               f"{module.name}; its entries: {', '.join(keys) or 'none'}")
    inputs = {d.name for d in model.inputs}  # a number of a scenario input too (`network_batch_size`)
    if sweep.input.partition("[")[0] not in inputs:
        raise DeclarationError(f"{model.name}: the chart varies {sweep.input!r}, which is not a numeric input; "
                               f"inputs: {', '.join(sorted(inputs))}")
    quantities = {q.name for q in model.quantities}
    for series in sweep.series:
        if series.quantity not in quantities and series.quantity.partition("[")[0] not in quantities:
            raise DeclarationError(f"{model.name}: chart series {series.quantity!r} is not an output of the scenario"
                                   + (" (it is an input: plot an output)" if series.quantity in inputs else ""))


_SWEEP_CACHE: dict[tuple[str, Sweep, tuple[str, ...], str], str] = {}  # one module name, one declaration per process


def _sweep_drawn(module: ScenarioModule, sweep: Sweep, header: list[str], kind: str) -> str:
    instance_key, at, points, marks = _sweep_points(module, sweep)
    what = ("sweep", tuple(header), sweep, instance_key, at, tuple(points.items()), marks)
    if kind == "pdf":
        return _cached(what, lambda: _draw_sweep(sweep, instance_key, at, points, marks, header, pdf=True), ".pdf")
    return _cached(what, lambda: _draw_sweep(sweep, instance_key, at, points, marks, header))


def _sweep_points(module: ScenarioModule, sweep: Sweep) -> tuple[str, float, dict[str, list[float]], dict[str, float]]:
    """The plotted numbers: each series at every swept value, and at the marked instance
    (computed once per process: the SVG and the PDF plot the same)."""
    key = (module.name, sweep)
    if key not in _POINTS_CACHE:
        _POINTS_CACHE[key] = _computed_points(module, sweep)
    return _POINTS_CACHE[key]


_POINTS_CACHE: dict[tuple[str, Sweep], tuple[str, float, dict[str, list[float]], dict[str, float]]] = {}


def _computed_points(module: ScenarioModule, sweep: Sweep) -> tuple[str, float, dict[str, list[float]], dict[str, float]]:
    instance = next(i for i in module.instances if i.key == sweep.instance)
    base = instance_values(instance)
    points: dict[str, list[float]] = {s.quantity: [] for s in sweep.series}
    names = {q.name for q in module.model.quantities}  # a keyed list entry needs its whole list
    only = needed(module.model, [s.quantity if s.quantity in names else s.quantity.partition("[")[0]
                                 for s in sweep.series])
    for x in sweep.values:
        evaluation = evaluate(module.model, _varied(instance, base, sweep.input, exact(x)), only)
        for s in sweep.series:
            points[s.quantity].append(float(_shown_value(module, instance, evaluation, s.quantity)))
    marked = evaluate(module.model, base)
    marks = {s.quantity: float(_shown_value(module, instance, marked, s.quantity)) for s in sweep.series}
    return instance.key, float(_input_value(instance, base, sweep.input)), points, marks


def _entry_position(instance: Instance, name: str, key: str) -> int:
    """Where entry ``key`` of the keyed list input ``name`` sits in the numbers the math reads
    (an aligned input is read in the order of the input it is aligned to)."""
    decl = next(d for d in instance.scenario.model.inputs if d.name == name)
    order = getattr(decl.spec, "aligned_to", "") or name
    return [str(k) for k in value_of(instance.all_inputs()[order])].index(key)


def _input_value(instance: Instance, base: dict[str, Any], path: str) -> Any:
    """The swept input's value: a scalar input, or one entry of a keyed list input (``messages[shard]``)."""
    if "[" not in path:
        return base[path]
    name, _, key = path[:-1].partition("[")
    return base[name][_entry_position(instance, name, key)]


def _varied(instance: Instance, base: dict[str, Any], path: str, x: Any) -> dict[str, Any]:
    """The instance's inputs with the swept input (or one entry of a keyed list input) set to ``x``."""
    if "[" not in path:
        return {**base, path: x}
    name, _, key = path[:-1].partition("[")
    values = list(base[name])
    values[_entry_position(instance, name, key)] = x
    return {**base, name: values}


def _draw_sweep(sweep: Sweep, key: str, at: float, points: dict[str, list[float]], marks: dict[str, float],
                header: list[str], pdf: bool = False) -> str:
    with _style():
        figure = _figure()
        axes = figure.subplots()
        for s in sweep.series:
            line, = axes.plot(sweep.values, points[s.quantity], linestyle="--" if s.dashed else "-", label=s.label,
                              color=s.color)
            axes.plot([at], [marks[s.quantity]], "o", color=line.get_color())
        axes.set_xscale("log")
        if sweep.logy:
            axes.set_yscale("log")
        _no_minor_ticks(axes)
        axes.set_xlabel(sweep.xlabel)
        axes.set_ylabel(sweep.ylabel)
        axes.set_title(f"{key} (marked), {sweep.input} varied")
        axes.legend()
        figure.subplots_adjust(left=0.11, right=0.97, bottom=0.12, top=0.92)
        return pdf_text(figure, header) if pdf else _svg(figure, header, tight=False)


def _shown_value(module: ScenarioModule, instance: Instance, evaluation: Any, path: str) -> Any:
    """A plotted value: a scalar output, or one entry of a keyed list output (``result.ring_time[64]``)."""
    if path in evaluation.shown:
        return evaluation.shown[path]
    name, _, keys = path[:-1].partition("[")
    row, _, column = keys.partition("][")  # a grid's entry: result.times[NDR][shard]
    decl = next(o for o in _list_outputs(module.model.outputs) if name.split(".")[-1] == o.name)
    position = [str(k) for k in value_of(instance.all_inputs()[decl.keyed_by])].index(row)
    if decl.columns_by:
        columns = [str(k) for k in value_of(instance.all_inputs()[decl.columns_by])]
        position = position * len(columns) + columns.index(column)
    return evaluation.shown[name][position]


def _list_outputs(outputs: Any) -> Any:
    for output in outputs:
        yield from _list_outputs(output.members) if isinstance(output, GroupDecl) else (
            [output] if isinstance(output, ListDecl) and output.keyed_by else [])


def placements(modules: Sequence[ScenarioModule]) -> list[Placement]:
    """Every registry workload whose declarations give an arithmetic intensity, in registry order."""
    found = []
    for module in modules:
        roofline = module.model.roofline  # label suffix -> the output holding the intensity
        if not roofline:
            continue
        for instance in module.instances:
            evaluation = evaluate(module.model, instance_values(instance))
            precision = _precision_of(instance)
            for suffix, output in roofline.items():
                label = f"{instance.key} ({suffix})" if suffix else instance.key
                found.append(Placement(label, float(evaluation.base(output)), precision))
    return found


def _precision_of(instance: Instance) -> str:
    model = instance.scenario.model
    given = instance.all_inputs()
    for decl in model.precisions:
        value = value_of(given.get(decl.name, decl.default))
        if isinstance(value, str):
            return value
    return ""


def ceilings(record: NodeRecord) -> list[tuple[str, float]]:
    """``(label, flop/s)`` of each ceiling: every listed precision, or the headline peak."""
    if record.precision_flops:
        return [(key, float(rate.base)) for key, rate in record.precision_flops.items()]
    return [("headline peak", float(record.peak_flops.base))]


def rate_for(record: NodeRecord, precision: str) -> tuple[str, float]:
    """The ceiling a workload at ``precision`` meets: its own, else fp32, else the headline peak."""
    for key in (precision, "fp32"):
        if key and key in record.precision_flops:
            return key, float(record.precision_flops[key].base)
    return "headline peak", float(record.peak_flops.base)


INTENSITY_RANGE = (1e-2, 1e4)
LINESTYLES = ("-", "--", "-.", ":")


def _log_points(low: float, high: float, count: int) -> list[float]:
    return [10 ** (math.log10(low) + k * (math.log10(high) - math.log10(low)) / (count - 1)) for k in range(count)]


def _roofline(peak: float, bandwidth: float) -> tuple[list[float], list[float]]:
    """The corners of ``min(peak, bandwidth × I)`` over the intensity range (exact on log axes)."""
    low, high = INTENSITY_RANGE
    ridge = peak / bandwidth
    xs = [low] + ([ridge] if low < ridge < high else []) + [high]
    return xs, [min(peak, bandwidth * x) for x in xs]


def node_roofline(record: NodeRecord, workloads: Sequence[Placement], header: list[str]) -> str:
    """The roofline of one node per listed precision, with ``workloads`` at their attainable rate."""
    return _cached(("node", tuple(header), repr(record), tuple(workloads)),
                   lambda: _draw_node_roofline(record, workloads, header))


def _draw_node_roofline(record: NodeRecord, workloads: Sequence[Placement], header: list[str]) -> str:

    bandwidth = float(record.memory_bandwidth.base)
    with _style():
        figure = _figure()
        axes = figure.subplots()
        for key, peak in sorted(ceilings(record), key=lambda c: -c[1]):
            axes.plot(*_roofline(peak, bandwidth), label=f"{key}: ridge at {peak / bandwidth:.3g} flop/B")
        markers = "osD^vP*Xh"
        for n, work in enumerate(workloads):
            key, peak = rate_for(record, work.precision)
            attainable = min(peak, bandwidth * work.intensity)
            axes.plot([work.intensity], [attainable], markers[n % len(markers)], color="black", markerfacecolor="white",
                      label=f"{work.label}: I = {work.intensity:.3g} ({key})")
        _roofline_axes(axes, f"{record.name} (Hardware.{record.path}), {record.memory_bandwidth.text}")
        return _svg(figure, header)


def tier_roofline(tier: str, records: Sequence[NodeRecord], workloads: Sequence[Placement], header: list[str]) -> str:
    """A tier's ridge map: every node as one point, and the registry workloads' intensities."""
    return _cached(("tier-ridges", tuple(header), tier, tuple(repr(r) for r in records), tuple(workloads)),
                   lambda: _draw_tier_roofline(tier, records, workloads, header))


def _draw_tier_roofline(tier: str, records: Sequence[NodeRecord], workloads: Sequence[Placement],
                        header: list[str]) -> str:
    """Each node at (ridge point, headline peak): a roofline is fixed by those two numbers, so one
    labelled point per node stays readable where thirty overlapping rooflines did not. A
    workload whose intensity lies left of a node's ridge is memory-bound on that node."""
    with _style():
        figure = _figure()
        figure.set_size_inches(7.2, 4.6 + 0.05 * max(0, len(records) - 12))
        axes = figure.subplots()
        ridges = [float(r.peak_flops.base) / float(r.memory_bandwidth.base) for r in records]
        peaks = [float(r.peak_flops.base) for r in records]
        axes.scatter(ridges, peaks, s=18, color="#1f4e79", zorder=3, label="node: ridge point, headline peak")
        intensities = sorted({round(w.intensity, 3) for w in workloads})
        for n, intensity in enumerate(intensities):
            axes.axvline(intensity, color="#888888", linestyle=":", linewidth=0.9,
                         label="registry workloads' intensities" if n == 0 else None)
        axes.set_xscale("log")
        axes.set_yscale("log")
        _no_minor_ticks(axes)
        shown = ridges + [i for i in intensities if i > 0]
        axes.set_xlim(min(shown) / 2, max(shown) * 2)
        axes.set_ylim(min(peaks) / 3, max(peaks) * 3)
        _label_points(axes, [r.key for r in records], ridges, peaks)
        from matplotlib.ticker import EngFormatter

        axes.yaxis.set_major_formatter(EngFormatter(unit="FLOP/s"))
        axes.set_xlabel("ridge point: peak / bandwidth [flop/byte]")
        axes.set_ylabel("headline peak")
        axes.set_title(f"{tier} tier: where each node turns compute-bound")
        axes.legend(loc="upper left", bbox_to_anchor=(0.0, -0.14), fontsize=7, ncols=2)
        return _svg(figure, header)


# Label positions tried in turn, in points from the marker: (dx, dy, horizontal, vertical alignment).
_LABEL_SPOTS = [(4, 2, "left", "bottom"), (-4, 2, "right", "bottom"), (4, -2, "left", "top"),
                (-4, -2, "right", "top"), (0, 5, "center", "bottom"), (0, -5, "center", "top"),
                (4, 9, "left", "bottom"), (-4, 9, "right", "bottom"), (4, -9, "left", "top"), (-4, -9, "right", "top")]


def _label_points(axes: Any, labels: Sequence[str], xs: Sequence[float], ys: Sequence[float],
                  fontsize: float = 6.5) -> None:
    """Label each point at the first spot of ``_LABEL_SPOTS`` whose text box overlaps no label placed
    before (the least overlapping spot when all do): greedy and deterministic, in points."""
    to_points = axes.transData.transform  # display pixels; points and pixels differ by one scale
    scale = 72.0 / axes.figure.dpi
    placed: list[tuple[float, float, float, float]] = []
    markers = [(px * scale, py * scale) for px, py in to_points(list(zip(xs, ys, strict=True)))]

    def box(x: float, y: float, spot: tuple[float, float, str, str], text: str) -> tuple[float, float, float, float]:
        width, height = 0.55 * fontsize * len(text), fontsize
        dx, dy, ha, va = spot
        left = x + dx - {"left": 0.0, "right": width, "center": width / 2}[ha]
        bottom = y + dy - (height if va == "top" else 0.0)
        return left, bottom, left + width, bottom + height

    def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
        return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))

    points = sorted(zip(labels, markers, zip(xs, ys, strict=True), strict=True), key=lambda item: (item[1][1], item[1][0]))
    for text, (x, y), at in points:
        others = placed + [(mx - 2.5, my - 2.5, mx + 2.5, my + 2.5) for mx, my in markers if (mx, my) != (x, y)]
        costs = [sum(overlap(box(x, y, spot, text), other) for other in others) for spot in _LABEL_SPOTS]
        spot = _LABEL_SPOTS[costs.index(min(costs))]
        placed.append(box(x, y, spot, text))
        axes.annotate(text, at, xytext=spot[:2],
                      textcoords="offset points", ha=spot[2], va=spot[3], fontsize=fontsize)


def _no_minor_ticks(axes: Any) -> None:
    """Log axes get decade ticks only (minor ticks cost most of the drawing time)."""
    from matplotlib.ticker import NullLocator

    axes.xaxis.set_minor_locator(NullLocator())
    axes.yaxis.set_minor_locator(NullLocator())


def _roofline_axes(axes: Any, title: str, columns: int = 1) -> None:
    from matplotlib.ticker import EngFormatter

    axes.set_xscale("log")
    axes.set_yscale("log")
    _no_minor_ticks(axes)
    axes.set_xlim(*INTENSITY_RANGE)
    axes.yaxis.set_major_formatter(EngFormatter(unit="FLOP/s"))
    axes.set_xlabel("arithmetic intensity I [flop/byte]")
    axes.set_ylabel("attainable rate")
    axes.set_title(title)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=columns)


def roofline_charts(workloads: Sequence[Placement], nodes: Sequence[str], header: list[str]) -> dict[str, str]:
    """``{name: SVG}``: ``"<Tier>"`` for every tier and ``"<Tier>.<Key>"`` for each of ``nodes``."""
    return dict(_rooflines(tuple(workloads), tuple(nodes), tuple(header)))


@lru_cache(maxsize=None)
def _rooflines(workloads: tuple[Placement, ...], nodes: tuple[str, ...], header: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    tiers: dict[str, list[NodeRecord]] = {}
    for record in hardware_records():
        tiers.setdefault(record.tier, []).append(record)
    charts = [(tier, tier_roofline(tier, records, workloads, list(header))) for tier, records in tiers.items()]
    by_path = {record.path: record for record in hardware_records()}
    charts += [(path, node_roofline(by_path[path], workloads, list(header))) for path in nodes]
    return tuple(charts)


def machine_chart(rows: Sequence[dict[str, Any]], header: list[str]) -> str:
    """The MLP step on this machine: measured (markers) and predicted (lines) time against batch size,
    one colour per hidden width, with the roofline limit (the step's operators at their rooflines,
    no host work) dotted; one panel per framework."""
    import inspect

    drawing = inspect.getsource(_draw_machine)  # a changed drawing is a different chart
    return _cached(("machine", drawing, tuple(header), repr(list(rows))), lambda: _draw_machine(rows, header))


def _draw_machine(rows: Sequence[dict[str, Any]], header: list[str]) -> str:
    kinds = sorted({row["kind"] for row in rows if row["kind"].startswith("mlp-")})
    with _style():
        figure = _figure()
        figure.set_size_inches(6.4 * max(1, len(kinds)), 4.8)
        panels = figure.subplots(1, max(1, len(kinds)), squeeze=False)[0]
        for axes, kind in zip(panels, kinds, strict=False):
            points = [row for row in rows if row["kind"] == kind]
            for n, hidden in enumerate(sorted({row["hidden"] for row in points})):
                line = sorted((row for row in points if row["hidden"] == hidden), key=lambda row: row["batch"])
                batch = [row["batch"] for row in line]
                color = f"C{n}"
                axes.plot(batch, [row["measured"]["value"] for row in line], "o", color=color, label=f"h = {hidden}")
                axes.plot(batch, [row["predicted"]["value"] for row in line], "-", color=color)
                axes.plot(batch, [row["roofline_us"] for row in line], ":", color=color)
            for style, label in (("o", "measured"), ("-", "predicted"), (":", "roofline limit (no host work)")):
                axes.plot([], [], style, color="black", label=label)
            axes.set_xscale("log", base=2)
            axes.set_yscale("log")
            axes.set_xlabel("batch size")
            axes.set_ylabel("time per step [µs]")
            axes.set_title(f"{kind.removeprefix('mlp-')}: 784-h-10 MLP step, one thread")
            axes.legend(fontsize="x-small", loc="upper left")
        return _svg(figure, header)


VALIDATION_MARKERS = {"iteration_time": ("o", "iteration time [s]"), "params_optimizer_per_gpu":
                      ("s", "params & optimizer per GPU [GiB]"), "activations_per_gpu": ("^", "activations per GPU [GiB]"),
                      "ttft": ("D", "time to first token [ms]"), "flops_per_gpu": ("*", "FLOP/s per GPU [TFLOP/s]")}


def validation_chart(rows: Sequence[dict[str, Any]], header: list[str], pdf: bool = False) -> str:
    """Predicted against measured, both axes logarithmic, each quantity in its own unit and marker, with
    the line of equality and the ±10 % band."""
    import inspect

    drawing = inspect.getsource(_draw_validation)
    points = tuple((row["quantity"], row["measured"]["value"], row["predicted"]["value"]) for row in rows)
    return _cached(("validation", drawing, tuple(header), points, pdf), lambda: _draw_validation(points, header, pdf),
                   ".pdf" if pdf else ".svg")


def _draw_validation(points: tuple[tuple[str, float, float], ...], header: list[str], pdf: bool) -> str:
    with _style():
        figure = _figure()
        axes = figure.subplots()
        values = [v for _, m, p in points for v in (m, p)]
        low, high = min(values) / 1.5, max(values) * 1.5
        line = [low, high]
        axes.fill_between(line, [x * 0.9 for x in line], [x * 1.1 for x in line], color="0.85", label="±10 %")
        axes.plot(line, line, "-", color="0.4", linewidth=0.8, label="predicted = measured")
        for n, (quantity, (marker, label)) in enumerate(VALIDATION_MARKERS.items()):
            mine = [(m, p) for q, m, p in points if q == quantity]
            if mine:
                axes.plot([m for m, _ in mine], [p for _, p in mine], marker, color=f"C{n}", label=label,
                          markerfacecolor="none" if quantity == "activations_per_gpu" else f"C{n}")
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_xlabel("measured (in the unit of its quantity)")
        axes.set_ylabel("predicted")
        axes.set_title("Published runs on A100: predicted against measured")
        axes.legend(fontsize="small", loc="upper left")
        figure.subplots_adjust(left=0.11, right=0.97, bottom=0.12, top=0.92)
        return pdf_text(figure, header) if pdf else _svg(figure, header, tight=False)
