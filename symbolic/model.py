"""The declaration API: a scenario is a class whose body reads like its math.

    class HostDispatchScenario(Scenario):
        ops_per_block = Input(integer=True, nonnegative=True, symbol="n", doc="...")
        dispatch = Input("µs", nonnegative=True, symbol="d", doc="...")
        operations = Output(blocks * ops_per_block, doc="...")
        dispatch_time = Output(operations * dispatch, "µs", doc="...")

Inside a class body every declaration is replaced by what later lines compute with:
an input or output becomes a sympy ``Symbol`` named after its attribute; a list input
or per-item output an ``IndexedBase`` (``layer_widths[l]``); a ``Table`` a ``TableRef``
(``op_flops["relu"]``); a ``Sub`` a ``SubRef`` (``host.overhead_ratio``); a ``Node`` a
``NodeRef`` (``hardware.peak``). The class collects the declarations, in order, into
``cls.model`` (a ``ScenarioModel``) that the generator checks and prints. An output can
only use names declared above it, so the definitions form a DAG by construction.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy

from symbolic.functions import Len
from symbolic.runtime.errors import DeclarationError, DuplicateNameError
from symbolic.runtime.validation import REQUIRED

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# -- unit constants inside expressions -------------------------------------------------
UNIT_SYMBOLS: dict[sympy.Symbol, str] = {}


def unit_constant(spelling: str) -> sympy.Symbol:
    """A unit as a factor in an expression, e.g. ``2*b*i*h*flop``."""
    symbol = sympy.Symbol(f"[{spelling}]", positive=True)
    UNIT_SYMBOLS[symbol] = spelling
    return symbol


flop = unit_constant("flop")


def _latex_name(name: str) -> str:
    return rf"\mathrm{{{name.replace('_', chr(92) + '_')}}}"


def _assumptions(integer: bool, positive: bool, nonnegative: bool) -> dict[str, bool]:
    assumptions = {"integer": True} if integer else {"real": True}
    if positive:
        assumptions["positive"] = True
    elif nonnegative:
        assumptions["nonnegative"] = True
    return assumptions


# -- declarations (what a class body writes) -------------------------------------------
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


class Node(Declaration):
    """A hardware node input; ``.peak`` (flop/s at the linked precision) and ``.bandwidth`` (byte/s)."""

    def __init__(self, *, doc: str = "") -> None:
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> NodeRef:
        ref = NodeRef(name, into)
        into.add_structured(StructuredDecl(name, "node", self.doc, {"peak": ref.peak, "bandwidth": ref.bandwidth}))
        return ref


class NodeRef:
    """The numbers a node resolves to; each becomes an evaluator argument when used."""

    def __init__(self, name: str, model: ScenarioModel) -> None:
        self.name = name
        self.peak = _resolved(model, name, "peak", Input("flop/s", positive=True, doc=f"Peak rate of `{name}` at the selected precision."))
        self.bandwidth = _resolved(model, name, "bandwidth", Input("byte/s", positive=True, doc=f"Memory bandwidth of `{name}`."))


def _resolved(model: ScenarioModel, owner: str, what: str, spec: Input) -> sympy.Symbol:
    name = f"{owner}_{what}"
    symbol = sympy.Symbol(name, **_assumptions(spec.integer, spec.positive, spec.nonnegative))
    latex = rf"\mathrm{{{what.replace('_', chr(92) + '_')}}}_{{\mathrm{{{owner.replace('_', chr(92) + '_')}}}}}"
    model.add_input(InputDecl(name, symbol, spec, latex, structured=owner, resolves=what))
    return symbol


class Precision(Declaration):
    """The precision key read from the ``precision_flops`` of the given nodes."""

    def __init__(self, *nodes: NodeRef, default: Any = REQUIRED, doc: str = "") -> None:
        if not nodes:
            raise DeclarationError("Precision: name at least one Node it selects the rate of")
        self.nodes = nodes
        self.default = default
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> str:
        into.precisions.append(PrecisionDecl(name, self.default, self.doc, tuple(n.name for n in self.nodes)))
        into._claim(name)
        into.input_order.append(name)
        return name


class Dataset(Declaration):
    """An optional dataset input; ``.training_examples`` is its count, absent when unknown."""

    def __init__(self, *, doc: str = "") -> None:
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> DatasetRef:
        examples = _resolved(into, name, "training_examples",
                             Input(integer=True, nonnegative=True, default=None, doc=f"Training examples of `{name}`."))
        into.add_structured(StructuredDecl(name, "dataset", self.doc, {"training_examples": examples}))
        return DatasetRef(examples)


@dataclass(frozen=True)
class DatasetRef:
    training_examples: sympy.Symbol


class ScenarioInput(Declaration):
    """An input that is an instance of another scenario; its inputs become numbers here.

    ``network = ScenarioInput(DenseNetworkScenario)``: ``network.inputs()`` are symbols for
    the network's evaluator arguments, ready to bind a ``Sub`` of the same class.
    """

    def __init__(self, scenario: type[Scenario], *, doc: str = "") -> None:
        self.scenario = scenario
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> ScenarioInputRef:
        inner = self.scenario.model
        symbols: dict[str, sympy.Basic] = {}
        for decl in inner.evaluator_inputs():
            spec = decl.spec
            outer = f"{name}_{decl.name}"
            if isinstance(spec, ListInput):
                symbol: sympy.Basic = sympy.IndexedBase(sympy.Symbol(outer, **decl.symbol.label.assumptions0))
            else:
                symbol = sympy.Symbol(outer, **decl.symbol.assumptions0)
            latex = rf"\mathrm{{{name}}}.{decl.latex}"
            into.add_input(InputDecl(outer, symbol, spec, latex, structured=name, resolves=decl.name))
            symbols[decl.name] = symbol
        into.add_structured(StructuredDecl(name, "scenario", self.doc, symbols, scenario=inner))
        return ScenarioInputRef(name, symbols)


class ScenarioInputRef:
    """The numbers a scenario input resolves to, by the inner scenario's argument names."""

    def __init__(self, name: str, symbols: dict[str, sympy.Basic]) -> None:
        self._name = name
        self._symbols = symbols

    def inputs(self, **overrides: Any) -> dict[str, Any]:
        """Bindings for a ``Sub`` of the same scenario class, with ``overrides`` replacing some."""
        return {**self._symbols, **overrides}

    def __getattr__(self, name: str) -> sympy.Basic:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._symbols[name]
        except KeyError:
            raise DeclarationError(f"scenario input {self._name} has no input {name!r}") from None


