"""The collected declaration of one scenario: what the generator checks and prints."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import sympy

from symbolic.catalog.schema import UNIT_SYMBOLS, flop, unit_constant  # noqa: F401 (the model's unit constants)
from symbolic.model.functions import Len
from symbolic.runtime.errors import DuplicateNameError

if TYPE_CHECKING:
    from symbolic.model.declarations import Input
    from symbolic.model.presentation import Question, Sweep
    from symbolic.model.structured import Sub

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")



def _latex_name(name: str) -> str:
    return rf"\mathrm{{{name.replace('_', chr(92) + '_')}}}"


def _assumptions(integer: bool, positive: bool, nonnegative: bool) -> dict[str, bool]:
    assumptions = {"integer": True} if integer else {"real": True}
    if positive:
        assumptions["positive"] = True
    elif nonnegative:
        assumptions["nonnegative"] = True
    return assumptions



@dataclass(frozen=True)
class InputDecl:
    name: str
    symbol: sympy.Basic  # Symbol, or IndexedBase for a list
    spec: Input
    latex: str
    structured: str = ""  # the structured input this number is resolved from
    resolves: str = ""  # what it resolves: "peak", "bandwidth", "training_examples", or an inner input
    argument: str = ""  # a method's argument (symbolic.model.arguments): the keyword people pass it as


@dataclass(frozen=True)
class StructuredDecl:
    """An input that is not a number: a hardware node, workload, choice, dataset or scenario,
    and the numbers it resolves to. One subclass per kind; the generator dispatches on the
    type (``functools.singledispatch``), so a new kind is a new class and its handlers."""

    kind: ClassVar[str]  # a label for messages and records, never branched on
    name: str
    doc: str
    resolved: dict[str, sympy.Basic]
    optional: bool = False  # may be left out (outputs reading it then need it)


@dataclass(frozen=True)
class NodeDecl(StructuredDecl):
    kind: ClassVar[str] = "node"
    fleet: bool = False  # also accepts a fleet (its accelerator, counted)


@dataclass(frozen=True)
class WorkloadDecl(StructuredDecl):
    kind: ClassVar[str] = "workload"
    types: tuple[str, ...] = ()  # the accepted record types
    # the record types' own checks that every accepted record satisfies (``sliding_layers <= layers``), in this
    # scenario's symbols: what the analysis may assume of the numbers the workload resolves to
    checks: tuple[sympy.Basic, ...] = ()


@dataclass(frozen=True)
class ChoiceDecl(StructuredDecl):
    kind: ClassVar[str] = "choice"
    choice: Any = None  # a symbolic.model.structured.Choice: its options, unit and default


@dataclass(frozen=True)
class DatasetDecl(StructuredDecl):
    kind: ClassVar[str] = "dataset"
    optional: bool = True  # a dataset is always optional: only its count of training examples is read


@dataclass(frozen=True)
class ScenarioInputDecl(StructuredDecl):
    kind: ClassVar[str] = "scenario"
    scenario: ScenarioModel | None = None  # the input's class; its inputs (and outputs read) are numbers here
    same: tuple[str, ...] = ()  # its inputs that must equal ours of the same name (``ScenarioInput(same=)``)


@dataclass(frozen=True)
class PrecisionDecl:
    name: str
    default: Any
    doc: str
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class RequirementDecl:
    name: str
    condition: sympy.Basic
    message: str
    unless: str = ""  # an optional input whose presence waives the condition ("" = always checked)
    when: str = ""  # an optional input without which the condition is not checked ("" = always checked)


@dataclass(frozen=True)
class FitsDecl:
    """``Fits(need <= have, ...)``: the outputs ``name`` (a truth value), ``name_need`` and
    ``name_have``; ``guards`` are the outputs (symbols) that exist only when it holds."""

    name: str
    need: sympy.Basic  # the symbol of the output ``<name>_need``
    have: sympy.Basic
    message: str
    unit: str
    guards: tuple[sympy.Basic, ...] = ()
    strict: bool = False  # need < have (a rate that must exceed another), not need <= have


@dataclass(frozen=True)
class OutputDecl:
    """A public attribute of the class. One subclass per kind (scalar, list, text, table, group,
    contained scenario); the generator dispatches on the type, ``kind`` is only a label."""

    kind: ClassVar[str]
    name: str
    doc: str
    unit: str
    if_missing: str = "error"


@dataclass(frozen=True)
class ScalarDecl(OutputDecl):
    kind: ClassVar[str] = "scalar"
    labels: tuple[Any, ...] = ()  # text (or True/False) for the values 0, 1, ... of a choice


@dataclass(frozen=True)
class ListDecl(OutputDecl):
    kind: ClassVar[str] = "list"
    keyed_by: str = ""  # returned as a dict under the keys of this list input
    columns_by: str = ""  # a grid's second keyed list input: a dict of dicts, rows by keyed_by


@dataclass(frozen=True)
class TextDecl(OutputDecl):
    kind: ClassVar[str] = "text"


@dataclass(frozen=True)
class TableDecl(OutputDecl):
    kind: ClassVar[str] = "table"
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroupDecl(OutputDecl):
    kind: ClassVar[str] = "group"
    members: tuple[OutputDecl, ...] = ()


@dataclass(frozen=True)
class MethodDecl(OutputDecl):
    """A parameterised output: a scalar whose expression reads method arguments, so the class
    has a method of them (``s.transfer_time("NVLink")``); see symbolic.model.arguments."""

    kind: ClassVar[str] = "method"
    arguments: tuple[InputDecl, ...] = ()  # the argument declarations it reads, in declaration order
    labels: tuple[Any, ...] = ()


@dataclass(frozen=True)
class SubDecl(OutputDecl):
    kind: ClassVar[str] = "sub"
    scenario: ScenarioModel | None = None
    sub: Sub | None = None


@dataclass(frozen=True)
class Quantity:
    """One defined value (an output, a table entry, a contained input or output): a
    ``ScalarQuantity``, a ``ListQuantity`` or a ``TextQuantity``; code tests the type,
    ``kind`` is only a label."""

    kind: ClassVar[str]
    name: str  # its path in the evaluator's result: "steps", "op_flops[relu]", "host.host_time"
    symbol: sympy.Basic
    expr: sympy.Basic
    unit: str
    doc: str
    latex: str
    table: str = ""
    key: str = ""
    sub: str = ""
    group: str = ""
    bound_input: bool = False
    hidden: bool = False
    echo: bool = False
    private: bool = False  # a Step: shown on the page and in explain, not an attribute of the class

    def index_ranges(self) -> tuple[tuple[Any, ...], ...]:
        """The ``(index, start, stop)`` ranges its entries run over: none but a list's."""
        return ()


