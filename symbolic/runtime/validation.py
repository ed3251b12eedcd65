"""Input checking at the boundary, driven by the domains the generator writes out.

Every scenario input is validated once, when an instance is built (or changed with
``variant``); the evaluators behind it are plain arithmetic and trust their inputs.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from decimal import Decimal
from typing import Any, NamedTuple

from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError
from symbolic.runtime.units import is_quantity, registry, unit


class _Required:
    """Marker default: the input has no default and must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


def _scalar_domain(spec: InputSpec | ListSpec) -> str:
    kind = "an integer" if spec.integer else "a number"
    if spec.minimum is None:
        bound = ""
    elif spec.integer and spec.strict:
        bound = f" ≥ {math.floor(spec.minimum) + 1}"
    else:
        bound = f" {'>' if spec.strict else '≥'} {_plain(spec.minimum)}"
    if spec.maximum is not None:
        bound += f"{' and' if bound else ''} {'<' if spec.strict_maximum else '≤'} {_plain(spec.maximum)}"
    unit_text = f" {spec.unit}" if spec.unit else ""
    return f"{kind}{bound}{unit_text}"


def _outside(spec: InputSpec | ListSpec, value: Any) -> bool:
    """True when ``value`` (a real number) lies outside the spec's bounds."""
    if spec.minimum is not None and (value < spec.minimum or (spec.strict and value == spec.minimum)):
        return True
    return spec.maximum is not None and (value > spec.maximum or (spec.strict_maximum and value == spec.maximum))


# The specs are NamedTuples rather than dataclasses: ``import generated`` must stay fast,
# and dataclasses pulls in ``inspect``.
class InputSpec(NamedTuple):
    """A numeric input: its unit ("" when dimensionless), domain and default.

    ``default`` is a number, ``REQUIRED``, or ``None`` (the evaluator derives the value
    from ``default_rule``, e.g. "equal to ops_per_block", or the input is optional).
    """

    name: str
    unit: str = ""
    integer: bool = False
    minimum: float | None = None
    strict: bool = False
    default: Any = REQUIRED
    default_rule: str = ""
    doc: str = ""
    maximum: float | None = None
    strict_maximum: bool = False

    @property
    def domain(self) -> str:
        """The domain in words, e.g. ``an integer ≥ 1`` or ``a number > 0 µs``."""
        return _scalar_domain(self)

    @property
    def scalar_domain(self) -> str:
        """The domain of one value."""
        return _scalar_domain(self)


class ListSpec(NamedTuple):
    """A list input: at least ``min_length`` entries, each in the domain the other fields give."""

    name: str
    unit: str = ""
    integer: bool = False
    minimum: float | None = None
    strict: bool = False
    default: Any = REQUIRED
    default_rule: str = ""
    doc: str = ""
    min_length: int = 1
    maximum: float | None = None
    strict_maximum: bool = False
    keyed: bool = False  # a dict of names to numbers; the evaluator gets the numbers in order
    unique: bool = False  # repeated entries collapse to the first
    aligned_to: str = ""  # a keyed input whose keys this one must cover, in whose order it is read

    @property
    def domain(self) -> str:
        if self.keyed:
            covers = f" with an entry for every key of '{self.aligned_to}'" if self.aligned_to else ""
            least = f"at least {self.min_length} " if self.min_length else ""
            return f"a dict of {least}names (str) to numbers{covers}, each {_scalar_domain(self)}"
        collapse = " (repeats collapse)" if self.unique else ""
        return f"a list of at least {self.min_length} entries{collapse}, each {_scalar_domain(self)}"

    @property
    def scalar_domain(self) -> str:
        """The domain of each entry."""
        return _scalar_domain(self)


Spec = InputSpec | ListSpec  # what a generated class lists in ``_specs``


class NodeSpec(NamedTuple):
    """A hardware node resolving to numeric arguments: ``fields`` maps what it resolves
    (``peak`` at the ``precision`` input's key, ``bandwidth``, ``capacity``) to the
    evaluator argument it fills. An ``optional`` node may be None (its arguments are None)."""

    name: str
    precision: str
    fields: dict[str, str]
    optional: bool = False
    doc: str = ""
    fleet: bool = False  # a fleet is accepted too (its accelerator's numbers, and their count)


class DatasetSpec(NamedTuple):
    """An optional dataset resolving to its training-example count (None when unknown)."""

    name: str
    training_examples: str | None
    doc: str = ""


