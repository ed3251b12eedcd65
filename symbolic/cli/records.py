"""What the catalog knows, from the shell: ``show Hardware.Cloud.H100``, ``show Models.Language.Llama3_70B``,
``describe path/config.json``; and how an input's value is named in every table (``input_text``).

A workload is shown as a reader sizing a deployment asks of it: its parameters (all, for the weights;
active per token, for the FLOPs), its KV-cache bytes per token, its weights at each precision, and the
memory to serve it at a context and a batch: weights plus the KV cache of ``batch`` sequences of
``context`` tokens (the record's ``get_kv_cache_size``; activations and the engine's own buffers are
not counted, and the table says so). Every number is the record's declared expression, never
recomputed here.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Any

import generated
from symbolic.cli.files import from_file
from symbolic.cli.output import emit, shown, table
from symbolic.cli.usage import UsageError
from symbolic.cli.values import catalog_entry
from symbolic.runtime.errors import MissingInputError
from symbolic.runtime.records import CatalogRecord

CATALOGS = ("Hardware", "Models", "Datasets", "Systems", "Constants")
WEIGHT_PRECISIONS = ("fp32", "bf16", "fp8", "int4")  # the widths a model is served at, widest first


def names_catalog_entry(name: str) -> bool:
    """Whether ``name`` is a catalog path (``Hardware.Cloud.H100``), not a registry entry or class."""
    return name.partition(".")[0] in CATALOGS and "." in name


def entry(name: str) -> Any:
    """The catalog entry a path names, with the nearest names when it names none."""
    root, _, rest = name.partition(".")
    if root in ("Hardware", "Models", "Datasets"):
        return catalog_entry(root, name, {"Hardware": "hardware node", "Models": "workload",
                                          "Datasets": "dataset"}[root])
    found: Any = getattr(generated, root)
    for part in rest.split("."):
        if part not in found:
            raise UsageError(f"unknown {root} entry {name!r} (see `mlsysym list {root}`)")
        found = getattr(found, part)
    return found


def input_text(value: Any) -> str:
    """An input's value as ``--set`` takes it back: a catalog path, a registry name, or a quantity."""
    registry_path = getattr(value, "registry_path", None)
    if isinstance(registry_path, str) and registry_path:
        return registry_path
    if type(value).__name__ == "HardwareNode" and getattr(value, "path", None):
        return f"Hardware.{value.path}"
    if isinstance(value, (list, tuple)):
        return ",".join(input_text(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key}:{input_text(item)}" for key, item in value.items())
    return shown(value)


def input_rows(scenario: Any) -> list[tuple[str, str]]:
    """``(input, value)`` of every input an instance holds: the entry's values, not the class's defaults."""
    return [(name, input_text(value)) for name, value in scenario.inputs().items()]


# -- show Hardware.X / Models.X ---------------------------------------------------------------------
def _quantity(value: Any) -> str:
    return shown(value) if hasattr(value, "units") else str(value)


def node_rows(node: Any) -> list[tuple[str, str]]:
    rows = [("name", node.name), ("memory_capacity", shown(node.memory_capacity)),
            ("memory_bandwidth", shown(node.memory_bandwidth)), ("peak_flops", shown(node.peak_flops))]
    rows += [(f"precision_flops[{key}]", shown(rate)) for key, rate in node.precision_flops.items()]
    interconnect = getattr(node, "interconnect", None)
    if isinstance(interconnect, CatalogRecord):
        rows += [(f"interconnect.{key}", _quantity(value)) for key, value in interconnect.fields().items()]
    return rows


def record_rows(record: CatalogRecord) -> list[tuple[str, str]]:
    """A record's fields, then each derived quantity that takes no argument and is defined for it."""
    rows = [(key, _quantity(value)) for key, value in record.fields().items()]
    derived = sorted(name.removeprefix("_calc_") for name in dir(type(record)) if name.startswith("_calc_"))
    for name in derived:
        try:
            value = getattr(record, name)
            if callable(value):
                if any(p.default is inspect.Parameter.empty for p in inspect.signature(value).parameters.values()):
                    continue  # a quantity with an argument: shown where its argument is known
                value = value()
        except (MissingInputError, AttributeError, TypeError, ValueError, ZeroDivisionError):
            continue  # a field it reads is unset for this record
        rows.append((name, _quantity(value)))
    return rows


def workload_rows(model: Any, context: int, batch: int, precision: str) -> list[tuple[str, str]]:
    """What sizing a deployment of ``model`` needs: counts, KV bytes, weights, memory to serve."""
    rows = [("parameters (all: the weights)", shown(model.parameters))]
    try:
        rows.append(("active parameters per token (the FLOPs)", shown(model.parameters_per_token)))
    except (MissingInputError, AttributeError):
        pass
    try:
        rows.append((f"KV cache per token ({precision})", shown(model.kv_cache_bytes_per_token(precision))))
        kv = model.get_kv_cache_size(seq_len=context, batch_size=batch, precision=precision)
    except (MissingInputError, AttributeError):
        kv = None
    rows += [(f"weights at {width}", shown(model.size_in_bytes(width))) for width in WEIGHT_PRECISIONS]
    if kv is not None:
        weights = model.size_in_bytes(precision)
        rows.append((f"KV cache at context {context:,}, batch {batch} ({precision})", shown(kv)))
        rows.append((f"memory to serve: weights + KV ({precision})", shown((weights + kv).to(weights.units))))
    return rows


SERVE_NOTE = ("memory to serve counts the weights and the KV cache only: activations, the engine's buffers "
              "and fragmentation come on top (see the engine profiles of the serving scenarios)")


def cmd_show_record(args: argparse.Namespace, name: str) -> int:
    """``show Hardware.Cloud.H100`` / ``show Models.Language.Llama3_70B`` / ``show Datasets.MNIST``."""
    found = entry(name)
    if type(found).__name__ == "HardwareNode":
        rows, title = node_rows(found), f"hardware node {name}"
    elif isinstance(found, CatalogRecord):
        rows, title = record_rows(found), f"{type(found).__name__} {name}"
    elif hasattr(found, "__iter__") and not isinstance(found, str):
        raise UsageError(f"{name} is a tier of the catalog, not an entry: `mlsysym list {name.split('.')[0]}` "
                         "lists its entries")
    elif type(found).__name__ == "DatasetProfile":
        rows = [("name", found.name), ("training_examples", _quantity(found.training_examples))]
        rows += [(key, _quantity(value)) for key, value in dict(found.details).items()]
        title = f"dataset {name}"
    else:
        rows, title = [("value", _quantity(found))], name
    text = f"{title}\n" + table(rows, ("field", "value"))
    if type(found).__name__ == "TransformerWorkload":
        sizing = workload_rows(found, args.context, args.batch, args.precision)
        text += "\n\nserving it:\n" + table(sizing, ("quantity", "value")) + f"\n{SERVE_NOTE}"
        rows += sizing
    emit(args, {"entry": name, "fields": dict(rows)}, text)
    return 0


def cmd_describe(args: argparse.Namespace) -> int:
    """``describe path/config.json``: a Hugging Face config as the catalog's models are shown."""
    path = Path(args.config)
    model = from_file("workload", f"@{path}", "describe")
    if args.batch < 1 or args.context < 1:
        raise UsageError(f"--context and --batch must be positive, got {args.context} and {args.batch}")
    rows = workload_rows(model, args.context, args.batch, args.precision)
    layout = [(key, _quantity(value)) for key, value in model.fields().items() if key != "name"]
    text = (f"{model.name} (from {path})\n" + table(rows, ("quantity", "value")) + f"\n{SERVE_NOTE}\n\nlayout read:\n"
            + table(layout, ("field", "value")))
    emit(args, {"config": str(path), "name": model.name, "sizing": dict(rows), "layout": dict(layout)}, text)
    return 0
