"""One naming of every output leaf, shared by ``show``, sensitivity, sweeps, CSV and JSON,
with one spelling of each unit (``units.label``: ``B``, not ``byte`` here and ``B`` there).

A scalar output is ``name``; a table entry ``name[key]``; a group field ``group.field``;
a contained scenario's output ``inner.name``. The walk follows the class's descriptors, so
it works on an evaluation of plain numbers and on a sweep's arrays alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from symbolic.runtime.units import label
from symbolic.runtime.outputs import GroupOutput, ListOutput, Output, SubScenario, TableOutput
from symbolic.runtime.feasibility import infeasible

if TYPE_CHECKING:  # annotations only: the scenario base class reads its paths from here
    from symbolic.runtime.scenario import ScenarioBase


def leaves(cls: type[ScenarioBase], values: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any, str, str]]:
    """``(path, value, unit, kind)`` for every output leaf of an evaluation of ``cls``, in
    declaration order; ``kind`` is ``"number"``, ``"list"`` or ``"text"`` (a value may be
    None: an optional output whose input was not given)."""
    for name in cls._outputs:
        yield from _walk(getattr(cls, name), values[name], prefix)


def _walk(descriptor: Output, value: Any, prefix: str) -> Iterator[tuple[str, Any, str, str]]:
    path = prefix + descriptor.name
    unit = label(descriptor.unit)
    if isinstance(descriptor, GroupOutput):
        for field in descriptor.fields:
            yield from _walk(field, value[field.name], path + ".")
    elif isinstance(descriptor, SubScenario):
        yield from leaves(descriptor.scenario, value, path + ".")
    elif isinstance(descriptor, TableOutput):
        for key, entry in value.items():
            yield f"{path}[{key}]", entry, unit, "number"
    elif isinstance(descriptor, ListOutput) or isinstance(value, list):
        yield path, value, unit, "list"
    elif isinstance(value, str):
        yield path, value, unit, "text"
    else:
        yield path, value, unit, "number"


def guarded_paths(cls: type[ScenarioBase]) -> dict[str, tuple[str, ...]]:
    """Every output leaf (a table as ``name[]``: all its entries) that exists only under a ``Fits``
    of ``cls`` -> those ``Fits``; a contained scenario's leaves are guarded where it is."""
    found: dict[str, tuple[str, ...]] = {}
    for name in cls._outputs:
        _guarded(getattr(cls, name), "", (), found, True)
    return found


def _guarded(descriptor: Output, prefix: str, outer: tuple[str, ...], found: dict[str, tuple[str, ...]],
             own: bool) -> None:
    path = prefix + descriptor.name
    guard = tuple(dict.fromkeys(outer + (descriptor.guard if own else ())))
    if isinstance(descriptor, GroupOutput):
        for field in descriptor.fields:
            _guarded(field, path + ".", guard, found, own)
    elif isinstance(descriptor, SubScenario):  # its own Fits name its own outputs: not followed here
        for name in descriptor.scenario._outputs:
            _guarded(getattr(descriptor.scenario, name), path + ".", guard, found, False)
    elif guard:
        found[path + "[]" if isinstance(descriptor, TableOutput) else path] = guard


def infeasible_paths(scenario: ScenarioBase) -> set[str]:
    """The guarded output leaves (a table as ``name[]``) of an instance whose ``Fits`` fail."""

    failing = {fits.name for fits in infeasible(scenario)}
    if not failing:
        return set()
    return {path for path, names in guarded_paths(type(scenario)).items() if failing & set(names)}


def mask_leaves(values: dict[str, Any], paths: set[str]) -> None:
    """Set the leaves at ``paths`` (``a.b``, a whole table as ``a.t[]``) to None, in place."""
    for path in paths:
        parts = path.replace("[]", "").split(".")
        node = values
        for part in parts[:-1]:
            node = node[part]
        if path.endswith("[]"):
            table = node[parts[-1]]
            node[parts[-1]] = None if table is None else dict.fromkeys(table)
        else:
            node[parts[-1]] = None
