"""Inputs and outputs: what a scenario class body declares about numbers."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import sympy

from symbolic.model.collected import (
    _IDENTIFIER,
    GroupDecl,
    InputDecl,
    ListDecl,
    ListQuantity,
    OutputDecl,
    Quantity,
    ScalarDecl,
    ScalarQuantity,
    ScenarioModel,
    TableDecl,
    TextDecl,
    TextQuantity,
    _assumptions,
    _latex_name,
    _symbols,
)
from symbolic.model.functions import Given, Len
from symbolic.runtime.errors import DeclarationError, DuplicateNameError
from symbolic.runtime.validation import REQUIRED

_TABLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")  # an identifier, or a name such as ZeRO-3


class Declaration:
    """Base of everything a scenario class body may declare."""

    doc: str = ""

    def bind(self, name: str, into: ScenarioModel) -> Any:  # pragma: no cover - interface
        raise NotImplementedError


class Input(Declaration):
    """A numeric input: unit ("" = a dimensionless count or ratio), domain, default, doc.

    The domain is a lower bound (``positive`` or ``nonnegative``) and an optional upper
    bound, ``at_most=1`` (≤ 1, an efficiency) or ``below=1`` (< 1, a fraction that may
    not reach the whole).

    ``default`` may be a number, an expression of inputs declared above (the value is
    computed when the input is left out) or ``None`` for an optional input: outputs that
    need it raise a clear error (or are None, see ``Output.if_missing``) without it.
    """

    def __init__(self, unit: str = "", *, integer: bool = False, positive: bool = False,
                 nonnegative: bool = False, minimum: float | None = None, at_most: float | None = None,
                 below: float | None = None, default: Any = REQUIRED, symbol: str | None = None,
                 doc: str = "") -> None:
        if positive and nonnegative:
            raise DeclarationError("Input: give positive or nonnegative, not both")
        if at_most is not None and below is not None:
            raise DeclarationError("Input: give at_most or below, not both")
        if minimum is not None and (positive or nonnegative or minimum <= 0):
            raise DeclarationError("Input: minimum is for a bound above 0 (e.g. group sizes ≥ 2); "
                                   "use positive or nonnegative otherwise")
        self.unit = unit
        self.integer = integer
        self.positive = positive or minimum is not None
        self.nonnegative = nonnegative
        self.maximum = below if below is not None else at_most
        self.strict_maximum = below is not None
        self.minimum = minimum  # values must be >= minimum (None: the bound positive/nonnegative give)
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

    ``keyed=True``: the value is a dict of names to numbers (``{"NVLink": 450 GB/s, ...}``);
    the math sees the numbers in the dict's order, and ``PerItem(..., keys=links)`` outputs
    come back as dicts under the same names. ``aligned_to=other``: a keyed input whose keys
    must include every key of the keyed input ``other``; the math sees its numbers in
    ``other``'s order (a key ``other`` lacks is refused: no output would read it). ``unique=True``: repeated
    entries collapse to the first (group sizes to compare).
    """

    def __init__(self, unit: str = "", *, min_length: int = 1, keyed: bool = False, unique: bool = False,
                 aligned_to: sympy.IndexedBase | None = None, **kwargs: Any) -> None:
        super().__init__(unit, **kwargs)
        self.min_length = min_length
        self.keyed = keyed or aligned_to is not None
        self.unique = unique
        self.aligned_to = "" if aligned_to is None else str(aligned_to.label)
        if unique and self.keyed:
            raise DeclarationError("ListInput: keys of a keyed input are unique already; unique is for plain lists")

    def bind(self, name: str, into: ScenarioModel) -> sympy.IndexedBase:
        if self.aligned_to:
            other = next((d for d in into.inputs if d.name == self.aligned_to), None)
            if other is None or not getattr(other.spec, "keyed", False):
                raise DeclarationError(f"{into.name}: {name} is aligned_to {self.aligned_to!r}, "
                                       "which is not a keyed ListInput declared above it")
        base = sympy.IndexedBase(sympy.Symbol(name, **_assumptions(self.integer, self.positive, self.nonnegative)))
        into.add_input(InputDecl(name, base, self, self.latex or _latex_name(name)))
        return base


