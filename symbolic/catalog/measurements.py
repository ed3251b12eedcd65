"""Measured runs: the record type of ``measurements.toml`` (and of a user's file of the same form).

A run is one published measurement with the configuration it was taken at: ``[[run]]`` with
``[run.model]``, ``[run.layout]`` and ``[run.measured]`` (the form is documented at the top of
``measurements.toml``). ``load_runs`` validates a file into ``Run`` records, every error naming the
file, the run and the field; ``scenario_inputs`` turns a run into the inputs of the scenario that
predicts it (``MegatronIterationScenario`` or ``PrefillPassScenario``), catalog values as references
so a registry instance is written as source, and the node's efficiency figures from
``efficiency.toml`` (the same for every run on that node).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from symbolic.catalog.load import CATALOG_DIR, CatalogError
from symbolic.runtime.units import Q_
from symbolic.catalog import Constants, EFFICIENCY_PREFIX, efficiency_sources, Hardware, hardware_records, Models, runtime_types, Systems, systems_entries, workload_entries
from symbolic.runtime.model_config import workload_from_config

RUNS_FILE = CATALOG_DIR / "measurements.toml"
KINDS = ("training", "prefill")
SCENARIOS = {"training": "MegatronIterationScenario", "prefill": "PrefillPassScenario"}
RECOMPUTE = ("none", "selective", "full")
PRECISIONS = {"fp16": 2, "bf16": 2}  # the weights' and activations' storage width in bytes
DEFAULT_FABRIC = "InfiniBand_HDR"

MODEL_FIELDS = ("layers", "hidden_dim", "heads", "kv_heads", "ffn_dim", "gated_mlp", "vocab_size", "seq_len")
REQUIRED_MODEL = ("layers", "hidden_dim", "heads", "vocab_size")
LAYOUT_FIELDS = {
    "training": ("tp", "pp", "dp", "global_batch", "micro_batch", "interleave", "recompute", "sequence_parallel",
                 "precision"),
    "prefill": ("tp", "batch", "input_tokens", "precision"),
}
# measured quantity -> the unit its value must convert to, by kind
MEASURED = {
    "training": {"iteration_time": "s", "params_optimizer_per_gpu": "byte", "activations_per_gpu": "byte",
                 "flops_per_gpu": "flop/s"},
    "prefill": {"ttft": "s"},
}
UNITS = {"iteration_time": "s", "params_optimizer_per_gpu": "GiB", "activations_per_gpu": "GiB", "ttft": "ms",
         "flops_per_gpu": "TFLOP/s"}
RUN_FIELDS = ("name", "source", "kind", "hardware", "gpus", "fabric", "model", "layout", "measured")


class MeasurementError(CatalogError):
    """A measured run is malformed: the message names the file, the run and the field."""


@dataclass(frozen=True)
class Run:
    """One validated measured run."""

    file: str
    name: str
    source: str
    kind: str  # "training" or "prefill"
    hardware: str  # a node path, "Cloud.A100"
    gpus: int
    fabric: str  # a Systems.Fabrics key
    workload: str | None  # "Models.Language.X" when the model is a catalog entry
    model: dict[str, int]  # every MODEL_FIELDS entry the kind needs, resolved (gated_mlp 0 or 1)
    layout: dict[str, Any]
    measured: dict[str, Any]  # quantity -> pint Quantity
    config: str | None = None  # a prefill run's config.json (resolved path) when it names no catalog model

    @property
    def scenario(self) -> str:
        return SCENARIOS[self.kind]


def load_runs(path: str | Path = RUNS_FILE) -> tuple[Run, ...]:
    """Every run of a file, validated; names are unique within the file."""
    path = Path(path)
    shown = _shown(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise MeasurementError(f"{shown}: cannot read: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise MeasurementError(f"{shown}: not valid TOML: {error}") from None
    if set(data) - {"run"}:
        raise MeasurementError(f"{shown}: unknown top-level tables {sorted(set(data) - {'run'})}; expected [[run]]")
    tables = data.get("run")
    if not isinstance(tables, list) or not tables:
        raise MeasurementError(f"{shown}: no runs; expected one or more [[run]] tables")
    runs: list[Run] = []
    for number, table in enumerate(tables, 1):
        run = _run(shown, number, table, path.parent)
        if any(run.name == other.name for other in runs):
            raise MeasurementError(f"{shown}: run {run.name!r}, field 'name': given twice; names must be unique")
        runs.append(run)
    return tuple(runs)


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(CATALOG_DIR.parents[1]))
    except ValueError:
        return str(path)


def _run(file: str, number: int, table: dict[str, Any], base: Path) -> Run:
    name = table.get("name")
    label = f"run {name!r}" if isinstance(name, str) else f"run #{number}"

    def fail(field: str, got: Any, expected: str) -> MeasurementError:
        return MeasurementError(f"{file}: {label}, field '{field}': got {got!r}; expected {expected}")

    unknown = sorted(set(table) - set(RUN_FIELDS))
    if unknown:
        raise fail(unknown[0], table[unknown[0]], f"one of the fields {', '.join(RUN_FIELDS)}")
    for field in ("name", "source", "kind", "hardware", "gpus", "model", "layout", "measured"):
        if field not in table:
            raise MeasurementError(f"{file}: {label}, field '{field}': missing")
    if not isinstance(name, str) or not name.isidentifier():
        raise fail("name", name, "an identifier (letters, digits, underscores), it names the registry instance")
    if not isinstance(table["source"], str) or not table["source"].strip():
        raise fail("source", table["source"], "the paper, table or figure, as text")
    kind = table["kind"]
    if kind not in KINDS:
        raise fail("kind", kind, " or ".join(repr(k) for k in KINDS))
    hardware = table["hardware"]
    if not isinstance(hardware, str) or hardware.removeprefix("Hardware.") not in _nodes():
        raise fail("hardware", hardware, "a node path of the Hardware catalog, e.g. 'Cloud.A100'")
    hardware = hardware.removeprefix("Hardware.")
    if _efficiency_section(hardware) not in _efficiency_sections():
        raise fail("hardware", hardware, f"a node with efficiency figures in efficiency.toml (section "
                                         f"{_efficiency_section(hardware)} is absent; nodes with figures: "
                                         f"{', '.join(sorted(_efficiency_sections()))})")
    fabric = table.get("fabric", DEFAULT_FABRIC)
    if not isinstance(fabric, str) or fabric.removeprefix("Systems.Fabrics.") not in _fabrics():
        raise fail("fabric", fabric, f"a fabric of Systems.Fabrics ({', '.join(sorted(_fabrics()))})")
    gpus = _count(table["gpus"], lambda got, what: fail("gpus", got, what))
    for sub in ("model", "layout", "measured"):
        if not isinstance(table[sub], dict):
            raise fail(sub, table[sub], f"a table [run.{sub}]")
    config = None
    if "config" in table["model"]:
        config, model = _config_model(table["model"], kind, base, lambda field, got, what: fail(f"model.{field}", got, what))
        workload = None
    else:
        workload, model = _model(table["model"], kind, lambda field, got, what: fail(f"model.{field}", got, what))
    layout = _layout(table["layout"], kind, lambda field, got, what: fail(f"layout.{field}", got, what))
    expected_gpus = layout["tp"] * layout.get("pp", 1) * layout.get("dp", 1)
    if gpus != expected_gpus:
        raise fail("gpus", gpus, f"tp x pp x dp = {expected_gpus}" if kind == "training" else f"tp = {expected_gpus}")
    _consistent(model, layout, kind, fail)
    measured = _measured(table["measured"], kind, lambda field, got, what: fail(f"measured.{field}", got, what))
    return Run(file, name, table["source"].strip(), kind, hardware, gpus, fabric.removeprefix("Systems.Fabrics."),
               workload, model, layout, measured, config)


def _count(value: Any, fail: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise fail(value, f"an integer >= {minimum}")
    return value


def _config_model(table: dict[str, Any], kind: str, base: Path, fail: Any) -> tuple[str, dict[str, int]]:
    """A prefill run's model from a config.json: the path, and the fields the layout checks read."""
    given = table["config"]
    if kind != "prefill":
        raise fail("config", given, "no config in a training run (give workload = 'Models.Language.<name>' or "
                                    "layers, hidden_dim, heads, ...; config.json models are read by prefill runs)")
    others = sorted(set(table) - {"config"})
    if others:
        raise fail(others[0], table[others[0]], "no other model field beside config (the config holds the architecture)")
    if not isinstance(given, str) or not given.strip():
        raise fail("config", given, "the path of a Hugging Face config.json, relative to the runs file")
    path = base / given
    try:
        record = _from_config(str(path))
    except (OSError, ValueError) as error:
        raise fail("config", given, f"a config.json the architecture is read from ({error})") from None
    return str(path), {field: int(getattr(record, field)) for field in ("layers", "heads", "kv_heads")}


