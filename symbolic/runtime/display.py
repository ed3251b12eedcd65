"""A scenario instance as a table of its inputs and outputs: Jupyter's HTML and Markdown views.

The rows come from the class's specs (inputs, in declaration order, with their declared
units) and from ``paths.leaves`` (outputs, named as ``show`` names them), so a notebook, the
command line and a sweep's columns agree on every name and unit. Every piece of text (names,
keys, units, labels: a user's workload may be called ``<script>``) is escaped for the format
it goes into. Nothing here imports IPython: Jupyter finds ``_repr_html_`` by name.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from symbolic.runtime.errors import MissingInputError
from symbolic.runtime.paths import infeasible_paths, leaves
from symbolic.runtime.readable import readable
from symbolic.runtime.units import label

if TYPE_CHECKING:  # annotations only: the scenario base class is a Tabled, defined below
    from symbolic.runtime.scenario import ScenarioBase

ABSENT = "– (needs an input not given)"  # an optional output whose input the instance leaves out
DOES_NOT_FIT = "– (does not fit)"  # an output of a setup that runs, on one whose Fits fails (see `fits`)


# -- numbers as text (shared with the command line) -------------------------------------------
def shown(value: Any, unit: str = "", rescale: bool = True) -> str:
    """A value with its unit, floats to 6 significant digits, at the scale a reader takes in
    (``readable``: ``2.8689e+11 B`` reads ``286.89 GB``; ``rescale=False``: in ``unit`` as given,
    where the unit is part of what is shown, as in a derivation's substituted numbers): ``0.195531 µs``."""
    if value is None:
        return ABSENT
    if hasattr(value, "magnitude") and hasattr(value, "units") and not unit:  # a pint Quantity
        value, unit = value.magnitude, f"{value.units:~P}"
    if rescale:
        value, unit = readable(value, unit)
    return f"{number_text(value)} {unit}".strip()


def absent_or_shown(scenario: Any, path: str, value: Any, unit: str = "") -> str:
    """``shown``, but an absent value says why: the setup does not fit (or pay off), or an input is not given."""
    if value is not None:
        return shown(value, unit)
    refused = infeasible_paths(scenario)
    return DOES_NOT_FIT if path in refused or path.split("[", 1)[0] + "[]" in refused else ABSENT


def number_text(value: Any) -> str:
    """Floats to 6 significant digits, inside lists and dicts too (JSON keeps every digit); never ``-0``."""
    if isinstance(value, float):
        text = f"{value:.6g}"
        return "0" if text in ("-0", "0") else text
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(number_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {number_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def keyed(scenario: ScenarioBase, path: str, value: Any) -> Any:
    """A list output as the instance returns it: a dict under its keys (``{NVLink: 2.22, ...}``,
    a grid as a dict of dicts), or the list itself when it has no keys; a choice as its label
    (``fits`` True, ``bottleneck`` Memory) rather than its number."""
    if not isinstance(value, (list, int)) or isinstance(value, bool):  # a choice's number is an int
        return value
    found = _attribute(scenario, path)
    if not isinstance(value, list):
        return found if isinstance(found, (bool, str)) else value
    if not isinstance(found, dict):
        return value

    def plain(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: plain(entry) for key, entry in item.items()}
        return item.magnitude if hasattr(item, "magnitude") else item

    return plain(found)


def _attribute(scenario: ScenarioBase, path: str) -> Any:
    """The attribute at a dotted output path (``result.times``), None when it is absent."""
    found: Any = scenario
    try:
        for part in path.split("."):
            found = getattr(found, part, None)
    except MissingInputError:
        return None
    return found


# -- rows ---------------------------------------------------------------------------------
def input_rows(scenario: ScenarioBase) -> list[tuple[str, list[str], str]]:
    """``(name, value lines, unit)`` of every input, in the class's order."""
    cls = type(scenario)
    units = {spec.name: label(spec.unit) for spec in cls._specs}
    choices = {choice.name: choice for choice in cls._choices}
    rows = []
    for name in cls.input_names():
        value = scenario._given[name]
        if name in choices:  # a named option: its name, and the number it stands for
            value = f"{value} (= {shown(scenario._args[choices[name].argument], label(choices[name].unit))})"
        rows.append((name, _lines(_input_value(value)), units.get(name, "") if value is not None else ""))
    return rows


def _input_value(value: Any) -> Any:
    """Structured inputs by what names them: a node by its catalog path, an instance by its name."""
    if value is None:
        return "– (not given)"
    if isinstance(value, Tabled):  # a contained scenario
        return f"{value.name} ({type(value).__name__})"
    path = getattr(value, "path", None)
    if isinstance(path, str) and hasattr(value, "name"):
        return f"{value.name} ({path})" if path and path != value.name else str(value.name)
    return value


def output_rows(scenario: ScenarioBase) -> list[tuple[str, str, list[str], str]]:
    """``(group, path, value lines, unit)`` of every output leaf; ``group`` is the group or
    contained scenario a dotted path belongs to ("" for a top-level output)."""
    rows = []
    refused = infeasible_paths(scenario)
    for path, number, declared, kind in leaves(type(scenario), scenario.evaluate()):
        unit = declared
        value = number
        if kind == "list":
            value = keyed(scenario, path, number)
        elif kind == "number" and number is not None and "[" not in path:
            text = _attribute(scenario, path)
            value = text if isinstance(text, (str, bool)) else number  # a choice's label (``Memory``, True), not its index
        group = path.split(".")[0] if "." in path.split("[")[0] else ""
        absent = DOES_NOT_FIT if path in refused or path.split("[", 1)[0] + "[]" in refused else ABSENT
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # the scale a reader takes in (its unit's family; JSON keeps the declared)
            value, unit = readable(value, unit)
        rows.append((group, path, _lines(value) if value is not None else [absent], unit if value is not None else ""))
    return rows


def _lines(value: Any) -> list[str]:
    """A value as lines of text: one per key of a dict (``key: value``), else one."""
    if isinstance(value, dict) and value:
        return [f"{key}: {_inline(entry)}" for key, entry in value.items()]
    return [_inline(value)]


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key}: {_inline(entry)}" for key, entry in value.items()) or "(none)"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(entry) for entry in value) + "]"
    return number_text(value)


def _group_title(scenario: ScenarioBase, group: str) -> str:
    inner = _attribute(scenario, group)
    if isinstance(inner, Tabled):
        return f"{group}: {inner.name} ({type(inner).__name__})"
    return group


# -- HTML ---------------------------------------------------------------------------------
def _h(text: str) -> str:
    return html.escape(text, quote=True)


def _html_cell(lines: list[str]) -> str:
    return "<br>".join(_h(line) for line in lines)


def to_html(scenario: ScenarioBase) -> str:
    """The instance as one HTML table: a caption, then inputs and outputs with their units."""
    out = ['<table class="mlsysym-scenario">',
           f"<caption><b>{_h(type(scenario).__name__)}</b>: {_h(scenario.name)}"
           + (f"<br><i>{_h(scenario.description)}</i>" if scenario.description else "") + "</caption>",
           '<thead><tr><th style="text-align:left">name</th><th style="text-align:right">value</th>'
           '<th style="text-align:left">unit</th></tr></thead>', "<tbody>",
           '<tr><th colspan="3" style="text-align:left">inputs</th></tr>']
    for name, lines, unit in input_rows(scenario):
        out.append(_html_row(name, lines, unit))
    out.append('<tr><th colspan="3" style="text-align:left">outputs</th></tr>')
    current = ""
    for group, path, lines, unit in output_rows(scenario):
        if group and group != current:
            out.append(f'<tr><td colspan="3" style="text-align:left"><i>{_h(_group_title(scenario, group))}</i></td></tr>')
        current = group
        out.append(_html_row(path, lines, unit))
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def _html_row(name: str, lines: list[str], unit: str) -> str:
    return (f'<tr><td style="text-align:left"><code>{_h(name)}</code></td>'
            f'<td style="text-align:right">{_html_cell(lines)}</td><td style="text-align:left">{_h(unit)}</td></tr>')


# -- Markdown -----------------------------------------------------------------------------
_MARKDOWN_SPECIAL = "\\`*_[]|~!"


def _md(text: str) -> str:
    """Text for a Markdown table cell: HTML escaped, Markdown punctuation backslashed, one line."""
    text = html.escape(" ".join(text.split()), quote=False)
    return "".join("\\" + char if char in _MARKDOWN_SPECIAL else char for char in text)


def to_markdown(scenario: ScenarioBase) -> str:
    """The instance as Markdown: a title line, an inputs table and an outputs table."""
    out = [f"**{_md(type(scenario).__name__)}**: {_md(scenario.name)}"]
    if scenario.description:
        out += ["", f"*{_md(scenario.description)}*"]
    out += ["", "| input | value | unit |", "| :--- | ---: | :--- |"]
    out += [f"| {_md(name)} | {'<br>'.join(_md(x) for x in lines)} | {_md(unit)} |"
            for name, lines, unit in input_rows(scenario)]
    out += ["", "| output | value | unit |", "| :--- | ---: | :--- |"]
    current = ""
    for group, path, lines, unit in output_rows(scenario):
        if group and group != current:
            out.append(f"| *{_md(_group_title(scenario, group))}* | | |")
        current = group
        out.append(f"| {_md(path)} | {'<br>'.join(_md(x) for x in lines)} | {_md(unit)} |")
    return "\n".join(out) + "\n"


class Tabled:
    """What a notebook shows as tables of its inputs and outputs: the base of ``ScenarioBase``.
    Jupyter looks these methods up by name (no IPython import anywhere)."""

    name: str

    def _repr_html_(self) -> str:
        """Inputs and outputs with their units, as an HTML table (every text escaped)."""
        return to_html(self)  # type: ignore[arg-type]

    def _repr_markdown_(self) -> str:
        """Inputs and outputs with their units, as Markdown tables."""
        return to_markdown(self)  # type: ignore[arg-type]
