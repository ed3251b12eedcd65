"""Catalog records at runtime (workloads, ...): validated on construction, immutable after.

A record type is generated from its schema (``symbolic/catalog/``): ``_fields`` (unit,
count type, domain, required), ``_fallbacks`` (what an unset field stands for),
``_checks`` (conditions between fields) and one generated method per derived quantity.
Catalog entries are built with ``from_catalog`` from values the generator already
validated; a person's ``TransformerWorkload(name=..., layers=...)`` is validated here
with the same rules, and errors name the record, the field, the value and the domain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError, a_or_an
from symbolic.runtime.units import Q_, is_quantity
from symbolic.runtime.validation import InputSpec, coerce_number


class FieldSpec(NamedTuple):
    """A stored field: ``kind`` is "number", "int" or "str"; ``unit`` "" when plain."""

    name: str
    unit: str = ""
    kind: str = "number"  # "number" | "int" | "str" | "choice" | "record"
    minimum: float | None = None
    strict: bool = False
    required: bool = False
    doc: str = ""
    choices: dict[str, int] | None = None  # a choice's cases and the number each stands for
    record: str = ""  # a record field's type name
    default: Any = None  # the published value when unset (e.g. a node's dispatch tax)
    maximum: float | None = None  # inclusive upper bound (a year of publication)

    def number_spec(self, name: str | None = None) -> InputSpec:
        return InputSpec(name or self.name, self.unit, self.kind == "int", self.minimum, self.strict,
                         maximum=self.maximum)


class Check(NamedTuple):
    """A condition between fields, checked where they are all set (waived when ``unless`` is set);
    or a ``rule`` on which are set (``holds`` is then None): "together" (all or none), "apart"
    (not all), "implies" (the first ``split`` names all set: the rest must be set too)."""

    names: tuple[str, ...]
    holds: Callable[..., bool] | None
    message: str
    unless: str = ""
    rule: str = ""
    split: int = 0


class CatalogRecord:
    """Base of the generated record types: fields by attribute, immutable, compared by value."""

    __slots__ = ("path", "_values", "_published")

    _fields: ClassVar[tuple[FieldSpec, ...]] = ()
    _fallbacks: ClassVar[dict[str, Callable[[Any], Any]]] = {}
    _links: ClassVar[dict[str, tuple[str, str]]] = {}  # name -> (record field, its field)
    _checks: ClassVar[tuple[Check, ...]] = ()
    _widths: ClassVar[dict[str, float | int]] = {}  # storage width in bytes per precision name
    _namespace: ClassVar[str] = ""  # "Models" for workloads: how catalog entries are named

    def __init__(self, **fields: Any) -> None:
        cls = type(self)
        specs = {spec.name: spec for spec in cls._fields}
        title = f"{cls.__name__} {fields.get('name')!r}" if isinstance(fields.get("name"), str) else cls.__name__
        for name in fields:
            if name not in specs:
                import difflib

                close = difflib.get_close_matches(name, list(specs), n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise ScenarioInputError(f"{title}: unknown field '{name}'{hint} (fields of {a_or_an(cls.__name__)}: "
                                         f"{', '.join(specs)})")
        values: dict[str, Any] = {}
        shown: dict[str, Any] = {}
        for spec in cls._fields:
            raw = fields.get(spec.name)
            if raw is None:
                if spec.required and spec.name not in cls._fallbacks:
                    raise MissingInputError(f"{title}: required field '{spec.name}' was not given "
                                            f"({_domain(spec)})")
                continue
            where = f"{title}: field '{spec.name}'"
            if spec.kind in ("str", "choice", "record"):
                values[spec.name] = shown[spec.name] = _checked_value(where, spec, raw)
                continue
            values[spec.name] = coerce_number(title, spec.number_spec(), raw, where)
            shown[spec.name] = raw if is_quantity(raw) else values[spec.name]
        object.__setattr__(self, "path", "")
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_published", shown)
        self._check(title)
        for spec in cls._fields:  # a required field left unset must follow from the others (its fallback)
            if spec.required and spec.name not in values:
                try:
                    cls._fallbacks[spec.name](self)
                except MissingInputError as error:
                    raise MissingInputError(f"{title}: required field '{spec.name}' was not given, nor the fields it "
                                            f"is counted from ({error})") from None

    @classmethod
    def from_catalog(cls, path: str, values: dict[str, Any], published: dict[str, Any]) -> Any:
        """A catalog entry from values the generator validated; builds no Quantity."""
        record = object.__new__(cls)
        object.__setattr__(record, "path", path)
        object.__setattr__(record, "_values", values)
        object.__setattr__(record, "_published", published)
        return record

    def _check(self, title: str) -> None:
        for check in type(self)._checks:
            found = [self._values.get(name) for name in check.names]
            if check.rule:
                given = [value is not None for value in found]
                implied = check.rule == "implies" and all(given[:check.split]) and not all(given[check.split:])
                if (check.rule == "together" and len(set(given)) == 2) or (check.rule == "apart" and all(given)) or implied:
                    shown = ", ".join(f"{n}={'unset' if v is None else repr(v)}" for n, v in zip(check.names, found, strict=True))
                    raise ScenarioInputError(f"{title}: {check.message}; got {shown}")
                continue
            if check.unless and self._values.get(check.unless) is not None:
                continue
            assert check.holds is not None
            if None not in found and not check.holds(*found):
                shown = ", ".join(f"{n}={v!r}" for n, v in zip(check.names, found, strict=True))
                raise ScenarioInputError(f"{title}: {check.message}; got {shown}")

    # -- reading fields ------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        cls = type(self)
        spec = next((s for s in cls._fields if s.name == name), None)
        if spec is None or name.startswith("_"):
            raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")
        value = self._published.get(name, spec.default)
        if value is None and name in cls._fallbacks:  # what the formulas read: ``head_dim`` unset is ⌊d/a⌋
            value = self._fallback(name)
            if spec.choices and value is not None:  # a choice's fallback reads as its case, not its number
                value = next((key for key, number in spec.choices.items() if number == value), value)
        if value is None or not spec.unit:
            return value
        if isinstance(value, str):
            return Q_(value)
        return value if is_quantity(value) else Q_(value, spec.unit)

    def resolved(self, name: str) -> Any:
        """The number a scenario reads: a field in its declared unit (its fallback when unset),
        or a derived quantity without arguments; raises naming the field when unset."""
        value = self._values.get(name)
        if value is not None:
            spec = next(s for s in type(self)._fields if s.name == name)
            return spec.choices[value] if spec.choices else value
        link = type(self)._links.get(name)
        if link is not None:
            return self.resolved(link[0]).resolved(link[1])
        fallback = type(self)._fallbacks.get(name)
        if fallback is not None:
            return fallback(self)
        calculate = getattr(type(self), f"_calc_{name}", None)
        if calculate is not None:
            return calculate(self)
        if any(spec.name == name for spec in type(self)._fields):
            raise MissingInputError(f"{self._label()} has no {name} (unset), which is needed here")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _fallback(self, name: str) -> Any:
        """An unset field's fallback, or None where the fields it reads are unset too."""
        try:
            return type(self)._fallbacks[name](self)
        except MissingInputError:
            return None

    def has(self, *names: str) -> bool:
        """True when every field in ``names`` is set or has a fallback that can be resolved."""
        try:
            for name in names:
                self.resolved(name)
        except (MissingInputError, AttributeError):
            return False
        return True

    def width(self, precision: Any, name: str = "precision") -> Any:
        """Bytes per value: a precision name (case-insensitive), a data Quantity, or a number of bytes."""
        if isinstance(precision, str):
            try:
                return type(self)._widths[precision.lower()]
            except KeyError:
                raise ScenarioInputError(
                    f"{self._label()}: {name} {precision!r} is not a storage precision; precisions: "
                    f"{', '.join(type(self)._widths)} (or a data quantity such as Q_(2, 'byte'))") from None
        spec = InputSpec(name, "byte", minimum=0, strict=True)
        return coerce_number(self._label(), spec, precision, f"{self._label()}: {name}")

    def argument(self, name: str, value: Any, *, integer: bool = True, minimum: float = 0, strict: bool = False) -> Any:
        spec = InputSpec(name, "", integer, minimum, strict)
        return coerce_number(self._label(), spec, value, f"{self._label()}: {name}")

    @property
    def registry_path(self) -> str:
        """How people name this entry (``Models.Language.GPT3``); "" for a custom record."""
        if not self.path or self.path.startswith(("Hardware.", "Systems.", "Models.")):
            return self.path
        return f"{type(self)._namespace}.{self.path}"

    def _label(self) -> str:
        return self.registry_path or f"{type(self).__name__} {self._values.get('name')!r}"

    # -- immutability, equality, pickling ------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._label()} is immutable; build a new {type(self).__name__} with the changed field")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self._label()} is immutable")

    def fields(self) -> dict[str, Any]:
        """Every set field, as ``__getattr__`` returns it."""
        return {spec.name: getattr(self, spec.name) for spec in type(self)._fields if spec.name in self._values}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values == self._values  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._values.items()))))

    def __reduce__(self) -> tuple[Any, ...]:
        lookup = catalog_entry()
        if self.registry_path and lookup is not None:  # unpickles as the same catalog entry
            return (lookup, (self.registry_path,))
        return (_rebuild, (type(self), self.path, dict(self._values), dict(self._published)))

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self

    def __repr__(self) -> str:
        if self.path:
            return f"{type(self).__name__}({self.registry_path})"
        shown = ", ".join(f"{k}={v!r}" for k, v in self._published.items())
        return f"{type(self).__name__}({shown})"