def _model(table: dict[str, Any], kind: str, fail: Any) -> tuple[str | None, dict[str, int]]:
    allowed = ("workload", "config", *MODEL_FIELDS)
    for field in table:
        if field not in allowed:
            raise fail(field, table[field], f"one of {', '.join(allowed)}")
    workload = table.get("workload")
    if workload is not None:
        explicit = sorted(set(table) - {"workload", "seq_len"})
        if explicit:
            raise fail(explicit[0], table[explicit[0]], "no architecture field beside workload (give one or the other)")
        fields = _workload_fields(workload)
        if fields is None:
            raise fail("workload", workload, "'Models.Language.<name>' of a transformer in the Models catalog")
        given = dict(fields, **({"seq_len": table["seq_len"]} if "seq_len" in table else {}))
    else:
        given = dict(table)
        if kind == "prefill":  # the scenario reads a record's architecture (GQA, MoE, head widths, windows)
            field = next(iter(table), "workload")
            raise fail(field, table.get(field), "a prefill run names its model: workload = 'Models.Language.<name>' "
                                                 "or config = '<path of a config.json>' (no architecture fields)")
        for field in REQUIRED_MODEL:
            if field not in given:
                raise fail(field, None, "a value (or give workload = 'Models.Language.<name>')")
    model: dict[str, int] = {}
    for field in MODEL_FIELDS:
        if field not in given:
            continue
        value = given[field]
        if field == "gated_mlp":
            if not isinstance(value, bool):
                raise fail(field, value, "true or false")
            model[field] = int(value)
        else:
            model[field] = _count(value, lambda got, what, field=field: fail(field, got, what))
    model.setdefault("kv_heads", model["heads"])
    model.setdefault("ffn_dim", 4 * model["hidden_dim"])
    model.setdefault("gated_mlp", 0)
    if kind == "training" and "seq_len" not in model:
        raise fail("seq_len", None, "the training sequence length (tokens per sequence)")
    return workload, model


