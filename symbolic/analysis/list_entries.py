"""One entry of a list output (``result.ring_time[64]``, ``result.times[NDR][shard]``) as a scalar, for solving.

A list output keyed by a list input has one entry per key; which position a key names is
known only for an instance (its keys), so an entry's closed form is the list's body with
the index set to that position. ``symbolic.analysis.solving.solve`` and the Derivations section use
these to answer questions about one entry.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from symbolic.analysis.closed import raw_closed_forms
from symbolic.model import GroupDecl, ListDecl, ListQuantity, ScenarioModel
from symbolic.runtime.errors import MlsysymError

_ENTRY = re.compile(r"(?P<base>[^\[\]]+)(?P<keys>(?:\[[^\[\]]*\])+)")


class EntryError(MlsysymError, ValueError):
    """A list entry that cannot be named: not a keyed list output, or no such key at the instance."""


def entry_keys(given: dict[str, Any]) -> dict[str, list[str]]:
    """The key names of each list input of an instance's inputs (a dict's keys, a plain list's values)."""
    keys = {}
    for name, value in given.items():
        if isinstance(value, dict):
            keys[name] = [str(k) for k in value]
        elif isinstance(value, (list, tuple)):
            keys[name] = [str(v) for v in dict.fromkeys(value)]
    return keys


def split(model: ScenarioModel, path: str) -> tuple[ListQuantity, ListDecl, list[str]] | None:
    """``(list quantity, its output declaration, the keys named)`` when ``path`` names an entry of a
    keyed list output, else None."""
    match = _ENTRY.fullmatch(path)
    if match is None:
        return None
    base = match["base"]
    quantity = next((q for q in model.quantities if q.name == base and isinstance(q, ListQuantity) and q.limits),
                    None)
    decl = _list_output(model.outputs, base, "")
    if quantity is None or decl is None:
        return None
    parts = re.findall(r"\[([^\[\]]*)\]", match["keys"])
    wanted = 2 if decl.columns_by else 1
    if not decl.keyed_by or len(parts) != wanted:
        raise EntryError(f"{model.name}: {base} is a list" + (" keyed by its entries" if decl.keyed_by else "")
                         + f"; name one entry with {wanted} key{'s' if wanted > 1 else ''}, e.g. {base}"
                         + ("[row][column]" if wanted > 1 else "[key]"))
    return quantity, decl, parts


def missing_key(model: ScenarioModel, path: str, keys: dict[str, list[str]]) -> str:
    """"" when the instance with ``keys`` has the entry ``path``, else what it lacks (``NVLink among links``)."""
    found = split(model, path)
    if found is None:
        return ""
    _, decl, parts = found
    for part, by in zip(parts, (decl.keyed_by, decl.columns_by), strict=False):
        if part not in keys.get(by, []):
            return f"`{part}` among its `{by}`"
    return ""


def entry_form(model: ScenarioModel, path: str, keys: dict[str, list[str]] | None) -> tuple[str, sympy.Basic]:
    """``(unit, closed form)`` of the entry ``path`` at an instance whose list inputs have ``keys``."""
    found = split(model, path)
    if found is None:
        raise EntryError(f"{model.name} has no list entry {path!r}")
    quantity, decl, parts = found
    if keys is None:
        raise EntryError(f"{path} is one entry of a list: its position is known only at an instance, whose keys "
                         "name the entries")
    at: dict[sympy.Basic, sympy.Basic] = {}
    ranges = quantity.index_ranges()
    for part, by, (index, start, _) in zip(parts, (decl.keyed_by, decl.columns_by), ranges, strict=False):
        names = keys.get(by, [])
        if part not in names:
            raise EntryError(f"{model.name}: {quantity.name} has no entry {part!r} here (its keys, from "
                             f"{by}: {', '.join(names) or 'none'})")
        at[index] = start + names.index(part)
    return quantity.unit, raw_closed_forms(model)[quantity.symbol].xreplace(at)


def _list_output(outputs: Any, path: str, prefix: str) -> ListDecl | None:
    for output in outputs:
        here = prefix + output.name
        if isinstance(output, GroupDecl):
            found = _list_output(output.members, path, here + ".")
            if found is not None:
                return found
        elif isinstance(output, ListDecl) and here == path:
            return output
    return None
