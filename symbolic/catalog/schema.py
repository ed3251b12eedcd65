"""Record types of the catalog, declared once: fields with units and domains, derived quantities.

A record type is a class whose body declares ``Field``s (a unit or a count type, a domain,
whether it is required, an optional ``fallback`` used when it is unset), ``Param``s (the
arguments of derived methods, such as a storage width) and ``Derived`` quantities (sympy
expressions over the fields, parameters and derived quantities above them). Subclasses
inherit and may override. The generator validates every TOML entry against its type
(naming file, entry and field), checks the dimension of every derived quantity against
its unit, and prints each derived quantity once, as Python, into the runtime type.

    class TransformerWorkload(Workload):
        layers = Field(integer=True, positive=True, required=True, doc="Blocks L.")
        kv_values_per_token = Derived(2 * layers * kv_heads * head_dim, doc="...")
"""

from __future__ import annotations

from typing import Any, ClassVar

import sympy

from symbolic.runtime.errors import DeclarationError, a_or_an

_KINDS = ("number", "int", "str")

# -- unit constants inside expressions: shared by record types and scenario declarations --
UNIT_SYMBOLS: dict[sympy.Symbol, str] = {}


def unit_constant(spelling: str) -> sympy.Symbol:
    """A unit as a factor in an expression, e.g. ``2*b*i*h*flop``."""
    symbol = sympy.Symbol(f"[{spelling}]", positive=True)
    UNIT_SYMBOLS[symbol] = spelling
    return symbol


flop = unit_constant("flop")


class Field:
    """A stored field: ``unit`` ("" = a plain number), ``integer`` or ``text``, a domain,
    ``required`` or optional (unset = None), and an optional ``fallback`` expression of the
    other fields that stands for it when it is unset (``kv_heads`` unset means ``heads``)."""

    def __init__(self, unit: str = "", *, integer: bool = False, text: bool = False, positive: bool = False,
                 nonnegative: bool = False, required: bool = False, fallback: Any = None, symbol: str = "",
                 choices: dict[str, int] | None = None, record: str = "", doc: str = "",
                 bounds: tuple[float, float] | None = None) -> None:
        self.unit = unit
        # ``bounds``: an inclusive range of a number, in the field's unit (a year of publication: 1950..2100)
        if bounds is not None and (len(bounds) != 2 or not bounds[0] < bounds[1] or positive or nonnegative):
            raise DeclarationError(f"Field: bounds must be (low, high) with low < high, instead of positive or "
                                   f"nonnegative; got {bounds!r}")
        self.bounds = bounds
        # ``choices``: a text field naming one of a few cases, each standing for a number in expressions
        # (a link's direction: per_direction 1, bidirectional_total 2). ``record``: another record type.
        self.choices = choices
        self.record = record
        self.kind = "record" if record else ("choice" if choices else ("str" if text else ("int" if integer else "number")))
        self.positive = positive
        self.nonnegative = nonnegative
        self.required = required
        self.fallback = None if fallback is None else sympy.sympify(fallback)
        self.latex = symbol
        self.doc = doc
        self.name = ""
        self.symbol: sympy.Symbol | None = None

    def bind(self, name: str) -> sympy.Symbol:
        self.name = name
        assumptions: dict[str, bool] = {"integer": True} if self.kind == "int" else {"real": True}
        if self.positive or (self.bounds is not None and self.bounds[0] > 0):
            assumptions["positive"] = True
        elif self.nonnegative:
            assumptions["nonnegative"] = True
        self.symbol = sympy.Symbol(name, **assumptions)
        return self.symbol

    @property
    def minimum(self) -> float | None:
        if self.bounds is not None:
            return self.bounds[0]
        return 0 if (self.positive or self.nonnegative) else None

    @property
    def maximum(self) -> float | None:
        return None if self.bounds is None else self.bounds[1]

    @property
    def domain(self) -> str:
        if self.kind == "str":
            return "a non-empty string"
        if self.kind == "choice":
            assert self.choices is not None
            return "one of " + ", ".join(f"{key!r} (= {number})" for key, number in self.choices.items())
        if self.kind == "record":
            return a_or_an(str(self.record))
        kind = "an integer" if self.kind == "int" else "a number"
        if self.bounds is not None:
            return f"{kind} ≥ {self.bounds[0]} and ≤ {self.bounds[1]}{' ' + self.unit if self.unit else ''}"
        bound = " ≥ 1" if self.positive and self.kind == "int" else (" > 0" if self.positive else
                                                                     (" ≥ 0" if self.nonnegative else ""))
        return f"{kind}{bound}{' ' + self.unit if self.unit else ''}"


