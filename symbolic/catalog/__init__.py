"""The catalog: hardware nodes, workloads, systems, datasets and constants, read from the TOML files here.

How it works
------------
The data files are the source of truth. ``load.py`` reads and validates them against the
record types declared in ``schema.py``'s language (``Field``, ``Derived``, ``Param``; the
types are in ``workloads.py`` and ``systems.py``), with exact rationals for every published
number. The generator turns them into ``generated/catalog.py`` (plain Python, values
pre-converted to base units, so the runtime reads them without pint). Registry declarations
use the ``Hardware``, ``Models``, ``Systems``, ``Datasets`` and ``Constants`` references
below, ``Ref`` values (``refs.py``) that carry both the value and the source text that
rebuilds it at runtime. This layer sits on ``symbolic.runtime`` only; ``symbolic.model``
builds on it (a workload input reads a record type's fields). The records of ``Models`` and
``Systems`` are instances of the runtime record classes in ``generated/workloads.py`` and
``systems.py`` (the layer below), read from ``sys.modules`` when first built: while it
generates, the generator puts there the text those files are about to hold
(``symbolic.codegen.records.install_fresh``), so a record type changed in ``workloads.py``
is what its registry values are built with, and the catalog never calls the generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from functools import lru_cache
from typing import Any

from generated.systems import MemorySystem
from symbolic.catalog.load import (
    CATALOG_DIR,
    CatalogError,
    Entry,
    Published,
    Reference,
    entries,
    published,
    read_toml,
    validate,
)
from symbolic.catalog.refs import Lazy, Ref
from symbolic.catalog.schema import Record
from symbolic.catalog.systems import LINK_TYPES, SYSTEM_TIERS, SYSTEM_TYPES, IOInterconnect
from symbolic.catalog.workloads import TIERS as MODEL_TIERS
from symbolic.catalog.workloads import WORKLOAD_TYPES
from symbolic.runtime.hardware import DatasetProfile, HardwareNode
from symbolic.runtime.provided import use_memory_type
from symbolic.runtime.namespace import Namespace
from symbolic.runtime.units import Q_

# node.memory is a record of the generated systems types, read from generated/systems.py as the
# runtime reads it (the runtime itself is handed it by generated/__init__.py)
use_memory_type(lambda: MemorySystem)

TIERS = ("Cloud", "Workstation", "Mobile", "Edge", "Tiny")


# A node's scalar facts beyond the roofline: field -> unit ("" for a count), in table order
NODE_EXTRA_UNITS = {"tdp": "W", "tdp_min": "W", "tdp_max": "W", "dispatch_tax": "ms", "unit_cost": "dollar",
                    "unit_cost_max": "dollar", "accelerator_count": ""}
NODE_LINKS = ("interconnect", "nvlink")


@dataclass(frozen=True)
class NodeRecord:
    tier: str
    key: str
    name: str
    precision_flops: dict[str, Published]
    memory_bandwidth: Published
    memory_capacity: Published
    peak_flops: Published
    extra: dict[str, Any]  # NODE_EXTRA_UNITS fields that are set: Published, or an int count
    links: dict[str, dict[str, Any]]  # "interconnect"/"nvlink" -> validated IOInterconnect fields

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
    return read_toml(name, CATALOG_DIR)


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
            where = f"symbolic/catalog/hardware.toml: entry {tier}.{key}"
            known = {"name", "memory_bandwidth", "memory_capacity", "peak_flops", "precision_flops",
                     *NODE_EXTRA_UNITS, *NODE_LINKS}
            if set(node) - known:
                raise CatalogError(f"{where}: unknown fields {sorted(set(node) - known)}")
            records.append(
                NodeRecord(
                    tier=tier,
                    key=key,
                    name=node["name"],
                    precision_flops={p: _published(v, "flop/s") for p, v in node.get("precision_flops", {}).items()},
                    memory_bandwidth=_published(node["memory_bandwidth"], "byte/s"),
                    memory_capacity=_published(node["memory_capacity"], "byte"),
                    peak_flops=_published(node["peak_flops"], "flop/s"),
                    extra={field: _extra(node[field], unit, f"{where}, field '{field}'")
                           for field, unit in NODE_EXTRA_UNITS.items() if field in node},
                    links={link: validate(IOInterconnect, node[link], f"{where}.{link}")
                           for link in NODE_LINKS if link in node},
                )
            )
    return tuple(records)


def _extra(raw: Any, unit: str, where: str) -> Any:
    if unit:
        value = published(raw, unit, where)
        if value.base < 0:
            raise CatalogError(f"{where}: got {raw!r}; expected a quantity ≥ 0 {unit}")
        return value
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise CatalogError(f"{where}: got {raw!r}; expected an integer ≥ 1")
    return raw


@lru_cache(maxsize=None)
def dataset_records() -> dict[str, dict[str, Any]]:
    """Every dataset's fields by registry name."""
    return _read("datasets.toml")


