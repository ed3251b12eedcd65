"""Node files: a measured machine as a TOML file that loads as a hardware node.

``mlsysym calibrate`` writes one; ``hardware_from_file(path)`` (Python) and
``--set hardware=@path`` (the command line) read it back as a ``HardwareNode`` usable
wherever a catalog node is. The file has three parts:

- ``[node]``: what every node has (``name``, ``memory_bandwidth``, ``memory_capacity``,
  ``peak_flops``, a ``[node.precision_flops]`` table), each a quantity as text;
- ``[host]``: what the machine is (CPU model, cores, caches, BLAS, threads, load average,
  date, verdict), facts read from the OS, kept as written;
- ``[measured.<name>]``: every measured figure with ``value`` (a quantity as text),
  ``spread`` (twice the interquartile range over the median across blocks), ``blocks`` and ``method`` (how it was
  measured), so a reader can judge each number.

Only ``[node]`` makes the node; the rest is the host profile (``read_node_file``).
The writer emits exactly the subset of TOML this reader needs (strings, numbers, lists and
tables), so the round trip is exact. Sympy-free: the runtime and the CLI import it.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

from symbolic.runtime.errors import MlsysymError, ScenarioInputError
from symbolic.runtime.hardware import EXTRA_FIELDS, HardwareNode
from symbolic.runtime.units import Q_, parse_quantity

FORMAT = 1
NODE_KEYS = ("name", "memory_bandwidth", "memory_capacity", "peak_flops", "precision_flops", *EXTRA_FIELDS)
MEASURED_KEYS = ("value", "spread", "blocks", "method")


class Measured(NamedTuple):
    """One measured figure: a quantity as text, its spread across blocks, and how it was measured."""

    value: str
    spread: float
    blocks: int
    method: str

    def quantity(self) -> Any:
        """The value as a pint Quantity."""
        return Q_(self.value)

    def to(self, unit: str) -> float:
        """The value as a float in ``unit``."""
        return float(Q_(self.value).to(unit).magnitude)


class NodeFile(NamedTuple):
    """A node file read back: the node, the host facts and the measured figures."""

    node: HardwareNode
    host: dict[str, Any]
    measured: dict[str, Measured]

    def figure(self, name: str, unit: str) -> float:
        """Measured figure ``name`` in ``unit``; a clear error when the file lacks it."""
        if name not in self.measured:
            raise ScenarioInputError(f"node file {self.node.name!r}: no measured figure {name!r} "
                                     f"(it has: {', '.join(sorted(self.measured)) or 'none'})")
        return self.measured[name].to(unit)


def hardware_from_file(path: str | Path) -> HardwareNode:
    """The hardware node a node file describes (``mlsysym calibrate --out node.toml``)."""
    return read_node_file(path).node


def read_node_file(path: str | Path) -> NodeFile:
    """A node file parsed and validated: a bad field is an error naming file, table and field."""
    where = f"node file {str(path)!r}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioInputError(f"{where}: cannot read it ({error.strerror or error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioInputError(f"{where}: not valid TOML ({error})") from None
    return node_file_from_mapping(data, where)


def node_file_from_mapping(data: dict[str, Any], where: str = "node file") -> NodeFile:
    """A node file from its parsed TOML tables (what ``read_node_file`` reads)."""
    if data.get("format") != FORMAT:
        raise ScenarioInputError(f"{where}: 'format' is {data.get('format')!r}; expected {FORMAT} "
                                 "(a file written by `mlsysym calibrate`)")
    unknown = sorted(set(data) - {"format", "node", "host", "measured"})
    if unknown:
        raise ScenarioInputError(f"{where}: unknown tables {unknown} (tables: node, host, measured)")
    node = data.get("node")
    if not isinstance(node, dict):
        raise ScenarioInputError(f"{where}: no [node] table (name, memory_bandwidth, peak_flops, ...)")
    extra = sorted(set(node) - set(NODE_KEYS))
    if extra:
        raise ScenarioInputError(f"{where}: [node] has unknown fields {extra} (fields: {', '.join(NODE_KEYS)})")
    fields = {key: _quantity_text(where, f"node.{key}", value) if key not in ("name", "precision_flops") else value
              for key, value in node.items()}
    rates = fields.pop("precision_flops", {})
    if not isinstance(rates, dict):
        raise ScenarioInputError(f"{where}: [node.precision_flops] must be a table of precision = rate")
    rates = {key: _quantity_text(where, f"node.precision_flops.{key}", value) for key, value in rates.items()}
    try:
        hardware = HardwareNode(precision_flops={key: Q_(text) for key, text in rates.items()},
                                **{key: value if key == "name" else Q_(value) for key, value in fields.items()})
    except MlsysymError as error:
        raise ScenarioInputError(f"{where}: {error}") from None
    host = data.get("host", {})
    if not isinstance(host, dict):
        raise ScenarioInputError(f"{where}: [host] must be a table")
    measured = {name: _measured(where, name, entry) for name, entry in data.get("measured", {}).items()}
    return NodeFile(hardware, host, measured)


def _quantity_text(where: str, field: str, value: Any) -> Any:
    """A quantity field: text as ``parse_quantity`` reads it (a unit is required)."""
    if not isinstance(value, str):
        raise ScenarioInputError(f"{where}: {field} is {value!r}; expected a quantity as text, e.g. '20 GB/s'")
    parse_quantity(value, f"{where}: {field}")
    return value


def _measured(where: str, name: str, entry: Any) -> Measured:
    field = f"measured.{name}"
    if not isinstance(entry, dict) or set(entry) != set(MEASURED_KEYS):
        got = sorted(entry) if isinstance(entry, dict) else entry
        raise ScenarioInputError(f"{where}: [{field}] has {got!r}; expected exactly {', '.join(MEASURED_KEYS)}")
    value = _quantity_text(where, f"{field}.value", entry["value"])
    spread, blocks, method = entry["spread"], entry["blocks"], entry["method"]
    if isinstance(spread, bool) or not isinstance(spread, (int, float)) or not math.isfinite(spread) or spread < 0:
        raise ScenarioInputError(f"{where}: {field}.spread is {spread!r}; expected a finite number >= 0")
    if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 1:
        raise ScenarioInputError(f"{where}: {field}.blocks is {blocks!r}; expected an integer >= 1")
    if not isinstance(method, str) or not method:
        raise ScenarioInputError(f"{where}: {field}.method is {method!r}; expected a description")
    return Measured(value, float(spread), blocks, method)


# -- writing ----------------------------------------------------------------------------------
def node_file_text(node: dict[str, Any], host: dict[str, Any], measured: dict[str, Measured],
                   header: str = "") -> str:
    """The TOML text of a node file (``node``: the [node] fields, quantities as text)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()] if header else []
    lines += [f"format = {FORMAT}", "", "[node]"]
    rates = node.get("precision_flops", {})
    lines += [f"{key} = {_toml(value)}" for key, value in node.items() if key != "precision_flops"]
    if rates:
        lines += ["", "[node.precision_flops]"] + [f"{key} = {_toml(value)}" for key, value in rates.items()]
    lines += ["", "[host]"] + [f"{_key(key)} = {_toml(value)}" for key, value in host.items()]
    for name, figure in measured.items():
        lines += ["", f"[measured.{_key(name)}]"]
        lines += [f"{key} = {_toml(getattr(figure, key))}" for key in MEASURED_KEYS]
    return "\n".join(lines) + "\n"


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() else _toml(name)


def _toml(value: Any) -> str:
    """One TOML value: a string, a finite number, a bool or a list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise MlsysymError(f"node file: cannot write {value!r} (not finite)")
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    raise MlsysymError(f"node file: cannot write {value!r} ({type(value).__name__})")