def _layout(table: dict[str, Any], kind: str, fail: Any) -> dict[str, Any]:
    fields = LAYOUT_FIELDS[kind]
    for field in table:
        if field not in fields:
            raise fail(field, table[field], f"one of {', '.join(fields)} (a {kind} run)")
    for field in fields:
        if field not in table:
            raise fail(field, None, "a value")
    layout: dict[str, Any] = {}
    for field in fields:
        value = table[field]
        if field == "recompute":
            if value not in RECOMPUTE:
                raise fail(field, value, " or ".join(repr(r) for r in RECOMPUTE))
        elif field == "sequence_parallel":
            if not isinstance(value, bool):
                raise fail(field, value, "true or false")
        elif field == "precision":
            if value not in PRECISIONS:
                raise fail(field, value, " or ".join(repr(p) for p in PRECISIONS))
        else:
            value = _count(value, lambda got, what, field=field: fail(field, got, what))
        layout[field] = value
    return layout


def _consistent(model: dict[str, int], layout: dict[str, Any], kind: str, fail: Any) -> None:
    tp = layout["tp"]
    for field in ("heads", "kv_heads"):
        if model[field] % tp:
            raise fail("layout.tp", tp, f"a divisor of model.{field} = {model[field]} (heads split over the GPUs)")
    if "hidden_dim" in model and model["hidden_dim"] % model["heads"]:
        raise fail("model.heads", model["heads"], f"a divisor of model.hidden_dim = {model['hidden_dim']}")
    if kind == "training":
        stages = layout["pp"] * layout["interleave"]
        if model["layers"] % stages:
            raise fail("layout.pp", layout["pp"], f"pp x interleave (= {stages}) dividing model.layers = "
                                                  f"{model['layers']} (whole layers per model chunk)")
        if layout["interleave"] > 1 and layout["pp"] == 1:
            raise fail("layout.interleave", layout["interleave"], "1 without pipeline parallelism (pp = 1)")
        per_step = layout["micro_batch"] * layout["dp"]
        if layout["global_batch"] % per_step:
            raise fail("layout.global_batch", layout["global_batch"],
                       f"a multiple of micro_batch x dp = {per_step} (whole micro-batches per replica)")


def _measured(table: dict[str, Any], kind: str, fail: Any) -> dict[str, Any]:
    allowed = MEASURED[kind]
    if not table:
        raise fail(", ".join(allowed), None, "at least one measured quantity")
    measured = {}
    for field, value in table.items():
        if field not in allowed:
            raise fail(field, value, f"one of {', '.join(allowed)} (a {kind} run)")
        try:
            quantity = Q_(value) if isinstance(value, str) else None
        except Exception:
            quantity = None
        if quantity is None or not quantity.check(Q_(1, allowed[field]).dimensionality) or not quantity.magnitude > 0:
            raise fail(field, value, f"a positive quantity with a unit of {allowed[field]}, e.g. '1.5 {UNITS[field]}'")
        measured[field] = quantity
    return measured


# -- the catalog the runs refer to -----------------------------------------------------------
def _nodes() -> set[str]:
    return {record.path for record in hardware_records()}


