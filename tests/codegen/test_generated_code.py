"""The generated Python reads as code a reviewer checks by eye: formatted, and every unit factor
folded into a statement commented with where it came from (symbolic.codegen.formatting,
_Folder.note in symbolic.codegen.pyprint)."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from symbolic.codegen import formatting

GENERATED = Path(__file__).resolve().parents[2] / "generated"


def _line(module: str, start: str) -> str:
    """The first statement of ``generated/<module>.py`` that starts with ``start``, its lines joined
    (the formatter may break one over several) with its comment."""
    text = (GENERATED / f"{module}.py").read_text(encoding="utf-8")
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Assign) and lines[node.lineno - 1].strip().startswith(start):
            return " ".join(line.strip() for line in lines[node.lineno - 1:node.end_lineno])
    raise AssertionError(f"no {start!r} in {module}")


def test_every_generated_python_file_is_formatted():
    run = subprocess.run([formatting._ruff(), "format", "--check", "--isolated", f"--line-length={formatting.LINE_LENGTH}",
                          f"--target-version={formatting.TARGET}", *map(str, sorted(GENERATED.rglob("*.py")))],
                         capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_formatting_changes_layout_only():
    files = {"generated/x.py": "x=[1,2 ,3]\ny = {'a':1e-12}\n", "generated/docs/x.md": "x=1\n"}
    assert formatting.formatted(files) == {"generated/x.py": 'x = [1, 2, 3]\ny = {"a": 1e-12}\n',
                                           "generated/docs/x.md": "x=1\n"}  # Markdown untouched


def test_a_folded_factor_says_where_it_came_from():
    # 1 TFLOP/s = 10^12 flop/s: the displayed peak is the node's flop/s divided by 10^12
    assert _line("mlp_training_step", "peak_rate =") == \
        "peak_rate = hardware_peak / 1000000000000  # 1e-12: flop/s -> TFLOP/s"
    # flop / (flop/s) is seconds, shown in µs (10^6 per s); peak_rate is read back in flop/s
    assert _line("mlp_training_step", "compute_time =") == (
        "compute_time = 1000000 * total_flops / hardware_peak  # 1e12: TFLOP/s -> flop/s (peak_rate); 1e6: s -> µs")
    # MB over GB/s: 10^6 B / (10^9 B/s) = 1/1000 s, the 1000 in the divisor
    ring = _line("all_reduce_schedule", "result__ring_byte_time =")
    assert "/ (1000 * bandwidth)" in ring and ring.endswith("# 1e9: GB/s -> B/s (bandwidth); 1e6: MB -> B (message)")


def test_no_comment_where_the_scales_cancel():
    # µs + µs in µs: no factor is folded, so nothing to explain
    assert _line("mlp_training_step", "host__device_time =") == "host__device_time = compute_time + memory_time"