@dataclass(frozen=True)
class ScalarQuantity(Quantity):
    kind: ClassVar[str] = "scalar"


@dataclass(frozen=True)
class ListQuantity(Quantity):
    """A list: one entry per index of ``limits`` (none when it is a list input echoed as it is)."""

    kind: ClassVar[str] = "list"
    limits: tuple[Any, ...] = ()
    inner: tuple[Any, ...] = ()  # a grid's second range (index, start, stop): entries run row by row

    def index_ranges(self) -> tuple[tuple[Any, ...], ...]:
        return tuple(r for r in (self.limits, self.inner) if r)


@dataclass(frozen=True)
class TextQuantity(Quantity):
    """The entries of a list joined by ``separator`` (``784 → 128 → 10``)."""

    kind: ClassVar[str] = "text"
    separator: str = ""


@dataclass
class ScenarioModel:
    """Everything the generator needs about one scenario class, in declaration order."""

    name: str
    module: str = ""
    doc: str = ""
    assumptions: str = ""
    excludes: str = ""
    references: tuple[str, ...] = ()
    examples: str = ""
    main_outputs: tuple[str, ...] = ()  # what the Derivations section studies
    questions: tuple[Question, ...] = ()  # what the Derivations section solves for
    chart: Sweep | None = None  # the page's chart
    roofline: dict[str, str] = field(default_factory=dict)  # label suffix -> intensity output
    differs: dict[str, str] = field(default_factory=dict)  # input or output -> how and why it differs from the reference library
    left_out: dict[str, str] = field(default_factory=dict)  # a reference attribute not declared here -> why
    # The width estimate (em) its widest equation may reach past the breaking budget: one that cannot be broken
    # further but fits the handbook's line (the PDF test finds no overfull equation), said why where declared
    widest_equation: float | None = None
    inputs: list[InputDecl] = field(default_factory=list)
    structured: list[StructuredDecl] = field(default_factory=list)
    precisions: list[PrecisionDecl] = field(default_factory=list)
    requirements: list[RequirementDecl] = field(default_factory=list)
    feasibility: list[FitsDecl] = field(default_factory=list)  # Fits declarations (symbolic.model.feasibility)
    bounds: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)  # output path -> (low, high), None: unbounded
    outputs: list[OutputDecl] = field(default_factory=list)
    quantities: list[Quantity] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    input_order: list[str] = field(default_factory=list)  # the keywords people pass, as declared
    contains: dict[str, ScenarioModel] = field(default_factory=dict)  # Sub name -> the contained model
    # Sub name -> {contained input: the symbol here that holds its value}: the call's arguments
    bindings: dict[str, dict[str, sympy.Basic]] = field(default_factory=dict)
    open_groups: list[Any] = field(default_factory=list)  # GroupRefs, closed when the class body ends

    @property
    def summary(self) -> str:
        return self.doc.strip().split("\n\n")[0].replace("\n", " ")

    @property
    def description(self) -> str:
        return "\n\n".join(part.strip() for part in self.doc.strip().split("\n\n")[1:])

    def freeze(self) -> None:
        """End of collection: the declaration lists become tuples and no attribute may change."""
        for name in ("inputs", "structured", "precisions", "requirements", "feasibility", "outputs", "quantities", "input_order"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "names", frozenset(self.names))
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"{self.name}: a collected model is read-only (tried to set {name})")
        object.__setattr__(self, name, value)

    def claim(self, name: str) -> None:
        """Reserve a class-body name; a second declaration of it is an error."""
        if name in self.names:
            raise DuplicateNameError(f"{self.name}: {name!r} is declared twice")
        self.names.add(name)

    def add_input(self, decl: InputDecl) -> None:
        if decl.argument:  # a method's argument: a name of the declaration, not a keyword of the class
            self.claim(decl.name)
        elif not decl.structured:
            self.claim(decl.name)
            self.input_order.append(decl.name)
        self.inputs.append(decl)

    def add_structured(self, decl: StructuredDecl) -> None:
        self.claim(decl.name)
        self.input_order.append(decl.name)
        self.structured.append(decl)

    def add_output(self, decl: OutputDecl) -> None:
        if isinstance(decl, (TableDecl, GroupDecl, SubDecl)):  # the others claim theirs with their quantity
            self.claim(decl.name)
        self.outputs.append(decl)

    def add_quantity(self, quantity: Quantity) -> None:
        if not (quantity.table or quantity.sub or quantity.group):
            self.claim(quantity.name)
        self.quantities.append(quantity)

    def evaluator_inputs(self) -> list[InputDecl]:
        """The evaluator's arguments: declared inputs, and numbers of structured inputs in use."""
        used: set[sympy.Basic] = set()
        for quantity in self.quantities:
            used |= reads(quantity)
        for decl in self.inputs:
            if isinstance(decl.spec.default, sympy.Basic):
                used |= _symbols(decl.spec.default)
        waivers = set()  # a record's field that waives or enables a requirement is read by that check
        for requirement in self.requirements:
            used |= _symbols(requirement.condition)
            waivers |= {requirement.unless, requirement.when} - {""}
        used |= {decl.symbol for decl in self.inputs if decl.name in waivers}
        return [decl for decl in self.inputs if not decl.structured or decl.symbol in used]

    def bindable_inputs(self) -> list[InputDecl]:
        """The evaluator's arguments an instance fills (a containing scenario binds these): all but
        method arguments, which each call of a method gives."""
        return [decl for decl in self.evaluator_inputs() if not decl.argument]

    def arguments(self) -> list[InputDecl]:
        """The arguments of the class's methods, in declaration order."""
        return [decl for decl in self.inputs if decl.argument]


def _symbols(expr: sympy.Basic) -> set[sympy.Basic]:
    """Free symbols plus the list bases an expression reads (``Sum`` hides them)."""
    found = set(expr.free_symbols)
    found |= {indexed.base for indexed in expr.atoms(sympy.Indexed)}
    found |= {length.args[0] for length in expr.atoms(Len)}
    return found


def reads(quantity: Quantity) -> frozenset[sympy.Basic]:
    """The symbols a quantity's definition reads: those of its expression and of its limits (a
    grid's second range too; list bases and list lengths included, see ``_symbols``)."""
    return _reads(quantity.expr, tuple(part for bounds in quantity.index_ranges() for part in bounds))


@lru_cache(maxsize=None)
def _reads(expr: sympy.Basic, limits: tuple[Any, ...]) -> frozenset[sympy.Basic]:
    return frozenset(_symbols(expr).union(*(_symbols(part) for part in limits)))


