"""Methods with an argument: parameterised outputs (``s.transfer_time("NVLink")``, ``s.saved_time(64)``).

An ``Argument`` is declared like an input, with a unit and a domain, and an output whose
expression reads it (directly, or through other outputs that read it) is a *method* of the
class, with the argument as its parameter::

    target = Argument(positive=True, at_most=1, symbol=r"\\beta^*", doc="The bubble wanted.")
    microbatches_for_bubble = Output((stages - 1) * (1 - target) / target, doc="...")
    # -> s.microbatches_for_bubble(0.1) == 27.0 for four stages

It is generated like every output (one expression printed into the Python and JavaScript
evaluators, the docs' LaTeX with the argument's symbol, gradients, ``solve``), because to the
evaluator an argument is one more optional input: the method validates the value it is given
like an input, calls the evaluator with it and returns the output. Several outputs may share
one argument (``step_bytes(b)``, ``step_time(b)``, ``token_rate(b)``); an output reading two
arguments takes both, in declaration order (``growth(height, width)``).

- ``keyword=`` is the parameter's name when the class-body name differs from it (the
  reference's ``activations_at(batch_size)`` beside an input ``batch_size``).
- ``default=``: a number, or an expression of inputs declared above (``requests`` defaults to
  the input ``users``); without one the argument must be given.
- ``key_of=links``: the argument is a key of the keyed list input ``links``
  (``transfer_time("NVLink")``); the expression reads ``links[link]``.
- ``example=``: the value the docs' worked examples and the calculator show.

Only scalar top-level outputs may read an argument (a list, table or group member that read
one would be a list of methods); requirements and input defaults may not.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy

from symbolic.model.collected import (
    InputDecl,
    MethodDecl,
    ScalarDecl,
    ScenarioModel,
    _latex_name,
    _symbols,
)
from symbolic.model.declarations import _IDENTIFIER, Input
from symbolic.model.dependencies import reads
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED


class Argument(Input):
    """The argument of one or more methods: a number with a unit and a domain, or a key of a keyed list input."""

    def __init__(self, unit: str = "", *, keyword: str | None = None, key_of: sympy.IndexedBase | None = None,
                 example: Any = None, default: Any = REQUIRED, **domain: Any) -> None:
        if key_of is not None and (unit or domain.keys() - {"symbol", "doc"}):
            raise DeclarationError("Argument(key_of=...): a key has no unit or domain of its own; it names an "
                                   "entry of the keyed list input")
        if key_of is not None and not isinstance(key_of, sympy.IndexedBase):
            raise DeclarationError(f"Argument(key_of=...) takes a keyed ListInput declared above, not {key_of!r}")
        if keyword is not None and not _IDENTIFIER.match(keyword):
            raise DeclarationError(f"Argument: keyword {keyword!r} is not an identifier")
        if key_of is not None:  # the evaluator reads the entry's position in the dict
            domain = {**domain, "integer": True, "nonnegative": True}
        self.required = default is REQUIRED
        # To the evaluator every argument is optional: the outputs reading it are computed when it is given.
        super().__init__(unit, default=None if self.required else default, **domain)
        self.keyword = keyword
        self.key_of = "" if key_of is None else str(key_of.label)
        self.example = example

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        if self.key_of:
            source = next((d for d in into.inputs if d.name == self.key_of and not d.argument), None)
            if source is None or not getattr(source.spec, "keyed", False):
                raise DeclarationError(f"{into.name}: argument {name} is a key of {self.key_of!r}, which is not a "
                                       "keyed ListInput declared above it")
        if isinstance(self.default, sympy.Basic) and not self.default.is_Number:
            stray = [s for s in _symbols(self.default) if any(d.symbol == s and d.argument for d in into.inputs)]
            if stray:
                raise DeclarationError(f"{into.name}: argument {name}'s default reads the argument {stray[0]}")
        symbol = sympy.Symbol(name, **_assumptions_of(self))
        keyword = self.keyword or name
        into.add_input(InputDecl(name, symbol, self, self.latex or _latex_name(keyword), argument=keyword))
        return symbol


def argument_spec(decl: InputDecl) -> Argument:
    """The ``Argument`` declaration of a method's argument."""
    if not isinstance(decl.spec, Argument):
        raise DeclarationError(f"{decl.name} is not a method argument")
    return decl.spec


