"""Which parameter count a workload's numbers use, and what its architecture gives.

The catalog keeps the reference library's nominal counts (Llama-2-7B is 7e9) because the
conformance values need them; a record that gives its layout also counts its parameters from
it (``architecture_parameters``, declared on the type). The models page and ``mlsysym show``
state both, so a per-parameter answer never hides which count it was computed from.
"""

from __future__ import annotations

from typing import Any

from symbolic.runtime.errors import MissingInputError
from symbolic.runtime.records import CatalogRecord


def _counted(record: Any, name: str) -> float | None:
    try:
        return float(record.resolved(name))
    except (MissingInputError, AttributeError):
        return None


def _count(value: float) -> str:
    return f"{value:.4g}"


def parameter_counts(record: Any) -> str:
    """One sentence: the stated count every scenario reads (and the active one of a mixture of
    experts), beside the architecture's count where the record has the layout; "" without a count."""
    stated = _counted(record, "parameters")
    if stated is None:
        return ""
    active = _counted(record, "active_parameters")
    if "parameters" not in getattr(record, "_values", {"parameters": stated}):  # a layout, no stated count
        text = f"{_count(stated)} parameters counted from the architecture"
        if active:
            return text + (f", {_count(active)} active per token (the counts the scenarios read: all for the "
                           "weights, the active ones for the FLOPs; no count is stated)")
        return text + " (the count every scenario reads; no count is stated)"
    text = f"{_count(stated)} parameters stated"
    text += (f", {_count(active)} active per token (the counts the scenarios read: all for the weights, the "
             "active ones for the FLOPs)") if active else " (the count every scenario reads)"
    counted = _counted(record, "architecture_parameters")
    if counted is None:
        return text + "; the record does not give the layout to count them from"
    text += f"; the architecture gives {_count(counted)}"
    counted_active = _counted(record, "architecture_active_parameters") if active else None
    if counted_active is not None:
        text += f", {_count(counted_active)} active"
    return text + f" (stated {100 * (stated / counted - 1):+.2g} %)"


def workload_notes(scenario: Any) -> dict[str, str]:
    """``parameter_counts`` of every workload input of a scenario instance, by input name."""
    notes = {}
    for name, value in scenario.inputs().items():
        if isinstance(value, CatalogRecord) and type(value)._namespace == "Models":  # a workload record
            note = parameter_counts(value)
            if note:
                notes[name] = f"{value.name}: {note}"
    return notes