# A catalog entry unpickles as the same entry (as an enum member does): it is pickled as a call
# of the generated catalog's ``entry`` with its registry path. ``generated/catalog.py`` installs
# that function here when it is imported (the runtime does not import the package generated
# from it); an entry built without it (the generator's own catalog) pickles by value.
_CATALOG: dict[str, Callable[[str], Any]] = {}


def use_catalog(entry: Callable[[str], Any]) -> None:
    """Install the lookup of a catalog entry by registry path (``Systems.Clusters.Training_1K``)."""
    _CATALOG["entry"] = entry


def catalog_entry() -> Callable[[str], Any] | None:
    """The installed lookup of catalog entries by path, or None before ``generated.catalog`` is imported."""
    return _CATALOG.get("entry")


def _rebuild(cls: type[CatalogRecord], path: str, values: dict[str, Any], published: dict[str, Any]) -> Any:
    return cls.from_catalog(path, values, published)


def _checked_value(where: str, spec: FieldSpec, raw: Any) -> Any:
    """A text, choice or record field's value, or a typed error saying what was expected."""
    if spec.kind == "record":
        if spec.record not in {kind.__name__ for kind in type(raw).__mro__}:
            raise InputTypeError(f"{where} got {raw!r}; expected a {spec.record}")
        return raw
    if not isinstance(raw, str) or not raw:
        raise InputTypeError(f"{where} got {raw!r}; expected {_domain(spec)}")
    if spec.choices is not None and raw not in spec.choices:
        raise ScenarioInputError(f"{where} got {raw!r}; expected {_domain(spec)}")
    return raw


def _domain(spec: FieldSpec) -> str:
    if spec.kind == "choice" and spec.choices is not None:
        return "one of " + ", ".join(repr(key) for key in spec.choices)
    if spec.kind == "record":
        return a_or_an(str(spec.record))
    if spec.kind == "str":
        return "a non-empty string"
    return spec.number_spec().domain