class Output(Declaration):
    """A derived quantity: its defining expression, display unit and description.

    ``if_missing`` says what the output is when an optional input it needs is absent:
    ``"error"`` (raise, naming the input) or ``"none"`` (the value is None).
    ``labels`` name the values 0, 1, ... of a dimensionless choice, which people then read
    as text: ``Output(Exceeds(t_m, t_c), labels=("Compute", "Memory"))``, or as a truth value:
    ``labels=(False, True)``.

    ``otherwise`` gives the value when an optional input ``expr`` reads is absent, so the
    output is always there: ``Output(adapters * width, "byte", otherwise=full_state)`` is
    the adapter state when ``adapters`` is given, else the full state. ``expr`` must read
    the optional inputs directly (not through outputs that need them).
    """

    def __init__(self, expr: Any, unit: str = "", *, doc: str = "", if_missing: str = "error",
                 labels: tuple[Any, ...] = (), symbol: str | None = None, group: GroupRef | None = None,
                 field: str | None = None, otherwise: Any = None) -> None:
        if if_missing not in ("error", "none"):
            raise DeclarationError(f"Output: if_missing must be 'error' or 'none', not {if_missing!r}")
        if otherwise is not None and if_missing != "error":
            raise DeclarationError("Output: give otherwise (a fallback value) or if_missing, not both")
        self.expr = sympy.sympify(expr)
        self.otherwise = None if otherwise is None else sympy.sympify(otherwise)
        self.unit = unit
        self.doc = doc
        self.if_missing = if_missing
        self.labels = tuple(labels)
        if self.labels and unit:
            raise DeclarationError("Output: labels name the values of a dimensionless choice; give no unit")
        self.latex = symbol
        self.group = _group_ref(group)
        self.field = _field(field, self.group)

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name, real=True)
        if self.otherwise is not None:
            self.expr = _given_or_else(name, into, self.expr, self.otherwise)
        path = _join(self.group, name, into, self.field)
        _add(into, self.group, ScalarDecl(self.field or name, self.doc, self.unit, if_missing=self.if_missing,
                                          labels=self.labels))
        into.add_quantity(ScalarQuantity(path, symbol, self.expr, self.unit, self.doc, self.latex or _latex_name(name),
                                   group=_group_name(self.group)))
        return symbol


class Step(Output):
    """A private step: a named intermediate expression that later outputs read, shown on the scenario's page
    (with its definition and closed form) and in ``explain``, but not an attribute of the class; the
    reference's names stay the public surface. ``ratio = Step(1 - exp(-s), doc="...")``."""

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name, real=True)
        if self.group is not None:
            raise DeclarationError(f"Step {name}: a private step belongs to no group (a group's fields are public)")
        into.add_quantity(ScalarQuantity(name, symbol, self.expr, self.unit, self.doc, self.latex or _latex_name(name),
                                         private=True))
        return symbol


