"""The models and systems catalog pages: record types with their equations, every entry in tables.

Derived values in the tables come from the runtime records, whose methods are compiled from
the same declarations the equations are printed from (``symbolic/catalog/workloads.py``,
``systems.py``), so a table cannot disagree with its equation.
"""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.catalog import Hardware, Models, Systems, network_records
from symbolic.catalog.schema import Derived, Param, Record
from symbolic.catalog.systems import LINK_TYPES, SYSTEM_TYPES
from symbolic.catalog.workloads import WORKLOAD_TYPES
from symbolic.model import UNIT_SYMBOLS
from symbolic.runtime.errors import MissingInputError
from symbolic.runtime.model_config import FAMILIES, SPARSE
from symbolic.runtime.parameter_counts import parameter_counts

WIDTH = "fp16"  # the storage width the tables use for weight and KV sizes
# Fields the entry table has a column for; every other set field is listed under it
MODEL_COLUMNS = ("name", "parameters", "layers", "hidden_dim", "heads", "kv_heads", "context_length",
                 "inference_flops")


def _latex_names(record: type[Record]) -> dict[sympy.Basic, str]:
    names: dict[sympy.Basic, str] = {s: rf"\mathrm{{{u}}}" for s, u in UNIT_SYMBOLS.items()}
    for name, item in record.declared.items():
        if item.symbol is not None:
            names[item.symbol] = item.latex or rf"\mathrm{{{name.replace('_', chr(92) + '_')}}}"
    return names


def equation(record: type[Record], derived: Derived) -> str:
    """``symbol = expression`` in LaTeX, with ``otherwise`` as a second case."""
    names = _latex_names(record)
    left = derived.latex or rf"\mathrm{{{derived.name.replace('_', chr(92) + '_')}}}"
    params = [p for p in record.params().values() if p.symbol in derived.expr.free_symbols]
    if params:
        left += "(" + ", ".join(names[p.symbol] for p in params) + ")"
    right = sympy.latex(derived.expr, symbol_names=names, mul_symbol="dot")
    if derived.otherwise is not None:
        fallback = sympy.latex(derived.otherwise, symbol_names=names)
        right = rf"\begin{{cases}} {right} & \text{{when set}} \\ {fallback} & \text{{otherwise}} \end{{cases}}"
    return f"{left} = {right}"


def type_section(record: type[Record]) -> dict[str, Any]:
    """A record type's own fields and derived quantities, for the page."""
    own = set(record.own())
    names = _latex_names(record)
    fields = []
    for name, item in record.declared.items():
        if name not in own or isinstance(item, Derived):
            continue
        fallback = "" if item.fallback is None else f"${sympy.latex(item.fallback, symbol_names=names)}$"
        symbol = f"${names[item.symbol]}$" if item.symbol is not None and item.kind not in ("str", "record") else ""
        fields.append({"name": name, "symbol": symbol, "unit": item.unit, "domain": item.domain,
                       "required": "argument" if isinstance(item, Param) else ("yes" if item.required else ""),
                       "fallback": fallback, "doc": item.doc})
    derived = [{"name": d.name, "unit": d.unit, "doc": d.doc, "equation": equation(record, d)}
               for name, d in record.derived().items() if name in own]
    base = record.__mro__[1].__name__
    return {"name": record.__name__, "base": "" if base == "Record" else base, "doc": (record.__doc__ or "").strip(),
            "fields": fields, "derived": derived}


def shown(value: Any) -> str:
    """A value for a table cell: Quantities compactly with their unit, None as a dash."""
    if value is None:
        return "–"
    if hasattr(value, "units"):
        if isinstance(value.magnitude, int):
            return f"{value.magnitude} {value.units:~P}"
        return f"{value:.4g~P}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _try(read: Any) -> str:
    try:
        return shown(read())
    except (MissingInputError, AttributeError):
        return "–"


def model_rows(tier: str, entries: Any) -> list[dict[str, Any]]:
    rows = []
    for key, record in entries.items():
        own = [name for name in _parameterless(record) if name not in ("head_width",)]
        rows.append({
            "path": f"Models.{tier}.{key}", "name": record.name, "type": type(record).__name__,
            "counts": parameter_counts(record),
            "parameters": shown(record.parameters), "flops": shown(record.inference_flops),
            "layers": _try(lambda r=record: r.layers), "hidden": _try(lambda r=record: r.hidden_dim),
            "heads": _try(lambda r=record: r.heads), "kv_heads": _try(lambda r=record: r.resolved("kv_heads")),
            "context": _try(lambda r=record: r.context_length),
            "weights": _try(lambda r=record: r.size_in_bytes(WIDTH).to("GB")),
            "kv": _try(lambda r=record: r.kv_cache_bytes_per_token(WIDTH)),
            "derived": "; ".join(f"`{n}` {_try(lambda r=record, n=n: getattr(r, n))}" for n in own),
            "stored": "; ".join(f"`{n}` {shown(v)}" for n, v in record.fields().items() if n not in MODEL_COLUMNS),
        })
    return rows


def _parameterless(record: Any) -> list[str]:
    return [name for name in dir(type(record)) if isinstance(getattr(type(record), name, None), property)
            and not name.startswith("_") and name not in ("registry_path",)]


def models_page(env: Any, header: list[str]) -> str:
    models = Models.value.built
    tiers = [(tier, model_rows(tier, getattr(models, tier))) for tier in models]
    return env.get_template("models.md.j2").render(header=header, types=[type_section(t) for t in WORKLOAD_TYPES],
                                                   tiers=tiers, width=WIDTH, config_families=config_families())


def config_families() -> list[dict[str, str]]:
    """The families ``workload_from_config`` reads, with their record type and the keys read."""
    return [{"name": name, "record": "SparseTransformerWorkload" if name in SPARSE else "TransformerWorkload",
             "read": ", ".join(f"`{key}`" for key in keys)} for name, (_, keys) in sorted(FAMILIES.items())]


def systems_page(env: Any, header: list[str]) -> str:
    systems = Systems.value.built
    nodes = [{"path": f"Systems.Nodes.{k}", "node": n, "accelerator": f"Hardware.{n.accelerator.path}",
              "intra": shown(n.intra_node_bw), "aggregate": shown(n.intra_node_aggregate_bw.to("TB/s"))}
             for k, n in systems.Nodes.items()]
    fabrics = [{"path": f"Systems.Fabrics.{k}", "fabric": f, "bandwidth": shown(f.bandwidth),
                "bytes": shown(f.bandwidth.to("GB/s")), "latency": shown(f.latency),
                "share": shown(f.bisection_share.to("GB/s"))} for k, f in systems.Fabrics.items()]
    clusters = [{"path": f"Systems.Clusters.{k}", "fleet": c, "node": c.node.registry_path,
                 "fabric": c.fabric.registry_path} for k, c in systems.Clusters.items()]
    storage = [(f"Systems.Storage.{k}", s) for k, s in systems.Storage.items()]
    storage += [(f"Hardware.Tech.Storage.{k}", s) for k, s in Hardware.value.built.Tech.Storage.items()]
    docs = {(r.section, r.key): r.doc for r in network_records()}
    values = [(f"Systems.{section}.{key}", shown(value), docs[section, key])
              for section in ("SwitchFabric", "NetworkEnergy") for key, value in getattr(systems, section).items()]
    return env.get_template("systems.md.j2").render(
        header=header, types=[type_section(t) for t in LINK_TYPES + SYSTEM_TYPES], nodes=nodes, fabrics=fabrics,
        clusters=clusters, storage=[(p, s.name, shown(s.bandwidth)) for p, s in storage], values=values)
