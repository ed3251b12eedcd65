"""``mlsysym list X``: what a scenario class takes and gives, read from its generated specs."""

from __future__ import annotations

from typing import Any

from symbolic.runtime.outputs import GroupOutput, Output, SubScenario, TableOutput
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.errors import a_or_an
from symbolic.runtime.units import label
from symbolic.runtime.validation import REQUIRED, ListSpec


def input_rows(cls: type[ScenarioBase]) -> list[tuple[str, str, str, str]]:
    """``(name, what it expects, default, description)`` for every input, in declaration order."""
    rows: dict[str, tuple[str, str, str, str]] = {}
    for spec in cls._specs:
        if spec.default is REQUIRED:
            default = "required"
        elif spec.default is None:
            default = f"= {spec.default_rule}" if spec.default_rule else "optional"
        else:
            default = f"{spec.default} {label(spec.unit)}".strip()
        kind = spec.domain if isinstance(spec, ListSpec) else spec.scalar_domain
        rows[spec.name] = (spec.name, kind, default, spec.doc)
    for precision in cls._precisions:
        default = "required" if precision.default is REQUIRED else repr(precision.default)
        rows[precision.name] = (precision.name, "a precision key such as fp32", default, precision.doc)
    for node in cls._nodes:
        kind = "a hardware node such as H100" + (", or a fleet such as Systems.Clusters.Frontier_8K" if node.fleet else "")
        rows[node.name] = (node.name, kind, "required", node.doc)
    for dataset in cls._datasets:
        rows[dataset.name] = (dataset.name, "a dataset such as MNIST", "optional", dataset.doc)
    for inner in cls._scenarios:
        rows[inner.name] = (inner.name, f"{a_or_an(inner.scenario.__name__)} (a registry name)",
                            "optional" if inner.optional else "required", inner.doc)
    return [rows[name] for name in cls.input_names() if name in rows]


def output_rows(cls: type[ScenarioBase], example: Any = None) -> list[tuple[str, str]]:
    """``(path, unit)`` of every output; table keys come from ``example`` when there is one."""
    if example is not None:
        from symbolic.runtime.analysis import flat_outputs

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