EFFICIENCY_PREFIX = "Efficiency"  # efficiency.toml's sections: Efficiency<node key>, e.g. EfficiencyA100


@lru_cache(maxsize=None)
def constant_records() -> tuple[ConstantRecord, ...]:
    """Every constant, by section and name, in file order: ``constants.toml``, then the per-device
    efficiency figures of ``efficiency.toml`` (each with its ``source``)."""
    records = [ConstantRecord(section, key, entry["value"], entry["doc"])
               for section, entries in _read("constants.toml").items() for key, entry in entries.items()]
    for section, entries_ in _read("efficiency.toml").items():
        where = f"symbolic/catalog/efficiency.toml: section {section}"
        if not section.startswith(EFFICIENCY_PREFIX) or section == EFFICIENCY_PREFIX:
            raise CatalogError(f"{where}: expected a name Efficiency<node key> (EfficiencyA100)")
        for key, entry in entries_.items():
            missing = {"value", "doc", "source"} - set(entry)
            if missing or set(entry) - {"value", "doc", "source", "fitted_on"}:
                raise CatalogError(f"{where}, entry {key}: expected the fields value, doc and source (and "
                                   f"fitted_on for a fitted figure), got {sorted(entry)}")
            fitted = entry.get("fitted_on", [])
            if not isinstance(fitted, list) or not all(isinstance(name, str) for name in fitted):
                raise CatalogError(f"{where}, entry {key}, field 'fitted_on': got {fitted!r}; expected a list of "
                                   "run names of measurements.toml")
            try:
                Q_(entry["value"])
            except Exception as error:
                raise CatalogError(f"{where}, entry {key}, field 'value': got {entry['value']!r}; expected a "
                                   f"quantity ({error})") from None
            records.append(ConstantRecord(section, key, entry["value"], f"{entry['doc']} Source: {entry['source']}."))
    return tuple(records)


def efficiency_sources() -> dict[str, dict[str, dict[str, Any]]]:
    """``{section: {figure: {value, doc, source, fitted_on}}}`` of ``efficiency.toml``, for the validation
    page and the fits (``fitted_on`` is empty for a figure that is not fitted)."""
    return {section: {key: {"value": entry["value"], "doc": entry["doc"], "source": entry["source"],
                            "fitted_on": list(entry.get("fitted_on", []))} for key, entry in entries_.items()}
            for section, entries_ in _read("efficiency.toml").items()}


@lru_cache(maxsize=None)
def workload_entries() -> tuple[Entry, ...]:
    """Every workload of ``workloads.toml``, validated against its type, in tier and file order."""
    return entries("workloads.toml", MODEL_TIERS, {t.__name__: t for t in WORKLOAD_TYPES})


@lru_cache(maxsize=None)
def storage_widths() -> dict[str, float | int]:
    """Bytes per value of each precision name (the ``StorageWidths`` constants)."""
    widths = {}
    for record in constant_records():
        if record.section == "StorageWidths":
            magnitude = Q_(record.value).to("byte").magnitude
            widths[record.key.lower()] = int(magnitude) if float(magnitude).is_integer() else float(magnitude)
    return widths


def entry_arguments(entry: Entry) -> tuple[dict[str, Any], dict[str, Any]]:
    """``from_catalog``'s values (numbers in each field's unit) and published forms (text) of an entry."""
    values = {k: (v.base if isinstance(v, Published) else v) for k, v in entry.values.items()}
    shown = {k: (v.text if isinstance(v, Published) else v) for k, v in entry.values.items()}
    return values, shown