class PerItem(Output):
    """A list output, one entry per index value: ``PerItem(w[l-1]*w[l], (l, 1, layers))``.

    Binds to an ``IndexedBase``, so later outputs can use ``weights_per_layer[l]``.

    Two ranges make a grid keyed by two keyed list inputs, returned as a dict of dicts
    (``times[path][message]``) and shown as a table:
    ``PerItem(a[k] + m_[j]/b[k], ((k, 0, Len(a) - 1), (j, 0, Len(m_) - 1)), "s", keys=(a, m_))``.
    The evaluator returns its entries as one flat list, row by row; no other output reads a grid.
    """

    def __init__(self, expr: Any, limits: tuple[Any, ...], unit: str = "", *, doc: str = "",
                 group: GroupRef | None = None, keys: Any = None, field: str | None = None) -> None:
        super().__init__(expr, unit, doc=doc, group=group, field=field)
        grid = len(limits) == 2 and all(isinstance(part, tuple) for part in limits)
        outer, inner = (limits[0], limits[1]) if grid else (limits, ())
        self.index, self.start, self.stop = (sympy.sympify(part) for part in outer)
        self.inner = tuple(sympy.sympify(part) for part in inner)
        key_inputs = tuple(keys) if isinstance(keys, tuple) else (() if keys is None else (keys,))
        if grid and len(key_inputs) != 2:
            raise DeclarationError("PerItem over two ranges: give keys=(rows, columns), the keyed list inputs "
                                   "each range runs over")
        self.key_inputs = key_inputs
        self.keys = str(key_inputs[0].label) if key_inputs else ""

    def bind(self, name: str, into: ScenarioModel) -> sympy.IndexedBase:
        ranges = [(self.start, self.stop)] + ([tuple(self.inner[1:])] if self.inner else [])
        for keys, (start, stop) in zip(self.key_inputs, ranges, strict=False):
            label = str(keys.label)
            source = next((d for d in into.inputs if d.name == label), None)
            if source is None or not isinstance(source.spec, ListInput) or start != 0 or \
                    sympy.simplify(stop - (Len(source.symbol) - 1)) != 0:
                raise DeclarationError(f"{into.name}: {name} is keyed by {label!r}, so it must be a list input "
                                       f"and the range must run over it, (i, 0, Len({label}) - 1)")
            if self.inner and not getattr(source.spec, "keyed", False):
                raise DeclarationError(f"{into.name}: {name} is a grid, so {label!r} must be a keyed list input")
        columns = str(self.key_inputs[1].label) if self.inner else ""
        base = sympy.IndexedBase(sympy.Symbol(name, real=True))
        path = _join(self.group, name, into, self.field)
        _add(into, self.group, ListDecl(self.field or name, self.doc, self.unit, keyed_by=self.keys,
                                          columns_by=columns))
        into.add_quantity(ListQuantity(path, base, self.expr, self.unit, self.doc, _latex_name(name),
                                   limits=(self.index, self.start, self.stop), inner=self.inner,
                                   group=_group_name(self.group)))
        return base


class Text(Output):
    """A text output: the entries of a list input joined by a separator (``784 → 128 → 10``)."""

    def __init__(self, items: sympy.IndexedBase, separator: str, *, doc: str = "",
                 group: GroupRef | None = None) -> None:
        super().__init__(items, "", doc=doc, group=group)
        self.separator = separator

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name)
        path = _join(self.group, name, into)
        _add(into, self.group, TextDecl(name, self.doc, ""))
        into.add_quantity(TextQuantity(path, symbol, self.expr, "", self.doc, _latex_name(name),
                                   separator=self.separator, group=_group_name(self.group)))
        return symbol


class Table(Declaration):
    """A named group of outputs sharing a unit, returned as a dict (``op_flops['relu']``).

    Entries are given as a dict, ``Table({"host": dispatch, "accelerator": dispatch + launch}, "µs")``,
    or as one formula over a table key that reads like the math, rate_k = min(peak_k, bw_k · I):
    ``k = key("k")`` then ``Table(Min(peak[k], bandwidth[k] * intensity), "flop/s", over=k)``;
    the keys are those of the tables the formula indexes with ``k`` (they must agree).
    """

    def __init__(self, entries: dict[str, Any] | Any, unit: str = "", *, over: sympy.Symbol | None = None,
                 doc: str = "", group: GroupRef | None = None) -> None:
        if over is not None:
            entries = _entries_over(over, sympy.sympify(entries))
        elif not isinstance(entries, dict):
            raise DeclarationError("Table: give a dict of entries, or a formula with over=<key> (see Table's doc)")
        if not entries:
            raise DeclarationError("Table: needs at least one entry")
        self.entries = {key: sympy.sympify(expr) for key, expr in entries.items()}
        self.unit = unit
        self.doc = doc
        self.group = _group_ref(group)

    def bind(self, name: str, into: ScenarioModel) -> TableRef:
        symbols = {}
        path = _join(self.group, name, into) if self.group else name
        for key, expr in self.entries.items():
            if not _TABLE_KEY.match(key):
                raise DeclarationError(f"{into.name}: table {name} key {key!r} is not an identifier (hyphens allowed)")
            symbol = sympy.Symbol(f"{name}[{key}]", real=True)
            latex = rf"{_latex_name(name)}_{{\mathrm{{{key.replace('_', chr(92) + '_')}}}}}"
            into.add_quantity(ScalarQuantity(f"{path}[{key}]", symbol, expr, self.unit, self.doc, latex, table=name, key=key,
                                       group=_group_name(self.group)))
            symbols[key] = symbol
        _add(into, self.group, TableDecl(name, self.doc, self.unit, keys=tuple(self.entries)))
        return TableRef(name, symbols)