class Require(Declaration):
    """A condition between inputs, checked when an instance is built: ``Require(hi >= lo, "...")``.

    Inputs it mentions must be present even when optional on their own.
    """

    def __init__(self, condition: sympy.Basic, message: str) -> None:
        if not isinstance(condition, sympy.core.relational.Relational):
            raise DeclarationError(f"Require: expected a comparison such as a >= b, got {condition!r}")
        self.condition = condition
        self.doc = message

    def bind(self, name: str, into: ScenarioModel) -> None:
        into.requirements.append(RequirementDecl(name, self.condition, self.doc))


class Sub(Declaration):
    """A contained scenario whose inputs are bound to expressions of this one.

    ``host = Sub(HostDispatchScenario, title="Host work of: {name}", description=...,
    ops_per_block=forward_ops + 1, device_time=compute_time + memory_time)``. Unbound
    inputs take their defaults; the contained outputs become ``host.<output>`` symbols.
    With ``public=False`` the contained scenario is a step of this one, not an attribute.
    """

    def __init__(self, scenario: type[Scenario], *, title: str = "", description: str = "", doc: str = "",
                 public: bool = True, **bindings: Any) -> None:
        self.scenario = scenario
        self.title = title
        self.description = description
        self.doc = doc
        self.public = public
        self.bindings = {key: value if isinstance(value, sympy.IndexedBase) else sympy.sympify(value)
                         for key, value in bindings.items()}

    def bind(self, name: str, into: ScenarioModel) -> SubRef:
        inner = self.scenario.model
        arguments = inner.evaluator_inputs()
        unknown = sorted(set(self.bindings) - {decl.name for decl in arguments})
        if unknown:
            raise DeclarationError(f"{into.name}: Sub {name} binds unknown inputs of {inner.name}: {', '.join(unknown)}")
        if inner.structured and self.public and any(s.kind != "dataset" for s in inner.structured):
            raise DeclarationError(f"{into.name}: Sub {name}: a public contained scenario cannot have hardware inputs yet")
        rename: dict[sympy.Basic, sympy.Basic] = {}
        for decl in arguments:
            bound = self.bindings.get(decl.name)
            if isinstance(decl.symbol, sympy.IndexedBase):  # a list is passed through, not copied
                if not isinstance(bound, sympy.IndexedBase):
                    raise DeclarationError(f"{into.name}: Sub {name} must bind list input {decl.name} to a list")
                rename[decl.symbol] = bound
                continue
            symbol = sympy.Symbol(f"{name}.{decl.name}", **decl.symbol.assumptions0)
            rename[decl.symbol] = symbol
            if bound is not None:
                expr = bound
            elif decl.spec.default is REQUIRED or decl.spec.default is None:
                raise DeclarationError(f"{into.name}: Sub {name} leaves {inner.name}.{decl.name} unbound and it has no default")
            else:
                expr = sympy.sympify(decl.spec.default).xreplace(rename)
            into.add_quantity(Quantity(f"{name}.{decl.name}", symbol, expr, decl.spec.unit, decl.spec.doc,
                                       rf"{_latex_name(name)}.{decl.latex}", sub=name, bound_input=True,
                                       hidden=not self.public))
        for quantity in inner.quantities:
            if isinstance(quantity.symbol, sympy.IndexedBase):
                symbol = sympy.IndexedBase(sympy.Symbol(f"{name}.{quantity.symbol.label}", **quantity.symbol.label.assumptions0))
            else:
                symbol = sympy.Symbol(f"{name}.{quantity.name}", **quantity.symbol.assumptions0)
            rename[quantity.symbol] = symbol
            into.add_quantity(Quantity(
                f"{name}.{quantity.name}", symbol, quantity.expr.xreplace(rename), quantity.unit, quantity.doc,
                rf"{_latex_name(name)}.{quantity.latex}", kind=quantity.kind, sub=name, hidden=not self.public,
                limits=tuple(part.xreplace(rename) for part in quantity.limits), separator=quantity.separator,
                group=quantity.group, echo=quantity.echo))
        if self.public:
            into.add_output(OutputDecl(name, "sub", self.doc, "", scenario=inner, sub=self))
        else:
            into._claim(name)
        return SubRef(name, rename, inner)


