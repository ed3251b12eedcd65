"""Inputs and outputs: what a scenario class body declares about numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import sympy

from symbolic.model.collected import (
    _IDENTIFIER,
    InputDecl,
    OutputDecl,
    Quantity,
    ScenarioModel,
    _assumptions,
    _latex_name,
)
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED

class Declaration:
    """Base of everything a scenario class body may declare."""

    doc: str = ""

    def bind(self, name: str, into: ScenarioModel) -> Any:  # pragma: no cover - interface
        raise NotImplementedError


class Input(Declaration):
    """A numeric input: unit ("" = a dimensionless count or ratio), domain, default, doc.

    ``default`` may be a number, an expression of inputs declared above (the value is
    computed when the input is left out) or ``None`` for an optional input: outputs that
    need it raise a clear error (or are None, see ``Output.if_missing``) without it.
    """

    def __init__(self, unit: str = "", *, integer: bool = False, positive: bool = False,
                 nonnegative: bool = False, default: Any = REQUIRED, symbol: str | None = None,
                 doc: str = "") -> None:
        if positive and nonnegative:
            raise DeclarationError("Input: give positive or nonnegative, not both")
        self.unit = unit
        self.integer = integer
        self.positive = positive
        self.nonnegative = nonnegative
        self.default = default
        self.latex = symbol
        self.doc = doc

    @property
    def optional(self) -> bool:
        return self.default is None

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name, **_assumptions(self.integer, self.positive, self.nonnegative))
        into.add_input(InputDecl(name, symbol, self, self.latex or _latex_name(name)))
        return symbol


class ListInput(Input):
    """A list of numbers of any length, e.g. layer widths ``w_0 … w_L``.

    Binds to an ``IndexedBase``: expressions use ``layer_widths[l]`` under ``Sum`` or
    ``MaxOver``, and ``Len(layer_widths)`` for its length. The domain applies to each entry.
    """

    def __init__(self, unit: str = "", *, min_length: int = 1, **kwargs: Any) -> None:
        super().__init__(unit, **kwargs)
        self.min_length = min_length

    def bind(self, name: str, into: ScenarioModel) -> sympy.IndexedBase:
        base = sympy.IndexedBase(sympy.Symbol(name, **_assumptions(self.integer, self.positive, self.nonnegative)))
        into.add_input(InputDecl(name, base, self, self.latex or _latex_name(name)))
        return base


class Output(Declaration):
    """A derived quantity: its defining expression, display unit and description.

    ``if_missing`` says what the output is when an optional input it needs is absent:
    ``"error"`` (raise, naming the input) or ``"none"`` (the value is None).
    """

    def __init__(self, expr: Any, unit: str = "", *, doc: str = "", if_missing: str = "error",
                 symbol: str | None = None) -> None:
        if if_missing not in ("error", "none"):
            raise DeclarationError(f"Output: if_missing must be 'error' or 'none', not {if_missing!r}")
        self.expr = sympy.sympify(expr)
        self.unit = unit
        self.doc = doc
        self.if_missing = if_missing
        self.latex = symbol

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name, real=True)
        into.add_output(OutputDecl(name, "scalar", self.doc, self.unit, if_missing=self.if_missing))
        into.add_quantity(Quantity(name, symbol, self.expr, self.unit, self.doc, self.latex or _latex_name(name)))
        return symbol


class PerItem(Output):
    """A list output, one entry per index value: ``PerItem(w[l-1]*w[l], (l, 1, layers))``.

    Binds to an ``IndexedBase``, so later outputs can use ``weights_per_layer[l]``.
    """

    def __init__(self, expr: Any, limits: tuple[Any, Any, Any], unit: str = "", *, doc: str = "") -> None:
        super().__init__(expr, unit, doc=doc)
        self.index, self.start, self.stop = (sympy.sympify(part) for part in limits)

    def bind(self, name: str, into: ScenarioModel) -> sympy.IndexedBase:
        base = sympy.IndexedBase(sympy.Symbol(name, real=True))
        into.add_output(OutputDecl(name, "list", self.doc, self.unit))
        into.add_quantity(Quantity(name, base, self.expr, self.unit, self.doc, _latex_name(name), kind="list",
                                   limits=(self.index, self.start, self.stop)))
        return base


class Text(Output):
    """A text output: the entries of a list input joined by a separator (``784 → 128 → 10``)."""

    def __init__(self, items: sympy.IndexedBase, separator: str, *, doc: str = "") -> None:
        super().__init__(items, "", doc=doc)
        self.separator = separator

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name)
        into.add_output(OutputDecl(name, "text", self.doc, ""))
        into.add_quantity(Quantity(name, symbol, self.expr, "", self.doc, _latex_name(name), kind="text",
                                   separator=self.separator))
        return symbol


class Table(Declaration):
    """A named group of outputs sharing a unit, returned as a dict (``op_flops['relu']``)."""

    def __init__(self, entries: dict[str, Any], unit: str = "", *, doc: str = "") -> None:
        if not entries:
            raise DeclarationError("Table: needs at least one entry")
        self.entries = {key: sympy.sympify(expr) for key, expr in entries.items()}
        self.unit = unit
        self.doc = doc

    @classmethod
    def each(cls, formula: Callable[..., Any], *arguments: Any, unit: str = "", doc: str = "") -> Table:
        """One entry per key of the table or dict arguments, from one formula written once.

        ``Table.each(lambda peak, bw, i: Min(peak, bw * i), peak, bandwidth, intensity)``:
        table and dict arguments give their entry for the key, other arguments are passed
        as they are. (Class-body names are invisible inside a lambda, so pass them in.)
        """
        keyed = [a.symbols if isinstance(a, TableRef) else a for a in arguments if isinstance(a, (TableRef, dict))]
        if not keyed:
            raise DeclarationError("Table.each: pass at least one table or dict to take the keys from")
        keys = list(keyed[0])
        if any(list(k) != keys for k in keyed[1:]):
            raise DeclarationError(f"Table.each: the tables and dicts have different keys: {[list(k) for k in keyed]}")

        def entry(argument: Any, key: str) -> Any:
            if isinstance(argument, TableRef):
                return argument[key]
            return argument[key] if isinstance(argument, dict) else argument

        return cls({key: formula(*(entry(a, key) for a in arguments)) for key in keys}, unit, doc=doc)

    def bind(self, name: str, into: ScenarioModel) -> TableRef:
        symbols = {}
        for key, expr in self.entries.items():
            if not _IDENTIFIER.match(key):
                raise DeclarationError(f"{into.name}: table {name} key {key!r} is not an identifier")
            symbol = sympy.Symbol(f"{name}[{key}]", real=True)
            latex = rf"{_latex_name(name)}_{{\mathrm{{{key.replace('_', chr(92) + '_')}}}}}"
            into.add_quantity(Quantity(f"{name}[{key}]", symbol, expr, self.unit, self.doc, latex, table=name, key=key))
            symbols[key] = symbol
        into.add_output(OutputDecl(name, "table", self.doc, self.unit, keys=tuple(self.entries)))
        return TableRef(name, symbols)


class TableRef:
    """What a class body sees for a table: entries by key, and sums over keys."""

    def __init__(self, name: str, symbols: dict[str, sympy.Symbol]) -> None:
        self.name = name
        self.symbols = symbols

    def __getitem__(self, key: str) -> sympy.Symbol:
        try:
            return self.symbols[key]
        except KeyError:
            raise DeclarationError(f"table {self.name} has no entry {key!r} (entries: {', '.join(self.symbols)})") from None

    def sum(self, keys: Iterable[str] | None = None) -> sympy.Expr:
        """The sum of the entries named by ``keys`` (all entries by default)."""
        return sympy.Add(*(self[key] for key in (keys or tuple(self.symbols))))


class Group(Declaration):
    """Collects outputs (and echoed inputs) under one attribute, e.g. ``result.steps``.

    ``result = Group(steps, peak, weights_per_layer, layer_widths, doc=...)``: the named
    outputs move from the scenario's top level into the group; inputs are copied in.
    """

    def __init__(self, *members: Any, doc: str = "") -> None:
        self.members = members
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> str:
        fields = []
        for member in self.members:
            member_name = member.name if isinstance(member, TableRef) else str(getattr(member, "label", member))
            decl = next((o for o in into.outputs if o.name == member_name), None)
            if decl is not None:
                into.outputs.remove(decl)
                fields.append(decl)
                for quantity in into.quantities:
                    if quantity.name == member_name or quantity.table == member_name:
                        quantity.name = f"{name}.{quantity.name}"
                        quantity.group = name
                continue
            source = next((d for d in into.inputs if d.name == member_name), None)
            if source is None:
                raise DeclarationError(f"{into.name}: Group {name} member {member_name!r} is not a declared output or input")
            kind = "list" if isinstance(source.spec, ListInput) else "scalar"
            symbol = sympy.IndexedBase(f"{name}.{member_name}") if kind == "list" else sympy.Symbol(f"{name}.{member_name}")
            into.add_quantity(Quantity(f"{name}.{member_name}", symbol, source.symbol, source.spec.unit, source.spec.doc,
                                       source.latex, kind=kind, group=name, echo=True))
            fields.append(OutputDecl(member_name, kind, source.spec.doc, source.spec.unit))
        into.add_output(OutputDecl(name, "group", self.doc, "", members=tuple(fields)))
        return name


