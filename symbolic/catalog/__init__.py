"""The catalog: hardware nodes, datasets and constants, read from the TOML files here.

The data files are the source of truth. The generator turns them into
``generated/catalog.py`` (plain Python, values pre-converted to base units, so the
runtime reads them without pint); registry declarations use the ``Hardware``,
``Datasets`` and ``Constants`` references below, which carry both the value and the
source text that rebuilds it at runtime.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from symbolic.refs import Ref
from symbolic.runtime.hardware import DatasetProfile, HardwareNode
from symbolic.runtime.namespace import Namespace
from symbolic.runtime.units import Q_

CATALOG_DIR = Path(__file__).resolve().parent
TIERS = ("Cloud", "Workstation", "Mobile", "Edge", "Tiny")


@dataclass(frozen=True)
class Published:
    """A catalog quantity: the text as published and its magnitude in base units."""

    text: str
    base: float | int


@dataclass(frozen=True)
class NodeRecord:
    tier: str
    key: str
    name: str
    precision_flops: dict[str, Published]
    memory_bandwidth: Published
    memory_capacity: Published
    peak_flops: Published

    @property
    def path(self) -> str:
        return f"{self.tier}.{self.key}"


@dataclass(frozen=True)
class ConstantRecord:
    section: str
    key: str
    value: str
    doc: str


def _read(name: str) -> dict[str, Any]:
    with open(CATALOG_DIR / name, "rb") as handle:
        return tomllib.load(handle)


def _published(text: str, unit: str) -> Published:
    """Rates and bandwidths become floats; a whole number of bytes stays an exact int."""
    magnitude = Q_(text).to(unit).magnitude
    if unit == "byte" and float(magnitude).is_integer():
        return Published(text, int(magnitude))
    return Published(text, float(magnitude))


@lru_cache(maxsize=None)
def hardware_records() -> tuple[NodeRecord, ...]:
    """Every hardware node, in tier and file order."""
    data = _read("hardware.toml")
    unknown = sorted(set(data) - set(TIERS))
    if unknown:
        raise ValueError(f"hardware.toml: unknown tiers {unknown}; expected {TIERS}")
    records = []
    for tier in TIERS:
        for key, node in data.get(tier, {}).items():
            records.append(
                NodeRecord(
                    tier=tier,
                    key=key,
                    name=node["name"],
                    precision_flops={p: _published(v, "flop/s") for p, v in node.get("precision_flops", {}).items()},
                    memory_bandwidth=_published(node["memory_bandwidth"], "byte/s"),
                    memory_capacity=_published(node["memory_capacity"], "byte"),
                    peak_flops=_published(node["peak_flops"], "flop/s"),
                )
            )
    return tuple(records)


@lru_cache(maxsize=None)
def dataset_records() -> dict[str, dict[str, Any]]:
    """Every dataset's fields by registry name."""
    return _read("datasets.toml")


@lru_cache(maxsize=None)
def constant_records() -> tuple[ConstantRecord, ...]:
    """Every constant, by section and name, in file order."""
    return tuple(
        ConstantRecord(section, key, entry["value"], entry["doc"])
        for section, entries in _read("constants.toml").items()
        for key, entry in entries.items()
    )


def node_from_record(record: NodeRecord) -> HardwareNode:
    """The runtime node for a record (the same constructor ``generated/catalog.py`` calls)."""
    return HardwareNode.from_catalog(
        record.path,
        record.name,
        {p: (v.text, v.base) for p, v in record.precision_flops.items()},
        (record.memory_bandwidth.text, record.memory_bandwidth.base),
        (record.memory_capacity.text, record.memory_capacity.base),
    )


def _hardware() -> Namespace:
    tiers: dict[str, dict[str, HardwareNode]] = {tier: {} for tier in TIERS}
    for record in hardware_records():
        tiers[record.tier][record.key] = node_from_record(record)
    return Namespace("Hardware", {tier: Namespace(f"Hardware.{tier}", nodes) for tier, nodes in tiers.items()})


def _datasets() -> Namespace:
    return Namespace("Datasets", {key: DatasetProfile.from_catalog(key, **f) for key, f in dataset_records().items()})


def _constants() -> Namespace:
    sections: dict[str, dict[str, Any]] = {}
    for record in constant_records():
        sections.setdefault(record.section, {})[record.key] = Q_(record.value)
    return Namespace("Constants", {name: Namespace(f"Constants.{name}", entries) for name, entries in sections.items()})


Hardware = Ref("Hardware", _hardware())
Datasets = Ref("Datasets", _datasets())
Constants = Ref("Constants", _constants())