class WorkloadSpec(NamedTuple):
    """A workload resolving to the numbers its fields and derived quantities give.

    ``types`` are the accepted record type names (subclasses included); ``fields`` maps a
    field or derived quantity to its evaluator argument; ``required`` lists those whose
    absence fails the construction (the others are None when the record leaves them unset).
    """

    name: str
    types: tuple[str, ...]
    fields: dict[str, str]
    required: tuple[str, ...] = ()
    units: dict[str, str] = {}  # evaluator argument -> the unit its number is in ("" when plain)
    doc: str = ""

class ChoiceSpec(NamedTuple):
    """A named option standing for a number: ``options`` maps each name to its number (in
    ``unit``), which fills the evaluator argument ``argument``."""

    name: str
    options: dict[str, Any]
    argument: str
    unit: str = ""
    default: Any = REQUIRED
    case_insensitive: bool = False
    doc: str = ""

    @property
    def domain(self) -> str:
        return f"one of {', '.join(self.options)}{' (any case)' if self.case_insensitive else ''}"

    def resolve(self, scenario: str, value: Any) -> tuple[str, Any]:
        """The option's name as given and its number; clear errors for anything else."""
        where = f"{scenario}: input '{self.name}'"
        if value is None or value is REQUIRED:
            if self.default is REQUIRED:
                raise MissingInputError(f"{where} was not given; expected {self.domain}")
            value = self.default
        if not isinstance(value, str):
            raise InputTypeError(f"{where} got {type(value).__name__} {_shown(value)}; expected {self.domain}")
        key = value.lower() if self.case_insensitive else value
        if key not in self.options:
            raise ScenarioInputError(f"{where} is {value!r}; expected {self.domain}")
        return value, self.options[key]


class ScenarioSpec(NamedTuple):
    """An input that is a scenario instance; its evaluator arguments become ours."""

    name: str
    scenario: type
    arguments: dict[str, str]  # inner argument -> our argument
    doc: str = ""
    outputs: dict[str, str] = {}  # inner output path -> our argument (read from the instance)  # noqa: RUF012
    optional: bool = False  # may be left out: then every argument it gives is None
    same: tuple[str, ...] = ()  # its inputs that must equal ours of the same name


class PrecisionSpec(NamedTuple):
    """The precision key looked up in one or more nodes' ``precision_flops``."""

    name: str
    default: Any = REQUIRED
    doc: str = ""


class Requirement(NamedTuple):
    """A condition between arguments: ``check(*values)`` must hold, none may be None but the
    ``tested`` ones (read only in a branch that tests them: a record's unset window); waived
    when the optional argument ``unless`` is given, checked only when the optional argument
    ``when`` is given."""

    names: tuple[str, ...]
    check: Callable[..., bool]
    message: str
    unless: str = ""
    when: str = ""
    tested: tuple[str, ...] = ()

    def absent(self, args: dict[str, Any]) -> list[str]:
        """The names the check needs that ``args`` leaves None."""
        return [name for name in self.names if args[name] is None and name not in self.tested]

    def applies(self, args: dict[str, Any]) -> bool:
        """Whether the condition is checked for these arguments (not waived, not out of scope)."""
        if self.unless and args.get(self.unless) is not None:
            return False
        return not self.when or args.get(self.when) is not None


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(number)


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


# The largest magnitude a double holds: every number an evaluator sees must fit in one, so a
# bigger int (exact in Python) is refused at the boundary rather than overflowing later.
FLOAT_MAX = sys.float_info.max
# Below the smallest normal double a float keeps fewer significant digits (5e-324 has one), so a
# nonzero input there would come out of the evaluator as a silently imprecise number: refused.
FLOAT_TINY = sys.float_info.min


def coerce_number(scenario: str, spec: Spec, value: Any, where: str = "") -> Any:
    """Return ``value`` as a plain ``int`` or ``float`` in ``spec.unit``, or raise naming the input.

    Whatever numeric type comes in (numpy scalars, ``Fraction``, ``Decimal``, Quantities of
    any of them) goes out as a builtin ``int`` or ``float`` inside double range, so the
    evaluators and the finiteness check of their outputs see one kind of number.
    """
    kind = type(value)
    if kind is int or kind is float:  # the common case, checked without ABCs or messages
        if not -FLOAT_MAX <= value <= FLOAT_MAX:  # also false for nan
            return _coerce_slowly(scenario, spec, value, where)
        if kind is float and -FLOAT_TINY < value < FLOAT_TINY and value:
            return _coerce_slowly(scenario, spec, value, where)
        if kind is float and spec.integer and not value.is_integer():
            return _coerce_slowly(scenario, spec, value, where)
        if (spec.minimum is not None or spec.maximum is not None) and _outside(spec, value):
            return _coerce_slowly(scenario, spec, value, where)
        if spec.integer and kind is float:
            return int(value)
        return value if value else value + 0  # -0.0 would carry its sign into outputs ("-0 B"): plain 0.0
    return _coerce_slowly(scenario, spec, value, where)


