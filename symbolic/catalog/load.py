"""Reading catalog TOML files against their record types; every error names file, entry, field."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sympy

from symbolic.catalog.schema import Field, Record, Together
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.units import Q_

CATALOG_DIR = Path(__file__).resolve().parent


class CatalogError(DeclarationError):
    """A catalog entry is malformed (found when the generator runs)."""


@dataclass(frozen=True)
class Published:
    """A catalog quantity: the text as published and its magnitude in a fixed unit."""

    text: str
    base: float | int


@dataclass(frozen=True)
class Entry:
    """One validated catalog entry: its registry path, type and field values."""

    tier: str
    key: str
    type: type[Record]
    values: dict[str, Any]  # field -> Published, int, float or str (unset fields absent)

    @property
    def path(self) -> str:
        return f"{self.tier}.{self.key}"


def read_toml(name: str, directory: Path = CATALOG_DIR) -> dict[str, Any]:
    path = directory / name
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"{_shown_path(path)}: not valid TOML: {error}") from None


def _shown_path(path: Path) -> str:
    try:
        return str(path.relative_to(CATALOG_DIR.parents[1]))
    except ValueError:
        return str(path)


def published(text: Any, unit: str, where: str) -> Published:
    """``text`` ("80 GiB") parsed by the project's registry, its magnitude in ``unit``."""
    if not isinstance(text, str):
        raise CatalogError(f"{where}: got {text!r}; expected a quantity written as a string with its unit, "
                           f"such as \"1 {unit}\"")
    try:
        value = Q_(text).to(unit)
    except Exception as error:  # pint's parse and dimensionality errors
        raise CatalogError(f"{where}: got {text!r}; expected a quantity in {unit} ({error})") from None
    magnitude = value.magnitude
    if isinstance(magnitude, float) and magnitude.is_integer() and isinstance(Q_(text).magnitude, int):
        magnitude = int(magnitude)  # "80 GiB" stays an exact int
    return Published(text, magnitude)


@dataclass(frozen=True)
class Reference:
    """A record field's value: the registry path of another entry (``Systems.Nodes.DGX_H100``)."""

    source: str
    value: Any

    def __repr__(self) -> str:  # how the generated catalog writes it: Systems tiers are built as _<Tier> first
        return "_" + self.source.removeprefix("Systems.") if self.source.startswith("Systems.") else self.source


def field_value(field: Field, raw: Any, where: str, resolve: Any = None) -> Any:
    """The validated value of one field: Published for unit fields, Reference for records, else int,
    float or str. ``resolve(path)`` returns the entry a record field names, or None."""
    if field.kind in ("str", "choice", "record"):
        if not isinstance(raw, str) or not raw:
            raise CatalogError(f"{where}: got {raw!r}; expected {field.domain}")
        if field.choices is not None and raw not in field.choices:
            raise CatalogError(f"{where}: got {raw!r}; expected {field.domain}")
        if field.kind == "record":
            found = None if resolve is None else resolve(raw)
            kind = found if isinstance(found, type) else type(found)  # resolve may give the type alone
            if found is None or field.record not in {k.__name__ for k in kind.__mro__}:
                raise CatalogError(f"{where}: got {raw!r}; expected the registry path of a {field.record}")
            return Reference(raw, found)
        return raw
    value: Any
    if field.unit:
        value = published(raw, field.unit, where)
        number = value.base
    else:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise CatalogError(f"{where}: got {raw!r}; expected {field.domain}")
        value = number = raw
    if not math.isfinite(number):
        raise CatalogError(f"{where}: got {raw!r}; expected {field.domain}, finite")
    if field.kind == "int" and not (isinstance(number, int) or float(number).is_integer()):
        raise CatalogError(f"{where}: got {raw!r}; expected {field.domain}")
    outside = field.bounds is not None and not field.bounds[0] <= number <= field.bounds[1]
    if (field.positive and number <= 0) or (field.nonnegative and number < 0) or outside:
        raise CatalogError(f"{where}: got {raw!r}; expected {field.domain}")
    return value


def entries(file: str, tiers: tuple[str, ...], types: dict[str, type[Record]],
            directory: Path = CATALOG_DIR, resolve: Any = None) -> tuple[Entry, ...]:
    """Every entry of ``file``: ``[Tier.Key]`` tables with a ``type`` key naming a record type."""
    data = read_toml(file, directory)
    shown = _shown_path(directory / file)
    unknown = sorted(set(data) - set(tiers))
    if unknown:
        raise CatalogError(f"{shown}: unknown tiers {unknown}; expected {list(tiers)}")
    found = []
    for tier in tiers:
        for key, table in data.get(tier, {}).items():
            where = f"{shown}: entry {tier}.{key}"
            if not isinstance(table, dict):
                raise CatalogError(f"{where}: expected a table of fields, got {table!r}")
            type_name = table.get("type")
            if type_name not in types:
                raise CatalogError(f"{where}, field 'type': got {type_name!r}; expected one of {sorted(types)}")
            found.append(Entry(tier, key, types[type_name], validate(types[type_name], table, where, resolve)))
    return tuple(found)


def validate(record_type: type[Record], table: dict[str, Any], where: str, resolve: Any = None) -> dict[str, Any]:
    """The fields of one entry, checked against ``record_type``'s schema and checks."""
    fields = record_type.fields()
    extra = sorted(set(table) - set(fields) - {"type"})
    if extra:
        raise CatalogError(f"{where}: unknown fields {extra} for a {record_type.__name__} "
                           f"(its fields: {', '.join(fields)})")
    values: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in table:
            if field.required:
                raise CatalogError(f"{where}, field '{name}': missing; a {record_type.__name__} requires it "
                                   f"({field.domain})")
            continue
        values[name] = field_value(field, table[name], f"{where}, field '{name}'", resolve)
    numbers = {fields[k].symbol: (v.base if isinstance(v, Published) else v) for k, v in values.items()
               if fields[k].kind in ("number", "int")}
    numbers.update({fields[k].symbol: fields[k].choices[v] for k, v in values.items()  # type: ignore[index]
                    if fields[k].kind == "choice"})
    for check in record_type.checks:
        if isinstance(check, Together):
            if check.broken({str(f): str(f) in values for f in check.fields}):
                shown = ", ".join(f"{f}={'set' if str(f) in values else 'unset'}" for f in check.fields)
                raise CatalogError(f"{where}: {check.message}; got {shown}")
            continue
        if check.unless is not None and str(check.unless) in values:
            continue
        if check.condition.free_symbols <= set(numbers) and not bool(check.condition.subs(numbers)):
            shown = ", ".join(f"{s}={numbers[s]}" for s in sorted(check.condition.free_symbols, key=str))
            raise CatalogError(f"{where}: {check.message}; got {shown}")
    return values


def sympy_number(value: Any) -> sympy.Basic:
    return sympy.Float(value) if isinstance(value, float) else sympy.Integer(value)
