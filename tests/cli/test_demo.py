"""Issue 42 item 4: ``make demo`` answers five questions in half a screen each, with the command that
asked them, and points to the site; the README's first screen shows the same five."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo() -> str:
    out = subprocess.run([sys.executable, "-m", "symbolic.cli.demo"], cwd=ROOT, capture_output=True, text=True,
                         check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def sections(text: str) -> list[list[str]]:
    return [block.splitlines() for block in text.strip().split("\n\n")]


def test_five_questions_in_half_a_screen_each(demo: str) -> None:
    blocks = sections(demo)
    questions, footer = blocks[:5], blocks[5:]
    assert [block[0].split(".")[0] for block in questions] == ["1", "2", "3", "4", "5"]
    for block in questions:
        assert block[1].startswith("$ mlsysym ")  # the command that asked it
        assert len(block) <= 20, block[0]  # heading, command, answer, note: half a screen
    assert len(demo.splitlines()) < 100  # was 3,262 lines
    assert footer and "make docs" in footer[-1][0] and "build/site/index.html" in footer[-1][0]


def test_the_answers_are_the_commands_own_output(demo: str) -> None:
    # 70.6 GB of FP8 weights + 8 x 2,048 tokens x 163,840 byte = 2.684 GB of cache = 73.28 GB, inside 85.9 GB
    assert "result.total_memory_required  73.2844 GB" in demo and re.search(r"^fits\s+True$", demo, re.M)
    assert "result.memory_time   21.0746 ms" in demo and "result.bottleneck    Memory" in demo
    assert re.search(r"^1\s+8\s+35\s+14\s+1\s+4\.47707$", demo, re.M)  # the best 530B layout
    assert "weights at bf16                             93.4056 GB" in demo
    assert re.search(r"^prefill\s+time to first token\s+\d+\s+[\d.]+%\s+[\d.]+%$", demo, re.M)


def test_the_readme_first_screen_shows_the_five(demo: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(readme.splitlines()[:40])
    commands = [line for line in first_screen.splitlines() if line.startswith("mlsysym ")]
    asked = [line.removeprefix("$ ") for line in demo.splitlines() if line.startswith("$ mlsysym ")]
    assert commands == asked
    # the README's one-line answers are the demo's numbers, rounded
    for short, full in (("73.3 GB", "73.2844 GB"), ("21.07 ms", "21.0746 ms"), ("4.48 s", "4.47707"),
                        ("93.4 GB", "93.4056 GB")):
        assert short in first_screen and full in demo
