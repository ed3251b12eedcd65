"""Every registry instance's evaluator outputs and exact gradients, one ``repr`` line each.

A change to how the generator writes code (formatting, comments) must leave every value
byte-identical: run this before and after, and compare (``diff``, or the digest it ends with).
``.venv/bin/python benchmarks/registry_values.py > before.txt``
"""

from __future__ import annotations

import hashlib
import sys

from generated import Scenarios


def lines() -> list[str]:
    found = []
    for key, scenario in Scenarios.items():
        kind = type(scenario)
        found.append(f"{key} evaluate {kind._evaluate(**scenario._args)!r}")
        found.append(f"{key} gradient {kind._gradient(**scenario._args)!r}")
    return found


if __name__ == "__main__":
    text = "\n".join(lines()) + "\n"
    sys.stdout.write(text)
    sys.stdout.write(f"# {len(text.splitlines())} lines, sha256 {hashlib.sha256(text.encode()).hexdigest()}\n")
