"""The project's one pint registry, loaded from ``symbolic/units.txt`` on first use.

Importing this module does not import pint: the generated evaluators work on plain
numbers, and pint is only needed when a person asks for a Quantity.
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading
from functools import lru_cache
from typing import Any

from symbolic.runtime.errors import ScenarioInputError

UNITS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "units.txt")


_BUILT: list[Any] = []  # the registry, once built (a list: no module-level global statement)
_REGISTRY_LOCK = threading.Lock()


def registry() -> Any:
    """The shared ``pint.UnitRegistry`` built from the project's units file.

    Built once per process, under a lock: threads that ask at the same time get the same
    registry (Quantities of two registries cannot be combined, and the caches below would
    hold units of the loser for good).
    """
    if not _BUILT:
        with _REGISTRY_LOCK:
            if not _BUILT:
                _BUILT.append(_build_registry())
    return _BUILT[0]


def _build_registry() -> Any:
    pint = _import_pint()
    ureg: Any = pint.UnitRegistry(UNITS_FILE, cache_folder=None)
    ureg.formatter.default_format = "~P"
    # pint pickles a Quantity by looking its units up in pint's application registry, which
    # knows no flop or byte dimension; ours are rebuilt in this registry, in any process.
    ureg.Quantity.__reduce__ = _reduce_quantity
    ureg.Unit.__reduce__ = _reduce_unit
    return ureg


def _import_pint() -> Any:
    """pint, imported with dask hidden from it: where dask is installed (the ``dask`` extra of
    the search) pint imports ``dask.base`` on import, a third of a second and jinja2 on every
    first use of a Quantity. Quantities here never wrap dask arrays; a search on Dask imports
    dask itself, after this. ``importlib.util.find_spec`` reports a module whose
    ``sys.modules`` entry is None as absent, which is how pint looks."""
    if "pint" in sys.modules or "dask" in sys.modules:
        import pint

        return pint
    sys.modules["dask"] = None  # type: ignore[assignment]
    try:
        import pint
    finally:
        if sys.modules.get("dask", False) is None:
            del sys.modules["dask"]
    return pint


def _reduce_quantity(quantity: Any) -> tuple[Any, ...]:
    return _quantity_from_pickle, (quantity.magnitude, tuple(quantity._units.items()))


def _reduce_unit(unit_: Any) -> tuple[Any, ...]:
    return _unit_from_pickle, (tuple(unit_._units.items()),)


def _quantity_from_pickle(magnitude: Any, units: tuple[tuple[str, Any], ...]) -> Any:
    from pint.util import UnitsContainer

    return registry().Quantity(magnitude, UnitsContainer(dict(units)))


def _unit_from_pickle(units: tuple[tuple[str, Any], ...]) -> Any:
    from pint.util import UnitsContainer

    return registry().Unit(UnitsContainer(dict(units)))


@lru_cache(maxsize=None)
def unit(spelling: str) -> Any:
    """The pint Unit for ``spelling`` (cached: parsing is the slow part of a Quantity)."""
    return registry().Unit(spelling)


def Q_(value: Any, units: str | None = None) -> Any:  # noqa: N802 (pint's conventional name)
    """Build a Quantity in the project's registry: ``Q_(67, "TFLOP/s")`` or ``Q_("67 TFLOP/s")``."""
    if units is None:
        return registry().Quantity(value)
    return registry().Quantity(value, unit(units))


@lru_cache(maxsize=None)
def _prototype(spelling: str) -> tuple[type, Any] | None:
    """The Quantity class and units container for ``spelling``, if pint's layout is the known one."""
    sample = registry().Quantity(1.0, unit(spelling))
    if set(vars(sample)) != {"_magnitude", "_units"}:
        return None  # another pint version: always take the public constructor
    return type(sample), sample._units


def quantity(value: Any, spelling: str) -> Any:
    """``Q_(value, spelling)`` for a plain int or float output, about 15x faster.

    pint's constructor re-checks the magnitude and the unit on every call; the outputs
    of a generated evaluator are already plain numbers in a known unit, so the Quantity
    is assembled directly (tests/runtime/test_units.py checks it behaves as pint's own).
    """
    layout = _prototype(spelling)
    if layout is None or type(value) not in (int, float):
        return Q_(value, spelling)
    cls, units = layout
    made: Any = object.__new__(cls)
    made._magnitude = value
    made._units = units
    return made


def is_quantity(value: Any) -> bool:
    """True for a pint Quantity, without importing pint when nobody else has."""
    pint = sys.modules.get("pint")
    return pint is not None and isinstance(value, pint.Quantity)


@lru_cache(maxsize=None)
def label(spelling: str) -> str:
    """How a unit is shown everywhere (Quantities, CLI tables, JSON, CSV headers): pint's
    compact form, so ``byte`` reads ``B`` in all of them; "" when dimensionless."""
    if not spelling:
        return ""
    units = unit(spelling)
    return "" if units.dimensionless and units == unit("dimensionless") else f"{units:~P}"


# One number and an optional unit, nothing else: pint's expression parser would read
# "4,8" as 48, "32 64" as 2048 and evaluate "9**9**9" (and hang). A unit is names joined by
# "/", "*" or spaces, each with an optional small integer power; pint parses only that part.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?")
_UNIT_NAME = r"[^\W\d]+(?:\s*(?:\*\*|\^)\s*-?\d)?"
_UNIT = re.compile(rf"(?:(?:1\s*)?/\s*)?{_UNIT_NAME}(?:\s*[/*·]?\s*{_UNIT_NAME})*")  # a rate may be "/s" or "1/s"
_INTEGER = re.compile(r"[+-]?\d+")


def parse_quantity(text: str, what: str = "value") -> Any:
    """``32`` -> 32, ``1e7`` -> 1e7, ``10us`` / ``3.35 TB/s`` / ``80 GiB`` -> a Quantity: one
    number with an optional unit, read strictly (the command line and the Python API read
    values with this one function). Anything else is a ``ScenarioInputError`` naming ``what``."""
    text = text.strip()
    match = _NUMBER.match(text)
    unit_text = text[match.end():].strip() if match else ""
    if match is None or (unit_text and not _UNIT.fullmatch(unit_text)):
        raise ScenarioInputError(f"{what}: cannot read {text!r} as one number with an optional unit "
                                 "(e.g. 64, 2.5e-3, 10us, '3.35 TB/s')")
    digits = match.group()
    try:
        value: int | float = int(digits) if _INTEGER.fullmatch(digits) else float(digits)
    except ValueError as error:  # more digits than Python converts
        raise ScenarioInputError(f"{what}: cannot read {text!r}: {error}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioInputError(f"{what}: {text!r} is beyond the range of double precision")
    if value == 0 and re.search(r"[1-9]", digits.partition("e")[0].partition("E")[0]):  # 1e-400 underflows to 0
        raise ScenarioInputError(f"{what}: {text!r} is below the range of double precision (it would be read as 0)")
    if not unit_text:
        return value
    if unit_text.startswith("/"):  # "1000/s": per second
        unit_text = "1" + unit_text
    try:
        return Q_(value, unit_text)
    except Exception as error:  # pint's undefined-unit and parse errors are many types
        raise ScenarioInputError(f"{what}: {unit_text!r} in {text!r} is not a known unit ({error})") from None
