"""One module per scenario, in family folders: ``symbolic/scenarios/<family>/<snake_name>.py``.

How it works
------------
Adding a scenario means adding one module to its family's folder; ``discover.py`` finds it
by a sorted scan (see ``symbolic/scenarios/README.md``), imports it and collects its
``Scenario`` class and its registry ``Instance``s. The families are a closed set: a
scenario's category is its folder, and a folder not listed here is an error. A scenario
module imports only ``symbolic.model`` (the whole declaration language, sympy functions
included), ``symbolic.catalog`` and the scenarios it contains (``tests/package/test_layers.py``).
"""

from __future__ import annotations

from pathlib import Path

# family folder -> the heading of its section in the docs index, in the index's order
FAMILIES: dict[str, str] = {
    "framework": "Framework execution",
    "training_memory": "Training memory",
    "distributed": "Distributed training",
    "inference": "Inference",
    "runs": "Runs and performance",
}

HERE = Path(__file__).resolve().parent


def module_name(snake_name: str) -> str:
    """The importable name of a scenario module, e.g. ``symbolic.scenarios.framework.dense_network``."""
    for family in FAMILIES:
        if (HERE / family / f"{snake_name}.py").is_file():
            return f"{__name__}.{family}.{snake_name}"
    raise LookupError(f"no scenario module {snake_name!r} in any family folder of {HERE}")