def _coerce_slowly(scenario: str, spec: Spec, value: Any, where: str) -> Any:
    def expected() -> str:  # the message is built only when there is an error to report
        return f"expected {spec.scalar_domain}"

    where = where or f"{scenario}: input '{spec.name}'"
    if value is None:
        if spec.default is None:
            return None
        # None does not mean "the default" (which a constructor applies to a left-out input): say what it is
        hint = "" if spec.default is REQUIRED else f" (None is not its default, which is {spec.default!r})"
        raise MissingInputError(f"{where} is None; {expected()}{hint}")
    shown = value
    value = _unwrapped(value)
    if is_quantity(value):
        value = _magnitude_in(where, spec, value)
    elif not _is_number(value):
        raise InputTypeError(f"{where} got {type(value).__name__} {_shown(value)}; {expected()}")
    value = _builtin_number(where, value, shown, expected())
    if spec.integer:
        if isinstance(value, float) and not value.is_integer():
            raise ScenarioInputError(f"{where} got {value}, which is not a whole number; {expected()}")
        value = int(value)
    if _outside(spec, value):
        raise ScenarioInputError(f"{where} got {value}; {expected()}")
    return value + 0  # -0.0 becomes 0.0


def _unwrapped(value: Any) -> Any:
    """A numpy 0-d array's one element (``np.array(64)`` is a number too)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _is_number(value: Any) -> bool:
    """A real number: not a bool, and not numpy's timedelta64 or datetime64 (registered as
    integers, but a duration in unknown units and a date: ``int()`` of one is a TypeError)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
        return False
    numpy = sys.modules.get("numpy")
    return numpy is None or not isinstance(value, (numpy.timedelta64, numpy.datetime64, numpy.bool_))


def _builtin_number(where: str, value: Any, shown: Any, expected: str) -> int | float:
    """``value`` as a builtin int (integral types) or float, finite and inside double range."""
    try:
        if isinstance(value, numbers.Integral):
            number: int | float = int(value)
        elif isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            number = int(value)
        else:
            number = float(value)
    except OverflowError:  # a Fraction or Decimal beyond double range
        number = 10**400
    except ValueError:  # a signalling NaN
        number = math.nan
    if isinstance(number, float) and not math.isfinite(number):
        raise ScenarioInputError(f"{where} got {_shown(shown)}; {expected}, finite")
    if not -FLOAT_MAX <= number <= FLOAT_MAX:
        raise ScenarioInputError(f"{where} got {_shown(shown)}, beyond the range of double precision "
                                 f"(±{FLOAT_MAX:.3g}); {expected}")
    if isinstance(number, float) and (number or value != 0) and abs(number) < FLOAT_TINY:  # also underflow to 0
        raise ScenarioInputError(f"{where} got {_shown(shown)}, below the normal range of double precision "
                                 f"({FLOAT_TINY:.3g}), where a float loses significant digits; {expected}")
    return number


def coerce_list(scenario: str, spec: ListSpec, value: Any) -> Any:
    """Return ``value`` as a list of numbers (a dict of them when keyed), each checked like a
    numeric input.

    Only ordered sequences are accepted (a list, a tuple, a range, a 1-d numpy array):
    a set has no order, and text or bytes are not lists of numbers.
    """
    where = f"{scenario}: input '{spec.name}'"
    if value is None:
        raise MissingInputError(f"{where} is None; expected {spec.domain}")
    if spec.keyed:
        if not isinstance(value, Mapping):
            raise InputTypeError(f"{where} got {type(value).__name__} {_shown(value)}; expected {spec.domain}")
        for key in value:
            if not isinstance(key, str):
                raise InputTypeError(f"{where} has the key {key!r} ({type(key).__name__}); expected {spec.domain}")
        if len(value) < spec.min_length:
            raise ScenarioInputError(f"{where} has {len(value)} entries; expected {spec.domain}")
        return {key: coerce_number(scenario, spec, item, f"{where} entry [{key!r}]") for key, item in value.items()}
    if not _is_sequence(value):
        raise InputTypeError(f"{where} got {type(value).__name__} {_shown(value)}; expected {spec.domain} "
                             "(a list, tuple or 1-d array)")
    items = list(value)
    if len(items) < spec.min_length:
        raise ScenarioInputError(f"{where} has {len(items)} entries {_shown(items)}; expected {spec.domain}")
    numbers_ = [coerce_number(scenario, spec, item, f"{where} entry [{position}]") for position, item in enumerate(items)]
    return list(dict.fromkeys(numbers_)) if spec.unique else numbers_