class Linked(Field):
    """A number read through a record field: ``Linked("node", "accelerators_per_node")`` is the
    node's ``accelerators_per_node``, usable in expressions like a field of this record."""

    def __init__(self, via: str, field: str, unit: str = "", **kwargs: Any) -> None:
        super().__init__(unit, **kwargs)
        self.via = via
        self.field = field


class Param(Field):
    """An argument of derived methods (a storage width, a sequence length), with an optional default."""

    def __init__(self, unit: str = "", *, default: Any = None, **kwargs: Any) -> None:
        super().__init__(unit, **kwargs)
        self.default = default


class Derived:
    """A quantity computed from the fields: ``expr`` in ``unit``. ``otherwise`` is an
    alternative expression used when a field ``expr`` reads is unset (and has no fallback)."""

    def __init__(self, expr: Any, unit: str = "", *, otherwise: Any = None, symbol: str = "", doc: str = "") -> None:
        self.expr = sympy.sympify(expr)
        self.unit = unit
        self.otherwise = None if otherwise is None else sympy.sympify(otherwise)
        self.latex = symbol
        self.doc = doc
        self.name = ""
        self.symbol: sympy.Symbol | None = None
        self.params: tuple[str, ...] = ()  # the Param names it reads (after inlining), set by the type


class Check:
    """A condition between fields, checked on every record where its fields are set; ``unless=f``
    waives it when the field ``f`` is set (``hidden_dim`` a multiple of ``heads`` unless ``head_dim``
    says the head width)."""

    def __init__(self, condition: sympy.Basic, message: str, *, unless: sympy.Symbol | None = None) -> None:
        if not isinstance(condition, sympy.core.relational.Relational):
            raise DeclarationError(f"Check: expected a comparison such as a <= b, got {condition!r}")
        if unless is not None and (not isinstance(unless, sympy.Symbol) or unless in condition.free_symbols):
            raise DeclarationError(f"Check: unless must be a field the condition does not read, got {unless!r}")
        self.condition = condition
        self.message = message
        self.unless = unless


class Together:
    """Fields that mean something only as a set: a record sets all of them or none (multi-head
    latent attention's latent width and rotary key width)."""

    rule = "together"

    def __init__(self, *fields: sympy.Symbol, message: str) -> None:
        if len(fields) < 2 or not all(isinstance(f, sympy.Symbol) for f in fields):
            raise DeclarationError(f"{type(self).__name__}: expected at least two fields, got {fields!r}")
        self.fields = fields
        self.message = message

    def broken(self, is_set: dict[str, bool]) -> bool:
        """True when some of the fields are set and others not."""
        return len({is_set[str(f)] for f in self.fields}) == 2


class Apart(Together):
    """Fields a record may not set together: one describes what the other's formula does not
    cover (an architecture count of standard attention beside multi-head latent attention)."""

    rule = "apart"

    def broken(self, is_set: dict[str, bool]) -> bool:
        return all(is_set[str(f)] for f in self.fields)


class Implies(Together):
    """Fields a record must set once it sets others: ``Implies((kv_lora_rank, ffn_dim), (v_head_dim,), ...)``
    (an architecture count of multi-head latent attention needs the value width of a head)."""

    rule = "implies"

    def __init__(self, when: tuple[sympy.Symbol, ...], then: tuple[sympy.Symbol, ...], *, message: str) -> None:
        super().__init__(*when, *then, message=message)
        self.split = len(when)

    def broken(self, is_set: dict[str, bool]) -> bool:
        given = [is_set[str(f)] for f in self.fields]
        return all(given[:self.split]) and not all(given[self.split:])