class _Built:
    """A catalog namespace built on first use (so the generator can install fresh record classes before it)."""

    def __init__(self, build: Any) -> None:
        self._build = build
        self._value: Any = None

    @property
    def is_built(self) -> bool:
        return self._value is not None

    @property
    def built(self) -> Any:
        if self._value is None:
            self._value = self._build()
        return self._value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.built, name)


# Each generated record module and the record types it defines (its classes by these names).
RECORD_MODULES: dict[str, tuple[type[Record], ...]] = {"workloads": WORKLOAD_TYPES, "systems": LINK_TYPES + SYSTEM_TYPES}


def record_types() -> dict[str, str]:
    """Each record type's name and the generated module that defines it (``generated.workloads``, ...)."""
    return {t.__name__: f"generated.{module}" for module, types in RECORD_MODULES.items() for t in types}


def runtime_types(module: str) -> dict[str, Any]:
    """The runtime record classes of ``generated/<module>.py``, by type name: the module as imported, or as
    the generator installed it while generating."""
    loaded = import_module(f"generated.{module}")
    missing = [t.__name__ for t in RECORD_MODULES[module] if not hasattr(loaded, t.__name__)]
    if missing:
        raise CatalogError(f"generated/{module}.py defines no {', '.join(missing)}: it is older than the record "
                           "types in symbolic/catalog/; run `make generate`")
    return {t.__name__: getattr(loaded, t.__name__) for t in RECORD_MODULES[module]}


def built_already() -> list[str]:
    """The namespaces whose records exist already (built with the record classes of that moment)."""
    return [name for name, ref in (("Hardware", Hardware), ("Models", Models), ("Systems", Systems))
            if ref.value.is_built] + (["Systems entries"] if _BUILT else [])

def _models() -> Namespace:
    types = runtime_types("workloads")
    tiers: dict[str, dict[str, Any]] = {}
    for entry in workload_entries():
        values, shown = entry_arguments(entry)
        tiers.setdefault(entry.tier, {})[entry.key] = types[entry.type.__name__].from_catalog(entry.path, values, shown)
    return Namespace("Models", {tier: Namespace(f"Models.{tier}", items) for tier, items in tiers.items()})


def node_extra(record: NodeRecord) -> dict[str, Any]:
    """A node's extra facts as published (text, or an int count)."""
    return {k: (v.text if isinstance(v, Published) else v) for k, v in record.extra.items()}


