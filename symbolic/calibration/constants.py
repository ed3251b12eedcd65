"""The registry's figures of this machine (``MeasuredCpu`` in ``symbolic/catalog/constants.toml``), rewritten
from a node file that ``mlsysym calibrate`` wrote, so ``make validate-here`` refreshes them and no one copies
a number by hand. Only the ``value`` lines of those entries and their header comment change; an entry whose
figure the run did not measure (PyTorch not installed) keeps its value, and the header says so."""

from __future__ import annotations

import re
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

# constants.toml entry -> node-file figure
FIGURES = {
    "EagerTorchOp": "torch_op",
    "BackwardFixed": "backward_fixed",
    "BackwardPerNode": "backward_per_node",
    "FreshAllocation": "fresh_allocation",
    "StreamTriad": "stream_triad_t1",
    "MatmulFp32": "matmul_fp32_t1",
}
CONSTANTS = Path(__file__).resolve().parents[1] / "catalog" / "constants.toml"
_HEADER = re.compile(r"# This machine .*?(?=\n\[MeasuredCpu\.)", re.S)


def _entry(name: str) -> re.Pattern[str]:
    return re.compile(rf'(^\[MeasuredCpu\.{name}\]\nvalue = ")([^"]*)(")', re.M)


def rewrite(text: str, node: dict[str, Any]) -> tuple[str, list[str]]:
    """``text`` of constants.toml with the MeasuredCpu values of ``node`` (a parsed node file); the entries kept."""
    measured, host = node.get("measured", {}), node.get("host", {})
    kept = []
    for name, figure in FIGURES.items():
        pattern = _entry(name)
        if not pattern.search(text):
            raise ValueError(f"constants.toml has no [MeasuredCpu.{name}] entry with a value line")
        if figure not in measured:
            kept.append(name)
            continue
        value = str(measured[figure]["value"])
        text = pattern.sub(lambda m: m.group(1) + value + m.group(3), text, count=1)  # noqa: B023 - used at once
    before = ", ".join(f"{x:g}" for x in host.get("load_average_before", [])[:1])
    after = ", ".join(f"{x:g}" for x in host.get("load_average_after", [])[:1])
    about = (f"This machine ({host.get('cpu_model', 'unknown CPU')}, {host.get('cores', '?')} cores), one thread, as "
             f"`make validate-here` last measured it ({host.get('date', 'undated')}; load average {before or '?'} "
             f"before and {after or '?'} after; verdict: {host.get('verdict', 'none')}). Written by "
             "symbolic/calibration/constants.py from benchmarks/this_machine_node.toml, which holds every figure "
             "with its spread, load and method. Used by the registry entries that describe this machine, never by "
             "the reference's.")
    if kept:
        about += f" Not measured in that run (kept from an earlier one): {', '.join(kept)}."
    lines = ["# " + line for line in textwrap.wrap(about, 108)]
    if not _HEADER.search(text):
        raise ValueError("constants.toml has no '# This machine' comment above the MeasuredCpu entries")
    text = _HEADER.sub(lambda _: "\n".join(lines), text, count=1)
    return text, kept


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m symbolic.calibration.constants NODE_FILE", file=sys.stderr)
        return 2
    node = tomllib.loads(Path(argv[0]).read_text())
    text, kept = rewrite(CONSTANTS.read_text(), node)
    CONSTANTS.write_text(text)
    print(f"wrote the MeasuredCpu figures of {argv[0]} into {CONSTANTS.name}"
          + (f" (kept, not measured: {', '.join(kept)})" if kept else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