class _RecordMeta(type):
    """Binds each declaration to a sympy symbol as the class body runs, like a scenario."""

    @classmethod
    def __prepare__(mcs, name: str, bases: tuple[type, ...]) -> dict[str, Any]:  # type: ignore[override]  # noqa: N804
        namespace = _Body()
        for base in bases:
            for item in getattr(base, "declared", {}).values():
                if isinstance(item, (Field, Derived)) and item.symbol is not None:
                    namespace.inherited[item.name] = item.symbol
        return namespace

    def __new__(mcs, name: str, bases: tuple[type, ...], body: _Body) -> _RecordMeta:  # noqa: N804
        plain = {k: v for k, v in body.plain.items() if not k.startswith("_") or k.startswith("__")}
        cls = super().__new__(mcs, name, bases, plain)
        declared: dict[str, Any] = {}
        for base in reversed(bases):
            declared.update(getattr(base, "declared", {}))
        declared.update(body.declared)
        cls.declared = declared  # type: ignore[attr-defined]
        for key, item in body.declared.items():  # ``Workload.precision`` reads as the symbol in subclass bodies
            setattr(cls, key, item.symbol)
        cls.checks = tuple(c for base in bases for c in getattr(base, "checks", ())) + tuple(body.checks)  # type: ignore[attr-defined]
        return cls


class _Body(dict):  # type: ignore[type-arg]
    """A class-body namespace that turns declarations into symbols as they are assigned."""

    def __init__(self) -> None:
        super().__init__()
        self.inherited: dict[str, sympy.Symbol] = {}
        self.declared: dict[str, Any] = {}
        self.checks: list[Check] = []
        self.plain: dict[str, Any] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        if isinstance(value, Field):
            symbol = value.bind(key)
            self.declared[key] = value
            super().__setitem__(key, symbol)
        elif isinstance(value, Derived):
            value.name = key
            value.symbol = sympy.Symbol(key, real=True)
            self.declared[key] = value
            super().__setitem__(key, value.symbol)
        elif key == "checks":
            self.checks.extend(value)
        else:
            self.plain[key] = value
            super().__setitem__(key, value)

    def __getitem__(self, key: str) -> Any:
        if dict.__contains__(self, key):
            return super().__getitem__(key)
        if key in self.inherited:
            return self.inherited[key]
        raise KeyError(key)


class Record(metaclass=_RecordMeta):
    """Base of every record type; its subclasses' bodies declare the schema."""

    declared: ClassVar[dict[str, Any]]
    checks: ClassVar[tuple[Check, ...]]
    runtime_doc: ClassVar[str] = ""

    @classmethod
    def fields(cls) -> dict[str, Field]:
        """The stored fields (not arguments of derived methods, not numbers read through a link)."""
        return {k: v for k, v in cls.declared.items() if isinstance(v, Field) and not isinstance(v, (Param, Linked))}

    @classmethod
    def links(cls) -> dict[str, Linked]:
        return {k: v for k, v in cls.declared.items() if isinstance(v, Linked)}

    @classmethod
    def params(cls) -> dict[str, Param]:
        return {k: v for k, v in cls.declared.items() if isinstance(v, Param)}

    @classmethod
    def derived(cls) -> dict[str, Derived]:
        return {k: v for k, v in cls.declared.items() if isinstance(v, Derived)}

    @classmethod
    def own(cls) -> list[str]:
        """Names this type declares or overrides (not inherited unchanged)."""
        parent = cls.__mro__[1]
        inherited = getattr(parent, "declared", {})
        return [name for name, item in cls.declared.items() if inherited.get(name) is not item]

    @classmethod
    def inlined(cls, name: str, *, otherwise: bool = False) -> sympy.Basic:
        """A derived quantity's expression with the derived quantities it reads substituted."""
        derived = cls.derived()[name]
        expr = derived.otherwise if otherwise else derived.expr
        assert expr is not None
        by_symbol = {d.symbol: d for d in derived_list(cls)}
        for _ in range(len(by_symbol) + 1):
            inner = [s for s in expr.free_symbols if s in by_symbol]
            if not inner:
                return expr
            expr = expr.xreplace({s: by_symbol[s].expr for s in inner})
        raise DeclarationError(f"{cls.__name__}.{name}: derived quantities refer to each other in a loop")


def derived_list(cls: type[Record]) -> list[Derived]:
    return list(cls.derived().values())