class SubRef:
    """What a class body sees for a contained scenario: its outputs as symbols."""

    def __init__(self, name: str, rename: dict[sympy.Basic, sympy.Basic], inner: ScenarioModel) -> None:
        self._name = name
        self._inner = inner
        self._by_name = {}
        for quantity in inner.quantities:
            short = quantity.name.split(".")[-1] if quantity.group else quantity.name
            self._by_name[short] = rename[quantity.symbol]

    def __getattr__(self, output: str) -> sympy.Basic:
        if output.startswith("_"):
            raise AttributeError(output)
        try:
            return self._by_name[output]
        except KeyError:
            raise DeclarationError(f"{self._inner.name} (as {self._name}) has no output {output!r}") from None


# -- the collected model ---------------------------------------------------------------
@dataclass
class InputDecl:
    name: str
    symbol: sympy.Basic  # Symbol, or IndexedBase for a list
    spec: Input
    latex: str
    structured: str = ""  # the structured input this number is resolved from
    resolves: str = ""  # what it resolves: "peak", "bandwidth", "training_examples", or an inner input


@dataclass
class StructuredDecl:
    """A hardware node, dataset or scenario input, and the numbers it resolves to."""

    name: str
    kind: str  # "node" | "dataset" | "scenario"
    doc: str
    resolved: dict[str, sympy.Basic]
    scenario: ScenarioModel | None = None


@dataclass
class PrecisionDecl:
    name: str
    default: Any
    doc: str
    nodes: tuple[str, ...]


@dataclass
class RequirementDecl:
    name: str
    condition: sympy.Basic
    message: str


@dataclass
class OutputDecl:
    """A public attribute: a scalar, list, text, table, group or contained scenario."""

    name: str
    kind: str
    doc: str
    unit: str
    keys: tuple[str, ...] = ()
    scenario: ScenarioModel | None = None
    sub: Sub | None = None
    members: tuple[OutputDecl, ...] = ()
    if_missing: str = "error"


@dataclass
class Quantity:
    """One defined value (an output, a table entry, a contained input or output)."""

    name: str  # its path in the evaluator's result: "steps", "op_flops[relu]", "host.host_time"
    symbol: sympy.Basic
    expr: sympy.Basic
    unit: str
    doc: str
    latex: str
    kind: str = "scalar"  # "scalar" | "list" | "text"
    table: str = ""
    key: str = ""
    sub: str = ""
    group: str = ""
    bound_input: bool = False
    hidden: bool = False
    echo: bool = False
    limits: tuple[Any, ...] = ()
    separator: str = ""


