"""Contained scenarios in the evaluators: a public one is called, not inlined.

A ``Sub`` copies the contained scenario's quantities into the container's model, so the docs,
the derivations and exact evaluation read one symbolic model. For a public ``Sub`` (an
attribute: the container returns every output of it) the generated evaluator does not repeat
those steps: it calls the contained scenario's own generated ``evaluate`` once with the bound
inputs (``_host = host_dispatch_evaluate(ops_per_block=host__ops_per_block, ...)``) and reads
what the call returns (``_host['host_time']``). The gradient calls its ``gradient`` and chains
it: d out/d x = Σ_j (d out/d in_j) · (d in_j/d x) over the inputs the call binds, for the
(out, in_j) pairs the contained evaluator differentiates (its own static sparsity).

A private ``Sub`` (``public=False``) is a step of the container, which reads a few of its
values: its evaluator computes only the steps those values need, shared between copies (the
epoch model reads 4 of the dense network's 57 values, at two batches that share every
batch-independent step). Calling the whole contained evaluator twice measured 4.9x the
hand-written function there, against 1.26x for the pruned steps.

A called scenario gets every input, so a public ``Sub``'s bound inputs may not need an optional
input of the container; and the container's derivatives may not read a called list output (the
contained gradient has scalar outputs only). Both are declaration errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from collections.abc import Callable
import sympy
from sympy.core.symbol import Str

from symbolic.model import Quantity, ScalarQuantity, ScenarioModel, SubDecl
from symbolic.runtime.errors import DeclarationError


class ContainedCall(sympy.Function):
    """A generated module's ``evaluate`` or ``gradient``, called with bound arguments:
    ``ContainedCall(Str(module), Str(function), Str(name), value, Str(name), value, ...)``."""

    language_node = True  # printed by each evaluator printer's own method (not a declared math function)

    def pairs(self) -> list[tuple[str, sympy.Basic]]:
        rest = self.args[2:]
        return [(str(rest[i]), rest[i + 1]) for i in range(0, len(rest), 2)]

    @property
    def function_name(self) -> str:
        """The name the evaluator imports it as: ``host_dispatch_evaluate``."""
        return f"{self.args[0]}_{self.args[1]}"


class Returned(sympy.Function):
    """What a contained call returns at ``path``: ``Returned(call, Str("result.intensity"))``."""

    language_node = True


class ReturnedPartial(sympy.Function):
    """d output / d input from a contained gradient call: ``ReturnedPartial(call, Str(output), Str(input))``."""

    language_node = True


@dataclass(frozen=True)
class Contained:
    """One contained scenario as the evaluator calls it."""

    sub: str
    module: str  # generated/<module>.py
    call: sympy.Dummy  # the value of evaluate(...)
    partials: dict[str, tuple[str, ...]]  # contained output -> the inputs its derivative is non-zero in
    returns: frozenset[str]  # the paths its evaluate returns


def access(path: str) -> str:
    """The subscripts that read ``path`` from an evaluator's nested result: ``['result']['rate']['host']``."""
    return "".join(f"[{part!r}]" for part in re.split(r"\.|\[", path.replace("]", "")))


def called_subs(model: ScenarioModel) -> dict[str, ScenarioModel]:
    """The contained scenarios the evaluator calls: the public ones."""
    public = {output.name for output in model.outputs if isinstance(output, SubDecl)}
    return {sub: inner for sub, inner in model.contains.items() if sub in public}


def called(model: ScenarioModel, quantities: list[Quantity],
           partials_of: Callable[[ScenarioModel], dict[str, tuple[str, ...]]],
           names: dict[sympy.Basic, str]) -> tuple[list[Quantity], dict[sympy.Basic, sympy.Basic], list[Contained]]:
    """``quantities`` with each public contained scenario's steps replaced by one call: its outputs
    become ``Returned`` values of a hidden call step placed where its first step was. Fills
    ``names`` (``_host['host_time']``) and returns which call provides each returned symbol.
    ``partials_of(inner)``: the contained evaluator's output path -> the arguments its derivative reads."""
    provided: dict[sympy.Basic, sympy.Basic] = {}
    contained: list[Contained] = []
    result = list(quantities)
    for sub, inner in called_subs(model).items():
        inner_partials = partials_of(inner)
        returned = {q.name for q in inner.quantities if not q.hidden}
        call = sympy.Dummy(f"_{sub}")
        names[call] = f"_{sub}"
        keys = {decl.name: decl.symbol.name if decl.symbol.is_Symbol else decl.name for decl in inner.evaluator_inputs()}
        partials = {path: tuple(name for name, key in keys.items() if key in entries)
                    for path, entries in inner_partials.items()}
        module = inner.module.rsplit(".", 1)[-1]
        contained.append(Contained(sub, module, call, partials, frozenset(returned)))
        first = None
        for position, quantity in enumerate(result):
            if quantity.sub != sub or quantity.bound_input:
                continue
            path = quantity.name.removeprefix(f"{sub}.")
            first = position if first is None else first
            result[position] = replace(quantity, expr=Returned(call, Str(path)))
            provided[quantity.symbol] = call
            names[quantity.symbol] = f"_{sub}{access(path)}"
        arguments = [part for name, symbol in model.bindings[sub].items() for part in (Str(name), symbol)]
        step = ScalarQuantity(f"_{sub}", call, ContainedCall(Str(module), Str("evaluate"), *arguments), "", "", "",
                              hidden=True)
        result.insert(first if first is not None else len(result), step)
    return result, provided, contained


def check_calls(model: ScenarioModel, needed: list[Quantity], guards: dict[sympy.Basic, tuple[str, ...]],
                contained: list[Contained]) -> None:
    """A call runs with every input given, and reads only what the contained evaluator returns."""
    by_call = {c.call: c for c in contained}
    for quantity in needed:
        if isinstance(quantity.expr, Returned) and str(quantity.expr.args[1]) not in by_call[quantity.expr.args[0]].returns:
            c = by_call[quantity.expr.args[0]]
            raise DeclarationError(f"{model.name}: reads {quantity.name}, a hidden step of the contained scenario "
                                   f"{c.sub} (its evaluator does not return it); read one of its outputs")
        if isinstance(quantity.expr, ContainedCall) and guards.get(quantity.symbol):
            c = by_call[quantity.symbol]
            raise DeclarationError(
                f"{model.name}: Sub {c.sub} binds an input to a value that needs the optional input(s) "
                f"{', '.join(guards[quantity.symbol])}; a contained scenario is called with every input given")
