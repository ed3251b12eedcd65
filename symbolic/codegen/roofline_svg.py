"""A small roofline per hardware node, drawn straight as SVG from a template.

matplotlib draws the detailed charts (tiers, the nodes the registry uses); at about half a
second per figure it is too slow for all 52 nodes on every ``make generate``. A roofline
is two line segments per ceiling on log-log axes, so this module computes the corner
coordinates and ``templates/roofline.svg.j2`` draws them: deterministic, and milliseconds
for the whole catalog.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from jinja2 import Environment

from symbolic.catalog import NodeRecord
from symbolic.codegen.charts import INTENSITY_RANGE, Placement, ceilings, rate_for

WIDTH, HEIGHT = 780, 300
PLOT = (64, 20, 330, 250)  # left, top, right, bottom of the plotting area in px
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _scale(low: float, high: float, start: float, end: float) -> Any:
    """Maps a value on a log axis from [low, high] to pixels [start, end]."""
    span = math.log10(high) - math.log10(low)
    return lambda value: round(start + (math.log10(value) - math.log10(low)) / span * (end - start), 1)


def _rate_label(value: float) -> str:
    for factor, prefix in PREFIXES:
        if value >= factor:
            return f"{value / factor:g} {prefix}FLOP/s"
    return f"{value:g} FLOP/s"


def roofline_context(record: NodeRecord, workloads: Sequence[Placement]) -> dict[str, Any]:
    """Everything the template draws for one node, in pixels."""
    low_i, high_i = INTENSITY_RANGE
    bandwidth = float(record.memory_bandwidth.base)
    lines = sorted(ceilings(record), key=lambda c: -c[1])
    if any(rate_for(record, w.precision)[0] == "headline peak" for w in workloads) and record.precision_flops:
        lines.append(("headline peak", float(record.peak_flops.base)))  # where workloads without a listed precision sit
    top = 10 ** math.ceil(math.log10(max(peak for _, peak in lines)))
    bottom = 10 ** math.floor(math.log10(bandwidth * low_i))
    x = _scale(low_i, high_i, PLOT[0], PLOT[2])
    y = _scale(bottom, top, PLOT[3], PLOT[1])
    series = []
    for n, (key, peak) in enumerate(lines):
        ridge = peak / bandwidth
        corners = [low_i] + ([ridge] if low_i < ridge < high_i else []) + [high_i]
        points = " ".join(f"{x(i)},{y(min(peak, bandwidth * i))}" for i in corners)
        series.append({"points": points, "color": "#999999" if key == "headline peak" else COLORS[n % len(COLORS)],
                       "dash": "4 3" if key == "headline peak" else "",
                       "label": f"{key}: {_rate_label(peak)}, ridge {ridge:.3g} flop/B"})
    marks = []
    for work in workloads:
        key, peak = rate_for(record, work.precision)
        attainable = min(peak, bandwidth * work.intensity)
        if low_i <= work.intensity <= high_i:
            marks.append({"x": x(work.intensity), "y": y(attainable),
                          "label": f"{work.label}: I = {work.intensity:.3g}, {_rate_label(attainable)} ({key})"})
    decades_x = range(round(math.log10(low_i)), round(math.log10(high_i)) + 1)
    decades_y = range(round(math.log10(bottom)), round(math.log10(top)) + 1)
    step = max(1, math.ceil(len(decades_y) / 6))
    return {
        "width": WIDTH, "height": HEIGHT, "plot": PLOT,
        "title": f"{record.name}: {record.memory_bandwidth.text}",
        "x_ticks": [(x(10.0 ** d), f"{10.0 ** d:g}") for d in decades_x],
        "y_ticks": [(y(10.0 ** d), _rate_label(10.0 ** d)) for d in list(decades_y)[::step]],
        "series": series, "marks": marks,
    }


def roofline_svgs(env: Environment, records: Sequence[NodeRecord], workloads: Sequence[Placement],
                  header: list[str]) -> dict[str, str]:
    """``{node path: SVG}`` for every node in ``records``."""
    template = env.get_template("roofline.svg.j2")
    return {record.path: template.render(header=header, **roofline_context(record, workloads)) for record in records}