@dataclass
class ScenarioModel:
    """Everything the generator needs about one scenario class, in declaration order."""

    name: str
    module: str = ""
    doc: str = ""
    category: str = ""
    assumptions: str = ""
    excludes: str = ""
    references: tuple[str, ...] = ()
    examples: str = ""
    main_outputs: tuple[str, ...] = ()  # what the Derivations section studies
    questions: tuple[tuple[str, str, str], ...] = ()  # (input to solve for, output, output or value)
    inputs: list[InputDecl] = field(default_factory=list)
    structured: list[StructuredDecl] = field(default_factory=list)
    precisions: list[PrecisionDecl] = field(default_factory=list)
    requirements: list[RequirementDecl] = field(default_factory=list)
    outputs: list[OutputDecl] = field(default_factory=list)
    quantities: list[Quantity] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    input_order: list[str] = field(default_factory=list)  # the keywords people pass, as declared

    @property
    def summary(self) -> str:
        return self.doc.strip().split("\n\n")[0].replace("\n", " ")

    @property
    def description(self) -> str:
        return "\n\n".join(part.strip() for part in self.doc.strip().split("\n\n")[1:])

    def _claim(self, name: str) -> None:
        if name in self.names:
            raise DuplicateNameError(f"{self.name}: {name!r} is declared twice")
        self.names.add(name)

    def add_input(self, decl: InputDecl) -> None:
        if not decl.structured:
            self._claim(decl.name)
            self.input_order.append(decl.name)
        self.inputs.append(decl)

    def add_structured(self, decl: StructuredDecl) -> None:
        self._claim(decl.name)
        self.input_order.append(decl.name)
        self.structured.append(decl)

    def add_output(self, decl: OutputDecl) -> None:
        if decl.kind not in ("scalar", "list", "text"):
            self._claim(decl.name)
        self.outputs.append(decl)

    def add_quantity(self, quantity: Quantity) -> None:
        if not (quantity.table or quantity.sub or quantity.group):
            self._claim(quantity.name)
        self.quantities.append(quantity)

    def evaluator_inputs(self) -> list[InputDecl]:
        """The evaluator's arguments: declared inputs, and numbers of structured inputs in use."""
        used: set[sympy.Basic] = set()
        for quantity in self.quantities:
            used |= _symbols(quantity.expr) | {s for part in quantity.limits for s in _symbols(part)}
        for decl in self.inputs:
            if isinstance(decl.spec.default, sympy.Basic):
                used |= _symbols(decl.spec.default)
        for requirement in self.requirements:
            used |= _symbols(requirement.condition)
        return [decl for decl in self.inputs if not decl.structured or decl.symbol in used]


def _symbols(expr: sympy.Basic) -> set[sympy.Basic]:
    """Free symbols plus the list bases an expression reads (``Sum`` hides them)."""
    found = set(expr.free_symbols)
    found |= {indexed.base for indexed in expr.atoms(sympy.Indexed)}
    found |= {length.args[0] for length in expr.atoms(Len)}
    return found


# -- the scenario base class -----------------------------------------------------------
class _Namespace(dict):
    """Class-body namespace that turns each declaration into what later lines use."""

    def __init__(self, model: ScenarioModel) -> None:
        super().__init__()
        self.model = model

    def __setitem__(self, key: str, value: Any) -> None:
        if isinstance(value, Declaration):
            value = value.bind(key, self.model)
        super().__setitem__(key, value)


class _ScenarioMeta(type):
    @classmethod
    def __prepare__(mcs, name: str, bases: tuple[type, ...], **kwargs: Any) -> _Namespace:  # type: ignore[override]
        return _Namespace(ScenarioModel(name))

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: _Namespace, **kwargs: Any) -> type:
        cls = super().__new__(mcs, name, bases, dict(namespace))
        model = namespace.model
        model.module = namespace.get("__module__", "")
        model.doc = inspect.cleandoc(namespace.get("__doc__", "") or "")
        model.category = namespace.get("category", "")
        model.assumptions = namespace.get("assumptions", "")
        model.excludes = namespace.get("excludes", "")
        model.references = tuple(namespace.get("references", ()))
        model.examples = namespace.get("examples", "")
        model.main_outputs = tuple(namespace.get("main_outputs", ()))
        model.questions = tuple(namespace.get("questions", ()))
        cls.model = model  # type: ignore[attr-defined]
        return cls


class Scenario(metaclass=_ScenarioMeta):
    """Base class of scenario declarations; see the module docstring."""

    model: ScenarioModel