def _fabrics() -> set[str]:
    return {entry.key for entry in systems_entries() if entry.tier == "Fabrics"}


def _efficiency_section(hardware: str) -> str:
    return EFFICIENCY_PREFIX + hardware.rpartition(".")[2]


def _efficiency_sections() -> set[str]:
    return set(efficiency_sources())


def _workload_fields(path: Any) -> dict[str, Any] | None:
    if not isinstance(path, str) or not path.startswith("Models."):
        return None
    entry = next((e for e in workload_entries() if f"Models.{e.path}" == path), None)
    if entry is None or entry.type.__name__ != "TransformerWorkload":
        return None
    values = entry.values
    if any(field not in values for field in ("layers", "hidden_dim", "heads", "vocab_size")):
        return None
    fields: dict[str, Any] = {field: values[field] for field in ("layers", "hidden_dim", "heads", "kv_heads", "ffn_dim", "vocab_size")
              if field in values}
    fields["gated_mlp"] = values.get("mlp") == "gated"
    return fields


# -- a run as scenario inputs ----------------------------------------------------------------
EFFICIENCY_INPUTS = {"matmul_efficiency": "Matmul", "gemm_half_rows": "GemmHalfRows",
                     "memory_efficiency": "Memory", "nvlink_efficiency": "NvLink", "kernels_per_layer": "KernelsPerLayer",
                     "kernel_launch": "KernelLaunch"}
TRAINING_EFFICIENCY = {"fabric_efficiency": "Fabric", "activation_traffic": "ActivationTraffic"}


def scenario_inputs(run: Run) -> dict[str, Any]:
    """The inputs of the run's scenario: catalog values as ``Ref``s (written as source in the registry)."""

    tier, key = run.hardware.split(".")
    node = getattr(getattr(Hardware, tier), key)
    efficiency = getattr(Constants, _efficiency_section(run.hardware))
    inputs: dict[str, Any] = {"hardware": node, "precision": run.layout["precision"]}
    workload = None
    if run.workload is not None:
        workload = getattr(getattr(Models, run.workload.split(".")[1]), run.workload.split(".")[2])
    if run.kind == "prefill":  # the record itself: its architecture's counts (a catalog entry or a config.json)
        inputs["workload"] = workload if workload is not None else _from_config(run.config)
    else:
        for field in ("layers", "hidden_dim", "heads", "kv_heads", "ffn_dim", "vocab_size"):
            declared = workload is not None and field in (_workload_fields(run.workload) or {})
            inputs[field] = getattr(workload, field) if declared else run.model[field]
        inputs["gated_mlp"] = run.model["gated_mlp"]
    inputs["nvlink_bandwidth"] = node.nvlink.bandwidth_per_direction
    names = dict(EFFICIENCY_INPUTS)
    if run.kind == "training":
        inputs["seq_len"] = run.model["seq_len"]
        inputs.update({field: run.layout[field] for field in ("tp", "pp", "dp", "global_batch", "micro_batch",
                                                              "interleave", "recompute")})
        inputs["sequence_parallel"] = int(run.layout["sequence_parallel"])
        inputs["fabric_bandwidth"] = getattr(Systems.Fabrics, run.fabric).bandwidth
        names.update(TRAINING_EFFICIENCY)
    else:
        inputs.update(tp=run.layout["tp"], batch=run.layout["batch"], input_tokens=run.layout["input_tokens"])
    inputs.update({field: getattr(efficiency, figure) for field, figure in names.items()})
    return inputs


def _from_config(path: str | None) -> Any:
    return workload_from_config(path, runtime_types("workloads"))


def description(run: Run) -> str:
    """A registry instance's description: the run's configuration and what was measured, from where."""
    model = (run.workload.rpartition(".")[2] if run.workload else Path(run.config).name if run.config else
             f"{run.model['layers']} layers, hidden {run.model['hidden_dim']}, {run.model['heads']} heads")
    if run.kind == "training":
        layout = run.layout
        shape = (f"t {layout['tp']} x p {layout['pp']} x d {layout['dp']} on {run.gpus} GPUs, global batch "
                 f"{layout['global_batch']}, micro-batch {layout['micro_batch']}, {layout['interleave']} model "
                 f"chunk(s) per GPU, recomputation {layout['recompute']}, sequence parallelism "
                 f"{'on' if layout['sequence_parallel'] else 'off'}")
    else:
        shape = f"{run.layout['input_tokens']} input tokens, batch {run.layout['batch']}, TP {run.layout['tp']}"
    measured = ", ".join(f"{field} {value:~P}" for field, value in run.measured.items())
    return f"{model}: {shape}. Measured {measured} ({run.source})."