def key(name: str) -> sympy.Symbol:
    """A table key for formulas over every entry of tables: ``k = key("k")``, then ``peak[k]``."""
    symbol = sympy.Dummy(name)
    _KEYS.add(symbol)
    return symbol


_KEYS: set[sympy.Symbol] = set()
_KEYED: dict[sympy.IndexedBase, TableRef] = {}  # the placeholder ``table[k]`` reads -> its table


def _entries_over(over: sympy.Symbol, formula: sympy.Basic) -> dict[str, sympy.Basic]:
    """One entry per key of the tables ``formula`` indexes with ``over``."""
    if over not in _KEYS:
        raise DeclarationError(f"Table(over={over}): over must be a table key made by key({str(over)!r})")
    reads = [i for i in formula.atoms(sympy.Indexed) if i.base in _KEYED and i.indices == (over,)]
    if not reads:
        raise DeclarationError(f"Table(over={over.name}): the formula {formula} indexes no table with {over.name}")
    tables = list(dict.fromkeys(_KEYED[i.base] for i in reads))
    keys = list(tables[0].symbols)
    if any(list(t.symbols) != keys for t in tables[1:]):
        raise DeclarationError(f"Table(over={over.name}): the tables {', '.join(t.name for t in tables)} have different "
                               f"keys: {[list(t.symbols) for t in tables]}")
    entries = {}
    for entry in keys:
        value = formula.xreplace({i: _KEYED[i.base][entry] for i in reads})
        if over in value.free_symbols:
            raise DeclarationError(f"Table(over={over.name}): {over.name} may only index tables, as in peak[{over.name}]")
        entries[entry] = value
    return entries


class TableRef:
    """What a class body sees for a table: entries by key, and sums over keys."""

    def __init__(self, name: str, symbols: dict[str, sympy.Symbol]) -> None:
        self.name = name
        self.symbols = symbols

    def __getitem__(self, key: str | sympy.Symbol) -> sympy.Basic:
        if isinstance(key, sympy.Symbol) and key in _KEYS:  # peak[k] inside Table(..., over=k)
            base = sympy.IndexedBase(sympy.Dummy(self.name))
            _KEYED[base] = self
            return base[key]
        try:
            return self.symbols[key]  # type: ignore[index]
        except KeyError:
            raise DeclarationError(f"table {self.name} has no entry {key!r} (entries: {', '.join(self.symbols)})") from None

    def sum(self, keys: Iterable[str] | None = None) -> sympy.Expr:
        """The sum of the entries named by ``keys`` (all entries by default)."""
        return sympy.Add(*(self[key] for key in (keys or tuple(self.symbols))))