def link_arguments(record: NodeRecord, link: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """``IOInterconnect.from_catalog`` arguments of a node's link."""
    fields = record.links[link]
    values = {k: (v.base if isinstance(v, Published) else v) for k, v in fields.items()}
    shown = {k: (v.text if isinstance(v, Published) else v) for k, v in fields.items()}
    return f"{record.path}.{link}", values, shown


def node_from_record(record: NodeRecord) -> HardwareNode:
    """The runtime node for a record (the same constructor ``generated/catalog.py`` calls)."""
    link_type = runtime_types("systems")["IOInterconnect"]
    links = {link: link_type.from_catalog(*link_arguments(record, link)) for link in record.links}
    return HardwareNode.from_catalog(
        record.path,
        record.name,
        {p: (v.text, v.base) for p, v in record.precision_flops.items()},
        (record.memory_bandwidth.text, record.memory_bandwidth.base),
        (record.memory_capacity.text, record.memory_capacity.base),
        (record.peak_flops.text, record.peak_flops.base),
        node_extra(record),
        **links,
    )


def _hardware() -> Namespace:
    tiers: dict[str, dict[str, Any]] = {tier: {} for tier in TIERS}
    for record in hardware_records():
        tiers[record.tier][record.key] = node_from_record(record)
    namespaces = {tier: Namespace(f"Hardware.{tier}", nodes) for tier, nodes in tiers.items()}
    storage = {e.key: _built_entry(e) for e in systems_entries() if e.tier == "TechStorage"}
    tech = Namespace("Hardware.Tech", {"Storage": Namespace("Hardware.Tech.Storage", storage)})
    return Namespace("Hardware", namespaces, extra={"Tech": tech})


@lru_cache(maxsize=None)
def systems_entries() -> tuple[Entry, ...]:
    """Every entry of ``systems.toml``; record fields must name an earlier entry or a hardware node."""
    types: dict[str, type[Record]] = {t.__name__: t for t in SYSTEM_TYPES}
    raw = read_toml("systems.toml", CATALOG_DIR)
    nodes = {f"Hardware.{r.path}" for r in hardware_records()}

    def resolve(path: str) -> Any:
        if path in nodes:
            return HardwareNode
        prefix, _, rest = path.partition(".")
        tier, _, key = rest.partition(".")
        table = raw.get(tier, {}).get(key) if prefix == "Systems" else None
        return types.get(str(table.get("type"))) if isinstance(table, dict) else None

    return entries("systems.toml", SYSTEM_TIERS, types, resolve=resolve)


_BUILT: dict[str, Any] = {}


def _built_entry(entry: Entry) -> Any:
    """The runtime record of a systems entry (built once), its references resolved to runtime records."""
    if entry.path in _BUILT:
        return _BUILT[entry.path]

    values, shown = entry_arguments(entry)
    for field, value in entry.values.items():
        if isinstance(value, Reference):
            values[field] = shown[field] = _reference(value.source)
    path = f"Hardware.Tech.Storage.{entry.key}" if entry.tier == "TechStorage" else entry.path
    built = runtime_types("systems")[entry.type.__name__].from_catalog(path, values, shown)
    _BUILT[entry.path] = built
    return built


def _reference(path: str) -> Any:
    if path.startswith("Hardware."):
        tier, key = path.split(".")[1:]
        return getattr(getattr(Hardware.value, tier), key)
    tier, key = path.split(".")[1:]
    return _built_entry(next(e for e in systems_entries() if e.tier == tier and e.key == key))


def _systems() -> Namespace:
    tiers: dict[str, dict[str, Any]] = {}
    for entry in systems_entries():
        if entry.tier != "TechStorage":
            tiers.setdefault(entry.tier, {})[entry.key] = _built_entry(entry)
    for record in network_records():
        tiers.setdefault(record.section, {})[record.key] = Q_(record.value)
    return Namespace("Systems", {tier: Namespace(f"Systems.{tier}", items) for tier, items in tiers.items()})


@lru_cache(maxsize=None)
def network_records() -> tuple[ConstantRecord, ...]:
    """The α latencies and energies per bit (``network.toml``), by section and name."""
    return tuple(
        ConstantRecord(section, key, entry["value"], entry["doc"])
        for section, entries_ in _read("network.toml").items()
        for key, entry in entries_.items()
    )


def _datasets() -> Namespace:
    return Namespace("Datasets", {key: DatasetProfile.from_catalog(key, **f) for key, f in dataset_records().items()})


def _constants() -> Namespace:
    sections: dict[str, dict[str, Any]] = {}
    for record in constant_records():
        sections.setdefault(record.section, {})[record.key] = Q_(record.value)
    return Namespace("Constants", {name: Namespace(f"Constants.{name}", entries) for name, entries in sections.items()})


Hardware = Ref("Hardware", _Built(_hardware))
Datasets = Ref("Datasets", _datasets())
Constants = Ref("Constants", _constants())
Models = Ref("Models", _Built(_models))
Systems = Ref("Systems", _Built(_systems))


class _Custom:
    """Record types as a user calls them to build a record of their own: in a registry entry,
    ``custom.TransformerWorkload(name="Mine", parameters=Q("8e9 param"), layers=32)`` is the
    runtime record (validated like any custom one) and is written into the registry as the
    call ``TransformerWorkload(name='Mine', ...)``, not as copied numbers."""

    def __getattr__(self, name: str) -> Ref:
        if name.startswith("_") or name not in record_types():
            raise AttributeError(f"custom.{name}: not a record type ({', '.join(sorted(record_types()))})")

        def build() -> Any:
            return runtime_types(record_types()[name].removeprefix("generated."))[name]

        return Ref(name, Lazy(build))


custom = _Custom()
