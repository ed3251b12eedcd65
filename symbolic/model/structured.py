"""Structured inputs (hardware nodes, datasets, scenarios), conditions and contained scenarios."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import sympy

from symbolic.model.collected import (
    ChoiceDecl,
    DatasetDecl,
    InputDecl,
    NodeDecl,
    SubDecl,
    PrecisionDecl,
    ListQuantity,
    ScalarQuantity,
    RequirementDecl,
    ScenarioInputDecl,
    ScenarioModel,
    _assumptions,
    _latex_name,
)
from symbolic.model.arguments import method_quantities
from symbolic.model.declarations import Declaration, Input, ListInput
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED

if TYPE_CHECKING:
    from symbolic.model.scenario import Scenario

class Node(Declaration):
    """A hardware node input: ``.peak`` (flop/s at the linked ``Precision``), ``.peak_flops``
    (the headline peak, flop/s), ``.bandwidth`` (byte/s), ``.capacity`` (byte, the memory
    as stored: 80 GiB is 85.9e9 byte), ``.dispatch_tax`` (s) and ``.tdp`` (W; a node that states none leaves the
    outputs reading it unavailable, with an error naming it, rather than refusing the node).

    ``optional=True``: the node may be left out (None); outputs that read it then raise
    ``MissingInputError`` naming it (or are None with ``if_missing="none"``).

    ``fleet=True``: the input may also be a fleet (``Systems.Clusters.*``); its numbers are
    then those of the fleet's accelerator, and ``.accelerators`` counts the fleet's
    accelerators (1 for a single node).
    """

    def __init__(self, *, optional: bool = False, fleet: bool = False, doc: str = "") -> None:
        self.optional = optional
        self.fleet = fleet
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> NodeRef:
        ref = NodeRef(name, into, self.optional)
        resolved = {"peak": ref.peak, "peak_flops": ref.peak_flops, "bandwidth": ref.bandwidth, "capacity": ref.capacity,
                    "tdp": ref.tdp, "accelerators": ref.accelerators, "dispatch_tax": ref.dispatch_tax}
        into.add_structured(NodeDecl(name, self.doc, resolved, optional=self.optional, fleet=self.fleet))
        return ref


class NodeRef:
    """The numbers a node resolves to; each becomes an evaluator argument when used."""

    def __init__(self, name: str, model: ScenarioModel, optional: bool = False) -> None:
        self.name = name
        default = None if optional else REQUIRED
        self.peak = _resolved(model, name, "peak", Input("flop/s", positive=True, default=default,
                                                         doc=f"Peak rate of `{name}` at the selected precision."))
        self.peak_flops = _resolved(model, name, "peak_flops", Input("flop/s", positive=True, default=default,
                                                                     doc=f"Headline peak rate of `{name}`."))
        self.bandwidth = _resolved(model, name, "bandwidth", Input("byte/s", positive=True, default=default,
                                                                   doc=f"Memory bandwidth of `{name}`."))
        self.capacity = _resolved(model, name, "capacity", Input("byte", positive=True, default=default,
                                                                 doc=f"Memory capacity of `{name}`."))
        self.accelerators = _resolved(model, name, "accelerators", Input(
            integer=True, positive=True, default=default, doc=f"Accelerators of `{name}` (a fleet's total; 1 for a node)."))
        self.dispatch_tax = _resolved(model, name, "dispatch_tax", Input(
            "s", nonnegative=True, default=default, doc=f"Host cost of dispatching one step on `{name}`."))
        self.tdp = _resolved(model, name, "tdp", Input("W", positive=True, default=None,
                                                       doc=f"Thermal design power of `{name}` (optional: not every "
                                                           "node states one)."))


def _resolved(model: ScenarioModel, owner: str, what: str, spec: Input, latex: str = "") -> sympy.Symbol:
    name = f"{owner}_{what}"
    symbol = sympy.Symbol(name, **_assumptions(spec.integer, spec.positive, spec.nonnegative))
    latex = latex or rf"\mathrm{{{what.replace('_', chr(92) + '_')}}}_{{\mathrm{{{owner.replace('_', chr(92) + '_')}}}}}"
    model.add_input(InputDecl(name, symbol, spec, latex, structured=owner, resolves=what))
    return symbol


class Precision(Declaration):
    """The precision key read from the ``precision_flops`` of the given nodes.

    A default that must work on every node is a chain, ``"fp16|bf16|peak"`` (the first name the
    node answers to); ``"{precision}|peak"`` reads the key given for the Choice ``precision``
    declared above (the weights' precision), else the headline peak.
    """

    def __init__(self, *nodes: NodeRef, default: Any = REQUIRED, doc: str = "") -> None:
        if not nodes:
            raise DeclarationError("Precision: name at least one Node it selects the rate of")
        self.nodes = nodes
        self.default = default
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> str:
        choices = {item.name for item in into.structured if isinstance(item, ChoiceDecl)}
        named = set(re.findall(r"\{(\w+)\}", self.default)) if isinstance(self.default, str) else set()
        if named - choices:
            raise DeclarationError(f"Precision {name}: default {self.default!r} names {sorted(named - choices)}, "
                                   f"which is not a Choice declared above it")
        into.precisions.append(PrecisionDecl(name, self.default, self.doc, tuple(n.name for n in self.nodes)))
        into.claim(name)
        into.input_order.append(name)
        return name


class Choice(Declaration):
    """A named option that stands for a number, e.g. a storage precision and its width:

        precision = Choice({"fp32": 4, "fp16": 2, "int4": Rational(1, 2)}, "byte", default="fp16",
                           case_insensitive=True, symbol="b", doc="Weight storage precision.")

    Expressions use the symbol it binds to (the option's number, in ``unit``); people pass
    the option's name, and any other name is refused with the list of options.
    """

    def __init__(self, options: dict[str, Any], unit: str = "", *, default: Any = REQUIRED,
                 case_insensitive: bool = False, symbol: str | None = None, doc: str = "") -> None:
        if not options or not all(isinstance(k, str) for k in options):
            raise DeclarationError("Choice: options must be a non-empty dict of name -> number")
        values = {key: sympy.nsimplify(value) for key, value in options.items()}
        if not all(v.is_number and v.is_positive for v in values.values()):
            raise DeclarationError(f"Choice: every option's number must be positive, got {options}")
        if case_insensitive and len({k.lower() for k in options}) != len(options):
            raise DeclarationError(f"Choice: options differ only in case: {list(options)}")
        if default is not REQUIRED and default not in options:
            raise DeclarationError(f"Choice: default {default!r} is not an option ({', '.join(options)})")
        self.options = values
        self.unit = unit
        self.default = default
        self.case_insensitive = case_insensitive
        self.latex = symbol
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        symbol = _resolved(into, name, "value", Input(self.unit, positive=True, doc=self.doc),
                           latex=self.latex or _latex_name(name))
        into.add_structured(ChoiceDecl(name, self.doc, {"value": symbol}, choice=self))
        return symbol


class Dataset(Declaration):
    """An optional dataset input; ``.training_examples`` is its count, absent when unknown."""

    def __init__(self, *, doc: str = "") -> None:
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> DatasetRef:
        examples = _resolved(into, name, "training_examples",
                             Input(integer=True, nonnegative=True, default=None, doc=f"Training examples of `{name}`."))
        into.add_structured(DatasetDecl(name, self.doc, {"training_examples": examples}))
        return DatasetRef(examples)


@dataclass(frozen=True)
class DatasetRef:
    training_examples: sympy.Symbol


class ScenarioInput(Declaration):
    """An input that is an instance of another scenario; its inputs become numbers here.

    ``network = ScenarioInput(DenseNetworkScenario)``: ``network.inputs()`` are symbols for
    the network's evaluator arguments, ready to bind a ``Sub`` of the same class;
    ``network.output("parameters")`` is a number read from the instance's output (in its
    display unit), so the contained scenario reports its own missing inputs. With
    ``optional=True`` it may be left out (None): every number it resolves to is then absent
    (outputs need it, or take their ``otherwise=`` value).

    ``same=("workload",)`` names inputs the contained instance shares with this scenario: it must
    describe the same model (GPT-3's activations added to Llama-2-7B's state would be another
    model's). Given both and differing, the instance is refused naming both values; a ``variant``
    that changes only ours rebinds the contained instance to it (``activations.variant(workload=...)``).
    """

    def __init__(self, scenario: type[Scenario], *, optional: bool = False, same: tuple[str, ...] = (),
                 doc: str = "") -> None:
        self.scenario = scenario
        self.optional = optional
        self.same = tuple(same)
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> ScenarioInputRef:
        inner = self.scenario.model
        symbols: dict[str, sympy.Basic] = {}
        rename: dict[sympy.Basic, sympy.Basic] = {}
        for decl in inner.bindable_inputs():
            spec = decl.spec
            outer = f"{name}_{decl.name}"
            if isinstance(spec, ListInput):
                symbol: sympy.Basic = sympy.IndexedBase(sympy.Symbol(outer, **decl.symbol.label.assumptions0))
            else:
                symbol = sympy.Symbol(outer, **decl.symbol.assumptions0)
            rename[decl.symbol] = symbol
            default = spec.default
            if isinstance(default, sympy.Basic) and not default.is_Number:  # computed from inputs above: ours now
                spec = copy.copy(spec)
                spec.default = default.xreplace(rename)
            elif self.optional:
                spec = copy.copy(spec)
                spec.default = None
            latex = rf"\mathrm{{{name}}}.{decl.latex}"
            into.add_input(InputDecl(outer, symbol, spec, latex, structured=name, resolves=decl.name))
            symbols[decl.name] = symbol
        for shared in self.same:
            if shared not in inner.input_order:
                raise DeclarationError(f"{into.name}: ScenarioInput {name} same={shared!r}: {inner.name} has no input "
                                       f"{shared!r}")
            if shared not in into.input_order:
                raise DeclarationError(f"{into.name}: ScenarioInput {name} same={shared!r}: declare the input "
                                       f"{shared!r} above it")
        into.add_structured(ScenarioInputDecl(name, self.doc, dict(symbols), optional=self.optional, scenario=inner,
                                              same=self.same))
        return ScenarioInputRef(name, symbols, into, inner, self.optional)


class ScenarioInputRef:
    """The numbers a scenario input resolves to, by the inner scenario's argument names."""

    def __init__(self, name: str, symbols: dict[str, sympy.Basic], model: ScenarioModel | None = None,
                 inner: ScenarioModel | None = None, optional: bool = False) -> None:
        self._name = name
        self._symbols = symbols
        self._model = model
        self._inner = inner
        self._optional = optional

    def inputs(self, **overrides: Any) -> dict[str, Any]:
        """Bindings for a ``Sub`` of the same scenario class, with ``overrides`` replacing some."""
        return {**self._symbols, **overrides}

    def output(self, path: str) -> sympy.Symbol:
        """The number the given instance's output ``path`` has (``activations[full]``), in its display unit."""
        assert self._model is not None and self._inner is not None
        quantity = next((q for q in self._inner.quantities if q.name == path and isinstance(q, ScalarQuantity) and not q.hidden),
                        None)
        if quantity is None:
            raise DeclarationError(f"scenario input {self._name} ({self._inner.name}) has no scalar output {path!r}")
        outer = f"{self._name}_{re.sub(r'[^A-Za-z0-9_]', '_', path.replace(']', ''))}"
        existing = next((d.symbol for d in self._model.inputs if d.name == outer), None)
        if existing is not None:
            return existing
        symbol = sympy.Symbol(outer, real=True)
        spec = Input(quantity.unit, default=None if self._optional else REQUIRED,
                     doc=f"`{path}` of `{self._name}`: {quantity.doc}")
        self._model.add_input(InputDecl(outer, symbol, spec, rf"\mathrm{{{self._name}}}.{quantity.latex}",
                                        structured=self._name, resolves=f"output:{path}"))
        decl = next(s for s in self._model.structured if s.name == self._name)
        decl.resolved[f"output:{path}"] = symbol
        return symbol

    def __getattr__(self, name: str) -> sympy.Basic:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._symbols[name]
        except KeyError:
            raise DeclarationError(f"scenario input {self._name} has no input {name!r}") from None


class Require(Declaration):
    """A condition between inputs, checked when an instance is built: ``Require(hi >= lo, "...")``.

    Inputs it mentions must be present even when optional on their own. ``unless=x`` names an
    optional input whose presence waives the condition: ``Require(nodes <= 1, "inter_bandwidth
    is needed across nodes", unless=inter_bandwidth)`` makes an input needed only in some cases.
    ``when=x`` is the converse: the condition is checked only when the optional input ``x`` is
    given, so ``Require(k * d >= 1, "k and d must be given with adapter_rank", when=adapter_rank)`` makes
    inputs needed only beside another (the inputs it names stay optional otherwise).
    Such a condition proves nothing about the domains (it may not hold).
    """

    def __init__(self, condition: sympy.Basic, message: str, *, unless: sympy.Symbol | None = None,
                 when: sympy.Symbol | None = None) -> None:
        if not isinstance(condition, sympy.core.relational.Relational):
            raise DeclarationError(f"Require: expected a comparison such as a >= b, got {condition!r}")
        for keyword, given in (("unless", unless), ("when", when)):
            if given is not None and (not isinstance(given, sympy.Symbol) or given in condition.free_symbols):
                raise DeclarationError(f"Require: {keyword} must be an input the condition does not read, got {given!r}")
        if unless is not None and when is not None:
            raise DeclarationError("Require: give unless or when, not both")
        self.condition = condition
        self.unless = unless
        self.when = when
        self.doc = message

    def bind(self, name: str, into: ScenarioModel) -> None:
        names = {"unless": "", "when": ""}
        for keyword, given in (("unless", self.unless), ("when", self.when)):
            if given is None:
                continue
            decl = next((d for d in into.inputs if d.symbol == given), None)
            if decl is None or decl.spec.default is REQUIRED:
                raise DeclarationError(f"{into.name}: Require {keyword}={given}: not an optional input declared above")
            names[keyword] = decl.name
        into.requirements.append(RequirementDecl(name, self.condition, self.doc, names["unless"], names["when"]))


class Sub(Declaration):
    """A contained scenario whose inputs are bound to expressions of this one.

    ``host = Sub(HostDispatchScenario, title="Host work of: {name}", description=...,
    ops_per_block=forward_ops + 1, device_time=compute_time + memory_time)``. Unbound
    inputs take their defaults; the contained outputs become ``host.<output>`` symbols.
    With ``public=False`` the contained scenario is a step of this one, not an attribute.
    For a public one the generated evaluator calls the contained one's ``evaluate`` (and its
    gradient its ``gradient``) with the bound values, so those bindings may not need optional
    inputs here; a private one's evaluator computes only the steps this scenario reads.
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
        arguments = inner.bindable_inputs()
        unknown = sorted(set(self.bindings) - {decl.name for decl in arguments})
        if unknown:
            raise DeclarationError(f"{into.name}: Sub {name} binds unknown inputs of {inner.name}: {', '.join(unknown)}")
        if inner.structured and self.public and any(not isinstance(s, DatasetDecl) for s in inner.structured):
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
            into.add_quantity(ScalarQuantity(f"{name}.{decl.name}", symbol, expr, decl.spec.unit, decl.spec.doc,
                                             rf"{_latex_name(name)}.{decl.latex}", sub=name, bound_input=True,
                                             hidden=not self.public))
        methods = method_quantities(inner)  # methods of the contained class, called on it, not copied here
        for quantity in inner.quantities:
            if quantity.symbol in methods:
                continue
            if isinstance(quantity.symbol, sympy.IndexedBase):
                symbol = sympy.IndexedBase(sympy.Symbol(f"{name}.{quantity.symbol.label}", **quantity.symbol.label.assumptions0))
            else:
                symbol = sympy.Symbol(f"{name}.{quantity.name}", **quantity.symbol.assumptions0)
            rename[quantity.symbol] = symbol
            copied = replace(  # the same kind of quantity, renamed into this scenario
                quantity, name=f"{name}.{quantity.name}", symbol=symbol, expr=quantity.expr.xreplace(rename),
                latex=rf"{_latex_name(name)}.{quantity.latex}", sub=name, hidden=quantity.hidden or not self.public,
                table="", key="", bound_input=False)
            if isinstance(copied, ListQuantity):
                copied = replace(copied, limits=tuple(part.xreplace(rename) for part in copied.limits),
                                 inner=tuple(part.xreplace(rename) for part in copied.inner))
            into.add_quantity(copied)
        into.contains[name] = inner
        into.bindings[name] = {decl.name: rename[decl.symbol] for decl in arguments}
        if self.public:
            into.add_output(SubDecl(name, self.doc, "", scenario=inner, sub=self))
        else:
            into.claim(name)
        return SubRef(name, rename, inner)


class SubRef:
    """What a class body sees for a contained scenario: its outputs as symbols."""

    def __init__(self, name: str, rename: dict[sympy.Basic, sympy.Basic], inner: ScenarioModel) -> None:
        self._name = name
        self._inner = inner
        self._by_name = {}
        for quantity in inner.quantities:
            if quantity.symbol not in rename:  # a method of the contained class
                continue
            short = quantity.name.split(".")[-1] if quantity.group else quantity.name
            self._by_name[short] = rename[quantity.symbol]

    def __getattr__(self, output: str) -> sympy.Basic:
        if output.startswith("_"):
            raise AttributeError(output)
        try:
            return self._by_name[output]
        except KeyError:
            raise DeclarationError(f"{self._inner.name} (as {self._name}) has no output {output!r}") from None


