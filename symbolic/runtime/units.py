"""The project's one pint registry, loaded from ``symbolic/units.txt`` on first use.

Importing this module does not import pint: the generated evaluators work on plain
numbers, and pint is only needed when a person asks for a Quantity.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

UNITS_FILE = Path(__file__).resolve().parent.parent / "units.txt"


@lru_cache(maxsize=None)
def registry() -> Any:
    """The shared ``pint.UnitRegistry`` built from the project's units file."""
    import pint

    ureg = pint.UnitRegistry(str(UNITS_FILE), cache_folder=None)
    ureg.formatter.default_format = "~P"
    return ureg


@lru_cache(maxsize=None)
def unit(spelling: str) -> Any:
    """The pint Unit for ``spelling`` (cached: parsing is the slow part of a Quantity)."""
    return registry().Unit(spelling)


def Q_(value: Any, units: str | None = None) -> Any:  # noqa: N802 (pint's conventional name)
    """Build a Quantity in the project's registry: ``Q_(67, "TFLOP/s")`` or ``Q_("67 TFLOP/s")``."""
    if units is None:
        return registry().Quantity(value)
    return registry().Quantity(value, unit(units))


def is_quantity(value: Any) -> bool:
    """True for a pint Quantity, without importing pint when nobody else has."""
    pint = sys.modules.get("pint")
    return pint is not None and isinstance(value, pint.Quantity)