def list_argument(scenario: str, spec: ListSpec, value: Any, given: dict[str, Any]) -> list[Any]:
    """The numbers the evaluator reads from a coerced list input: a keyed input's values, in
    its own key order or in that of the input it is aligned to."""
    if not spec.keyed:
        return value
    if not spec.aligned_to:
        return list(value.values())
    order = given[spec.aligned_to]
    missing = [key for key in order if key not in value]
    if missing:
        raise ScenarioInputError(f"{scenario}: input '{spec.name}' has no entry for {missing[0]!r}; it must have an "
                                 f"entry for every key of '{spec.aligned_to}' ({', '.join(map(repr, order))})")
    extra = [key for key in value if key not in order]
    if extra:  # kept and never read: no output would show it
        raise ScenarioInputError(f"{scenario}: input '{spec.name}' has an entry for {extra[0]!r}, which no output "
                                 f"reads: its keys must be those of '{spec.aligned_to}' ({', '.join(map(repr, order))})")
    return [value[key] for key in order]


def _is_sequence(value: Any) -> bool:
    if isinstance(value, (str, bytes, bytearray, memoryview)) or is_quantity(value):
        return False
    if isinstance(value, Sequence):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray) and value.ndim == 1


@lru_cache(maxsize=4096)
def _factor(units: Any, target: str) -> Any:
    """The factor from ``units`` to ``target`` (cached: conversion is pint's slow path)."""
    return registry().Quantity(1, units).to(unit(target)).magnitude


def _magnitude_in(where: str, spec: Spec, value: Any) -> Any:
    magnitude = _unwrapped(value.magnitude)
    if not _is_number(magnitude):
        raise InputTypeError(f"{where} got a Quantity of {type(magnitude).__name__} {_shown(magnitude)}; "
                             f"expected a real number, {spec.scalar_domain}")
    factor = conversion_factor(where, spec, value)
    magnitude = _builtin_number(where, magnitude, value, f"expected {spec.scalar_domain}")
    if factor == 1:
        return magnitude
    if type(magnitude) is int and type(factor) is float and factor.is_integer():
        factor = int(factor)  # pint's factors are floats: 2**60 + 1 ktoken times 1000.0 would round
    try:
        converted = magnitude * factor
    except OverflowError:  # an int beyond double range times a float factor
        converted = math.inf
    if not -FLOAT_MAX <= converted <= FLOAT_MAX or (converted == 0 and magnitude != 0):  # 1e305 h in µs, 1e-308 fs in h
        side = "beyond" if converted else "below"
        raise ScenarioInputError(f"{where} got {_shown(value)}, which is {side} the range of double precision in "
                                 f"{spec.unit} (magnitudes {FLOAT_TINY:.3g} to {FLOAT_MAX:.3g}); expected {spec.scalar_domain}")
    return converted


def conversion_factor(where: str, spec: Spec, value: Any) -> Any:
    """The factor from the Quantity ``value``'s unit to ``spec.unit``; refuses another dimension."""
    try:
        if value._REGISTRY is not registry():
            raise ValueError("the Quantity comes from another unit registry; build it with generated.Q_")
        return _factor(value._units, spec.unit or "dimensionless")
    except Exception as error:  # pint's DimensionalityError, or the foreign registry above
        raise ScenarioInputError(
            f"{where} got {value:~P} ({value.dimensionality}); {_expected_unit(spec)}: {error}"
        ) from None


def _expected_unit(spec: Spec) -> str:
    if not spec.unit:
        return "expected a dimensionless number (a count or a ratio)"
    return f"expected a quantity of {unit(spec.unit).dimensionality} such as {spec.unit}"


def unknown_names(scenario: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Raise for the first name in ``given`` that is not in ``known``, with close matches."""
    valid = list(known)
    for name in given:
        if name not in valid:
            import difflib

            close = difflib.get_close_matches(name, valid, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ScenarioInputError(f"{scenario}: unknown input '{name}'{hint} (inputs: {', '.join(valid)})")
