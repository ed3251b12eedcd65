"""The declaration API: a scenario is a class whose body reads like its math.

    class HostDispatchScenario(Scenario):
        ops_per_block = Input(integer=True, nonnegative=True, symbol="n", doc="...")
        dispatch = Input("µs", nonnegative=True, symbol="d", doc="...")
        operations = Output(blocks * ops_per_block, doc="...")
        dispatch_time = Output(operations * dispatch, "µs", doc="...")

Inside a class body every declaration is replaced by what later lines compute with:
an input or output becomes a sympy ``Symbol`` named after its attribute, a ``Table``
a ``TableRef`` (``op_flops["relu"]`` is a symbol), a ``Sub`` a ``SubRef``
(``host.overhead_ratio``), a ``Node`` a ``NodeRef`` (``hardware.peak``). The class
collects the declarations in order into ``cls.model`` (a ``ScenarioModel``), which the
generator checks and prints. Outputs can only use names declared above them, so the
definitions form a DAG by construction.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


# -- unit constants inside expressions -------------------------------------------------
UNIT_SYMBOLS: dict[sympy.Symbol, str] = {}


def unit_constant(spelling: str) -> sympy.Symbol:
    """A unit as a factor in an expression, e.g. ``2*b*i*h*unit_constant("flop")``."""
    symbol = sympy.Symbol(f"[{spelling}]", positive=True)
    UNIT_SYMBOLS[symbol] = spelling
    return symbol


flop = unit_constant("flop")


# -- declarations (what a class body writes) -------------------------------------------
class Declaration:
    """Base of everything a scenario class body may declare."""

    doc: str

    def bind(self, name: str, into: ScenarioModel) -> Any:  # pragma: no cover - interface
        raise NotImplementedError


class Input(Declaration):
    """A numeric input: unit ("" = dimensionless count or ratio), domain, default, doc.

    ``default`` may be a number, an expression of inputs declared above (shown as
    "defaults to ..."; the value is computed when the input is left out) or ``None``
    for an optional input.
    """

    def __init__(
        self,
        unit: str = "",
        *,
        integer: bool = False,
        positive: bool = False,
        nonnegative: bool = False,
        default: Any = REQUIRED,
        symbol: str | None = None,
        doc: str = "",
    ) -> None:
        if positive and nonnegative:
            raise DeclarationError("Input: give positive or nonnegative, not both")
        self.unit = unit
        self.integer = integer
        self.positive = positive
        self.nonnegative = nonnegative
        self.default = default
        self.latex = symbol
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        assumptions = {"integer": True} if self.integer else {"real": True}
        if self.positive:
            assumptions["positive"] = True
        elif self.nonnegative:
            assumptions["nonnegative"] = True
        symbol = sympy.Symbol(name, **assumptions)
        into.add_input(InputDecl(name, symbol, self, latex=self.latex or _latex_name(name)))
        return symbol


class Output(Declaration):
    """A derived quantity: its defining expression, display unit and description."""

    def __init__(self, expr: Any, unit: str = "", *, doc: str = "") -> None:
        self.expr = sympy.sympify(expr)
        self.unit = unit
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = sympy.Symbol(name, real=True)
        into.add_output(OutputDecl(name, "scalar", self.doc, self.unit))
        into.add_quantity(Quantity(name, symbol, self.expr, self.unit, self.doc, _latex_name(name)))
        return symbol


class Table(Declaration):
    """A named group of outputs sharing a unit, returned as a dict (``op_flops['relu']``)."""

    def __init__(self, entries: dict[str, Any], unit: str = "", *, doc: str = "") -> None:
        if not entries:
            raise DeclarationError("Table: needs at least one entry")
        self.entries = {key: sympy.sympify(expr) for key, expr in entries.items()}
        self.unit = unit
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> TableRef:
        symbols = {}
        for key, expr in self.entries.items():
            if not _IDENTIFIER.match(key):
                raise DeclarationError(f"{into.name}: table {name} key {key!r} is not an identifier")
            symbol = sympy.Symbol(f"{name}[{key}]", real=True)
            latex = rf"{_latex_name(name)}_{{\mathrm{{{_escape(key)}}}}}"
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

    def sum(self, keys: tuple[str, ...] | None = None) -> sympy.Expr:
        """The sum of the entries named by ``keys`` (all entries by default)."""
        return sympy.Add(*(self[key] for key in (keys or tuple(self.symbols))))


class Node(Declaration):
    """A hardware node input; ``.peak`` (flop/s at the linked precision) and ``.bandwidth`` (byte/s)."""

    def __init__(self, *, doc: str = "") -> None:
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> NodeRef:
        ref = NodeRef(name, into)
        into.nodes.append(NodeDecl(name, self.doc, ref))
        return ref


class NodeRef:
    """The numbers a node resolves to; each becomes an evaluator argument when used."""

    def __init__(self, name: str, model: ScenarioModel) -> None:
        self.name = name
        self.model = model
        self.peak = self._resolved("peak", "flop/s", f"Peak rate of `{name}` at the selected precision.")
        self.bandwidth = self._resolved("bandwidth", "byte/s", f"Memory bandwidth of `{name}`.")

    def _resolved(self, what: str, unit: str, doc: str) -> sympy.Symbol:
        name = f"{self.name}_{what}"
        symbol = sympy.Symbol(name, positive=True)
        spec = Input(unit, positive=True, doc=doc)
        latex = rf"\mathrm{{{what}}}_{{\mathrm{{{_escape(self.name)}}}}}"
        self.model.add_input(InputDecl(name, symbol, spec, latex=latex, node=self.name, resolves=what))
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
        return name


class Sub(Declaration):
    """A contained scenario whose inputs are bound to expressions of this one.

    ``host = Sub(HostDispatchScenario, title="Host work of: {name}", description=...,
    ops_per_block=forward_ops + 1, device_time=compute_time + memory_time)``. Unbound
    inputs take their defaults. The contained outputs become ``host.<output>`` symbols.
    """

    def __init__(self, scenario: type[Scenario], *, title: str, description: str, doc: str = "", **bindings: Any) -> None:
        self.scenario = scenario
        self.title = title
        self.description = description
        self.doc = doc
        self.bindings = {key: sympy.sympify(value) for key, value in bindings.items()}

    def bind(self, name: str, into: ScenarioModel) -> SubRef:
        inner = self.scenario.model
        unknown = sorted(set(self.bindings) - {decl.name for decl in inner.inputs})
        if unknown:
            raise DeclarationError(f"{into.name}: Sub {name} binds unknown inputs of {inner.name}: {', '.join(unknown)}")
        if inner.nodes:
            raise DeclarationError(f"{into.name}: Sub {name}: scenarios with hardware nodes cannot be contained yet")
        rename: dict[sympy.Symbol, sympy.Symbol] = {}
        bound: dict[str, Quantity] = {}
        for decl in inner.inputs:
            symbol = sympy.Symbol(f"{name}.{decl.name}", **decl.symbol.assumptions0)
            rename[decl.symbol] = symbol
            if decl.name in self.bindings:
                expr = self.bindings[decl.name]
            elif decl.spec.default is REQUIRED or decl.spec.default is None:
                raise DeclarationError(f"{into.name}: Sub {name} leaves {inner.name}.{decl.name} unbound and it has no default")
            else:
                expr = sympy.sympify(decl.spec.default).xreplace(rename)
            latex = rf"{_latex_name(name)}.{decl.latex}"
            bound[decl.name] = Quantity(f"{name}.{decl.name}", symbol, expr, decl.spec.unit, decl.spec.doc, latex, sub=name, bound_input=True)
            into.add_quantity(bound[decl.name])
        for quantity in inner.quantities:
            symbol = sympy.Symbol(f"{name}.{quantity.name}", **quantity.symbol.assumptions0)
            rename[quantity.symbol] = symbol
            into.add_quantity(
                Quantity(f"{name}.{quantity.name}", symbol, quantity.expr.xreplace(rename), quantity.unit,
                         quantity.doc, rf"{_latex_name(name)}.{quantity.latex}", sub=name)
            )
        into.add_output(OutputDecl(name, "sub", self.doc, "", scenario=inner, sub=self))
        return SubRef(name, rename, inner)


class SubRef:
    """What a class body sees for a contained scenario: its outputs as symbols."""

    def __init__(self, name: str, rename: dict[sympy.Symbol, sympy.Symbol], inner: ScenarioModel) -> None:
        self._name = name
        self._by_name = {old.name: new for old, new in rename.items()}
        self._inner = inner

    def __getattr__(self, output: str) -> sympy.Symbol:
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
    symbol: sympy.Symbol
    spec: Input
    latex: str
    node: str = ""  # set for numbers a hardware node resolves to
    resolves: str = ""


@dataclass
class NodeDecl:
    name: str
    doc: str
    ref: NodeRef


@dataclass
class PrecisionDecl:
    name: str
    default: Any
    doc: str
    nodes: tuple[str, ...]


@dataclass
class OutputDecl:
    """A public attribute: a scalar, a table, or a contained scenario."""

    name: str
    kind: str
    doc: str
    unit: str
    keys: tuple[str, ...] = ()
    scenario: ScenarioModel | None = None
    sub: Sub | None = None


@dataclass
class Quantity:
    """One defined value (an output, a table entry, a contained input or output)."""

    name: str
    symbol: sympy.Symbol
    expr: sympy.Expr
    unit: str
    doc: str
    latex: str
    table: str = ""
    key: str = ""
    sub: str = ""
    bound_input: bool = False


@dataclass
class ScenarioModel:
    """Everything the generator needs about one scenario class, in declaration order."""

    name: str
    module: str
    doc: str
    category: str
    assumptions: str
    excludes: str
    references: tuple[str, ...]
    examples: str
    inputs: list[InputDecl] = field(default_factory=list)
    nodes: list[NodeDecl] = field(default_factory=list)
    precisions: list[PrecisionDecl] = field(default_factory=list)
    outputs: list[OutputDecl] = field(default_factory=list)
    quantities: list[Quantity] = field(default_factory=list)
    names: set[str] = field(default_factory=set)

    @property
    def summary(self) -> str:
        return self.doc.strip().split("\n\n")[0].replace("\n", " ")

    @property
    def description(self) -> str:
        return "\n\n".join(part.strip() for part in self.doc.strip().split("\n\n")[1:])

    def _claim(self, name: str) -> None:
        if name in self.names:
            raise DeclarationError(f"{self.name}: {name!r} is declared twice")
        self.names.add(name)

    def add_input(self, decl: InputDecl) -> None:
        self._claim(decl.name)
        self.inputs.append(decl)

    def add_output(self, decl: OutputDecl) -> None:
        if decl.kind != "scalar":
            self._claim(decl.name)
        self.outputs.append(decl)

    def add_quantity(self, quantity: Quantity) -> None:
        if not quantity.table and not quantity.sub:
            self._claim(quantity.name)
        self.quantities.append(quantity)

    def used_inputs(self) -> list[InputDecl]:
        """The inputs the evaluator takes: all declared ones, and resolved node numbers in use."""
        used: set[sympy.Basic] = set()
        for quantity in self.quantities:
            used |= quantity.expr.free_symbols
        for decl in self.inputs:
            if isinstance(decl.spec.default, sympy.Basic):
                used |= decl.spec.default.free_symbols
        return [decl for decl in self.inputs if not decl.node or decl.symbol in used]


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
        return _Namespace(ScenarioModel(name, "", "", "", "", "", (), ""))

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
        cls.model = model  # type: ignore[attr-defined]
        return cls


class Scenario(metaclass=_ScenarioMeta):
    """Base class of scenario declarations; see the module docstring."""

    model: ScenarioModel


# -- LaTeX names ------------------------------------------------------------------------
def _escape(text: str) -> str:
    return text.replace("_", r"\_")


def _latex_name(name: str) -> str:
    return rf"\mathrm{{{_escape(name)}}}"
