"""``mlsysym list X``: what a scenario class takes and gives, read from its generated specs."""

from __future__ import annotations

from typing import Any

from symbolic.runtime.inputs import InputInfo, describe
from symbolic.runtime.outputs import GroupOutput, Output, SubScenario, TableOutput
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.units import label
from symbolic.runtime.analysis import flat_outputs


def input_rows(cls: type[ScenarioBase]) -> list[tuple[str, str, str, str, str, str]]:
    """``(name, kind, unit, default, domain, doc)`` for every input, in the order the class takes
    them; ``default`` reads ``required``, the value used when left out, ``= rule`` or ``none``."""
    return [(info.name, info.kind, label(info.unit), _default_text(info), info.domain, info.doc)
            for info in describe(cls)]


def _default_text(info: InputInfo) -> str:
    if info.required:
        return "required"
    if info.default_rule:
        return f"= {info.default_rule}"
    if info.default is None:
        return "none (optional)"
    if isinstance(info.default, list):
        return ",".join(str(value) for value in info.default)
    return str(info.default)


def output_rows(cls: type[ScenarioBase], example: Any = None) -> list[tuple[str, str]]:
    """``(path, unit)`` of every output; table keys come from ``example`` when there is one."""
    if example is not None:
        return [(path, unit) for path, (_, unit) in flat_outputs(example, everything=True).items()]
    rows: list[tuple[str, str]] = []

    def walk(descriptor: Output, prefix: str) -> None:
        path = prefix + descriptor.name
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                walk(field, path + ".")
        elif isinstance(descriptor, SubScenario):
            rows.extend((f"{path}.{inner}", unit) for inner, unit in output_rows(descriptor.scenario))
        elif isinstance(descriptor, TableOutput):
            rows.append((f"{path}[...]", label(descriptor.unit)))
        else:
            rows.append((path, label(descriptor.unit)))

    for name in cls._outputs:
        walk(getattr(cls, name), "")
    return rows