class Echo:
    """A value a group echoes: a top-level scalar output, or an input under another field name.

    ``result = Group(Echo(memory_time), overhead, doc=...)`` gives ``memory_time`` and
    ``result.memory_time``. ``field=`` names the group's field when it differs from the
    declared name (the reference's ``result.payload`` is the output ``total_bytes``, its
    ``result.bandwidths`` the input ``links``): ``Group(Echo(total_bytes, field="payload"),
    Echo(links, field="bandwidths"))``. (A bare output listed in a group is an error: outputs
    join a group with ``group=``.)
    """

    def __init__(self, value: Any, *, field: str | None = None) -> None:
        if not isinstance(value, (sympy.Symbol, sympy.IndexedBase)):
            raise DeclarationError(f"Echo: expected a scalar output or an input declared above, got {value!r}")
        if field is not None and not _IDENTIFIER.match(field):
            raise DeclarationError(f"Echo: field {field!r} is not an identifier")
        self.value = value
        self.name = str(getattr(value, "label", value))
        self.field = field or self.name


class Group(Declaration):
    """An attribute that collects outputs, e.g. ``result.steps``; each member says it belongs.

        result = Group(layer_widths, batch_size, doc="Every derived quantity of the network.")
        layers = Output(Len(w) - 1, group=result, doc="...")   # read as result.layers

    Declare the group before its members; its fields are the inputs it echoes (the
    positional arguments, copied in as they are; ``Echo(output)`` for a top-level output)
    then its members in declaration order.
    """

    def __init__(self, *echoes: Any, doc: str = "") -> None:
        self.echoes = echoes
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> GroupRef:
        fields: list[OutputDecl] = []
        echoes: list[tuple[str, InputDecl | Quantity]] = []
        for echo in self.echoes:
            echo_name = echo.name if isinstance(echo, Echo) else str(getattr(echo, "label", echo))
            field = echo.field if isinstance(echo, Echo) else echo_name
            source = next((d for d in into.inputs if d.name == echo_name and not d.structured), None)
            if isinstance(echo, Echo) and source is None:
                output = next((o for o in into.outputs if o.name == echo_name and isinstance(o, ScalarDecl)), None)
                quantity = next((q for q in into.quantities if q.name == echo_name), None)
                if output is None or quantity is None:
                    raise DeclarationError(f"{into.name}: Group {name} echoes {echo_name!r}, which is not a "
                                           "top-level scalar output or an input declared above it")
                fields.append(ScalarDecl(field, output.doc, output.unit, if_missing=output.if_missing))
                echoes.append((field, quantity))
                continue
            if source is None:
                raise DeclarationError(f"{into.name}: Group {name} lists {echo_name!r}, which is not an input declared "
                                       f"above it; outputs join a group with group={name} on their own declaration "
                                       "(or are echoed with Echo(output))")
            keyed = echo_name if getattr(source.spec, "keyed", False) else ""
            keyed = getattr(source.spec, "aligned_to", "") or keyed  # an aligned list is read in its keys' order
            fields.append(ListDecl(field, source.spec.doc, source.spec.unit, keyed_by=keyed)
                          if isinstance(source.spec, ListInput) else ScalarDecl(field, source.spec.doc, source.spec.unit))
            echoes.append((field, source))
        into.add_output(GroupDecl(name, self.doc, ""))
        ref = GroupRef(name, fields, echoes)
        into.open_groups.append(ref)
        return ref


class GroupRef:
    """What a class body sees for a group: pass it as ``group=`` to the outputs that belong to it, or declare
    them inside ``with result:`` (each output there joins the group unless it names another)."""

    def __init__(self, name: str, fields: list[OutputDecl], echoes: list[tuple[str, InputDecl | Quantity]]) -> None:
        self.name = name
        self.fields = fields
        self.echoes = echoes

    def __enter__(self) -> GroupRef:
        if _OPEN.groups:
            raise DeclarationError(f"with {self.name}: inside with {_OPEN.groups[-1].name}: groups do not nest")
        _OPEN.groups.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _OPEN.groups.pop()


class _OpenGroups(threading.local):
    """The group of the ``with`` block being declared, per thread (two modules may load side by side)."""

    def __init__(self) -> None:
        self.groups: list[GroupRef] = []