def _assumptions_of(spec: Input) -> dict[str, bool]:
    assumptions = {"integer": True} if spec.integer else {"real": True}
    if spec.positive:
        assumptions["positive"] = True
    elif spec.nonnegative:
        assumptions["nonnegative"] = True
    return assumptions


def method_quantities(model: ScenarioModel) -> set[sympy.Basic]:
    """The symbols of the quantities that read a method argument (directly or through others):
    a containing scenario does not copy them, as they are methods of the contained class."""
    return {symbol for symbol, found in _argument_needs(model).items() if found}


def _argument_needs(model: ScenarioModel) -> dict[sympy.Basic, set[sympy.Basic]]:
    """For each quantity, the arguments it reads, directly or through the quantities it reads."""
    arguments = {decl.symbol for decl in model.inputs if decl.argument}
    needs: dict[sympy.Basic, set[sympy.Basic]] = {}
    for quantity in model.quantities:  # declaration order: what a quantity reads is declared above it
        found = {s for s in reads(quantity) if s in arguments}
        for symbol in reads(quantity):
            found |= needs.get(symbol, set())
        needs[quantity.symbol] = found
    return needs


def close_methods(model: ScenarioModel) -> None:
    """At the end of the class body: each top-level scalar output reading arguments becomes a method
    of them; an argument read by nothing, or read where a method cannot be, is an error."""
    arguments = {decl.symbol: decl for decl in model.inputs if decl.argument}
    if not arguments:
        return
    needs = _argument_needs(model)
    order = list(arguments)
    by_path = {q.name: (position, q) for position, q in enumerate(model.quantities)}
    read_by_methods: set[sympy.Basic] = set()
    for position, output in enumerate(model.outputs):
        found = [q for q in model.quantities if _belongs(q.name, output.name) and needs[q.symbol]]
        if not found:
            continue
        names = ", ".join(str(s) for s in sorted(set().union(*(needs[q.symbol] for q in found)), key=order.index))
        if not isinstance(output, ScalarDecl):
            raise DeclarationError(f"{model.name}: {found[0].name} reads the argument {names}, but only a top-level "
                                   "scalar output can be a method (a list, table or group member cannot)")
        index, quantity = by_path[output.name]
        used = sorted(needs[quantity.symbol], key=order.index)
        read_by_methods |= set(used)
        model.outputs[position] = MethodDecl(output.name, output.doc, output.unit, output.if_missing,
                                             arguments=tuple(arguments[s] for s in used), labels=output.labels)
        shown = ", ".join(arguments[s].latex for s in used)
        model.quantities[index] = replace(quantity, latex=rf"{quantity.latex}\left({shown}\right)")
    for requirement in model.requirements:
        if _symbols(requirement.condition) & set(arguments):
            raise DeclarationError(f"{model.name}: the condition {requirement.message!r} reads a method argument; "
                                   "an argument is given to each call, not to the instance")
    for decl in model.inputs:
        if not decl.argument and isinstance(decl.spec.default, sympy.Basic) and \
                _symbols(decl.spec.default) & set(arguments):
            raise DeclarationError(f"{model.name}: input {decl.name}'s default reads a method argument")
    unused = [decl.name for symbol, decl in arguments.items() if symbol not in read_by_methods]
    if unused:
        raise DeclarationError(f"{model.name}: argument {unused[0]} is read by no output")


def _belongs(path: str, output: str) -> bool:
    """Whether the quantity ``path`` is (part of) the top-level output ``output``."""
    return path == output or path.startswith((f"{output}.", f"{output}["))
