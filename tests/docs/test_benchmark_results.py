"""The committed benchmark results: no absolute path of the machine they ran on."""

from __future__ import annotations

import json
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results.json"


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_results_record_no_absolute_path():
    absolute = re.compile(r"(^|[\s'\"(=])(/[A-Za-z0-9_.-]+/|[A-Za-z]:\\|~/)")
    found = [text for text in _strings(json.loads(RESULTS.read_text(encoding="utf-8"))) if absolute.search(text)]
    assert found == []