_OPEN = _OpenGroups()


def close_groups(model: ScenarioModel) -> None:
    """At the end of the class body: fix each group's fields, and copy its echoed inputs in."""
    for ref in model.open_groups:
        if not ref.fields:
            raise DeclarationError(f"{model.name}: Group {ref.name} has no members; give outputs group={ref.name}")
        seen = [f.name for f in ref.fields]
        twice = sorted({f for f in seen if seen.count(f) > 1})
        if twice:
            raise DuplicateNameError(f"{model.name}: Group {ref.name} has the field {twice[0]!r} twice")
        position, group = next((n, o) for n, o in enumerate(model.outputs)
                               if o.name == ref.name and isinstance(o, GroupDecl))
        model.outputs[position] = replace(group, members=tuple(ref.fields))
        for field, source in ref.echoes:
            path = f"{ref.name}.{field}"
            latex = source.latex if field == source.name else _latex_name(field)  # a renamed field shows its name
            if isinstance(source, Quantity):  # an output echoed: result.memory_time is memory_time
                model.add_quantity(ScalarQuantity(path, sympy.Symbol(path, real=True), source.symbol, source.unit,
                                                  source.doc, latex, group=ref.name, echo=True))
                continue
            if isinstance(source.spec, ListInput):  # a list input echoed as it is: no range of its own
                model.add_quantity(ListQuantity(path, sympy.IndexedBase(path), source.symbol, source.spec.unit,
                                                source.spec.doc, latex, group=ref.name, echo=True))
            else:
                model.add_quantity(ScalarQuantity(path, sympy.Symbol(path), source.symbol, source.spec.unit,
                                                  source.spec.doc, latex, group=ref.name, echo=True))
    model.open_groups.clear()


def _given_or_else(name: str, into: ScenarioModel, expr: sympy.Basic, otherwise: sympy.Basic) -> sympy.Basic:
    """``expr`` where the optional inputs it reads are given, else ``otherwise``."""
    optional = {d.symbol for d in into.inputs if d.spec.default is None or (
        isinstance(d.spec.default, sympy.Basic) and not d.spec.default.is_Number)}
    tested = sorted(_symbols(expr) & optional, key=lambda s: s.name)
    if not tested:
        raise DeclarationError(f"{into.name}: {name} has otherwise= but reads no optional input directly "
                               "(read the optional inputs themselves, not outputs computed from them)")
    return sympy.Piecewise((expr, Given(*tested)), (otherwise, True))


def _group_ref(group: Any) -> GroupRef | None:
    """``group=`` as given, else the group of the enclosing ``with`` block, else none."""
    if group is None:
        return _OPEN.groups[-1] if _OPEN.groups else None
    if not isinstance(group, GroupRef):
        raise DeclarationError(f"group= takes a Group declared above (result = Group(doc=...)), not {group!r}")
    return group


def _group_name(group: GroupRef | None) -> str:
    return group.name if group else ""


def _field(field: str | None, group: GroupRef | None) -> str | None:
    """An output's field name in its group, when the group names it apart from the declared name
    (``step_compute_time = Output(..., group=result, field="compute_time")``: the reference's
    ``result.compute_time`` while ``compute_time`` is an input)."""
    if field is None:
        return None
    if group is None:
        raise DeclarationError(f"field={field!r} names an output inside its group; give group= too")
    if not _IDENTIFIER.match(field):
        raise DeclarationError(f"field {field!r} is not an identifier")
    return field


def _join(group: GroupRef | None, name: str, into: ScenarioModel, field: str | None = None) -> str:
    """The output's path: ``result.name`` in a group, or ``result.<field>`` (the declared name stays
    claimed: it is a class attribute)."""
    if group is None:
        return name
    into.claim(name)
    return f"{group.name}.{field or name}"


def _add(into: ScenarioModel, group: GroupRef | None, decl: OutputDecl) -> None:
    if group is None:
        into.add_output(decl)
    else:
        group.fields.append(decl)
