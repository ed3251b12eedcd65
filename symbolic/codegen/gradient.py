"""Exact gradients for the evaluators, by forward-mode differentiation over the named steps."""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy.core.symbol import Str

from symbolic.codegen.contained import Contained, ContainedCall, Returned, ReturnedPartial
from symbolic.codegen.pyprint import EvaluatorPrinter, Statement, _Folder, _inline_reciprocals, _ordered, code_name
from symbolic.model.functions import MaxOver, given_inputs
from symbolic.model.functions.declared import relax_trends
from symbolic.model import ListQuantity, Quantity, ScalarQuantity, _symbols
from symbolic.runtime.errors import DeclarationError

def _relax_floors(expr: sympy.Basic) -> sympy.Basic:
    """``floor(x)`` and ``ceiling(x)`` replaced by ``x``, for differentiation (their trend)."""
    return relax_trends(expr)


class GradientState:
    """Exact partial derivatives of scalar outputs, by forward mode over the named steps.

    Each step's derivative is its own partial derivatives chained with the derivatives of
    the steps it reads, so the code grows with the steps, not with the closed forms. List
    steps are inlined into the expressions that read them first. A floor is differentiated
    as its argument (its trend); Min/Max contribute a Heaviside step (the active branch). Blocks
    guarded by optional inputs are differentiated after the main block, with respect to
    their optional inputs too, and share its derivatives.
    """

    def __init__(self, needed: list[Quantity], fold: _Folder, printer: EvaluatorPrinter,
                 names: dict[sympy.Basic, str], provided: dict[sympy.Basic, sympy.Basic] | None = None,
                 contained: Sequence[Contained] = ()) -> None:
        self.lists = {q.symbol: q for q in needed if isinstance(q, ListQuantity) and q.limits
                      and not isinstance(q.expr, Returned)}
        self.returned_lists = {q.symbol for q in needed if isinstance(q, ListQuantity) and isinstance(q.expr, Returned)}
        self.scalars = {q.symbol for q in needed if isinstance(q, ScalarQuantity)}
        self.fold, self.printer, self.names = fold, printer, names
        self.provided = provided or {}
        self.contained = {c.call: c for c in contained}
        # each call as it stands after merging repeated steps (its arguments may read an earlier copy)
        self.calls = {q.symbol: q.expr for q in needed if isinstance(q.expr, ContainedCall)}
        self.gradient_calls: dict[sympy.Basic, sympy.Dummy] = {}  # evaluate call -> its gradient call
        self.derivative: dict[tuple[sympy.Basic, sympy.Basic], sympy.Basic] = {}
        self.entries: dict[str, list[str]] = {}  # output path -> the arguments it has a derivative in
        self.temporaries = 0

    def _chained(self, quantity: Quantity, variable: sympy.Basic, calls: list[tuple[sympy.Dummy, sympy.Basic]]) -> sympy.Expr:
        """d (a value a contained call returned) / d variable: the contained gradient chained with
        the derivatives of the inputs the call binds."""
        call, path = quantity.expr.args
        contained = self.contained[call]
        arguments = dict(self.calls[call].pairs())
        total = sympy.S.Zero
        for name in contained.partials.get(str(path), ()):
            bound = arguments[name]
            inner = self.derivative.get((bound, variable))
            if inner is None:
                continue
            gradient = self.gradient_calls.get(call)
            if gradient is None:
                gradient = self.gradient_calls[call] = sympy.Dummy(f"_{contained.sub}_d")
                self.names[gradient] = f"_{contained.sub}_d"
                calls.append((gradient, call))
            total += ReturnedPartial(gradient, Str(str(path)), Str(name)) * inner
        return total

    def inline(self, expr: sympy.Basic) -> sympy.Basic:
        def body(indexed: sympy.Indexed) -> sympy.Basic:
            quantity = self.lists[indexed.base]
            return self.inline(self.fold(quantity.expr, quantity.unit)).xreplace({quantity.limits[0]: indexed.indices[0]})
        return expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in self.lists, body)

    def block(self, members: list[Quantity], variables: list[sympy.Symbol]) -> tuple[tuple[Statement, ...], str]:
        """The derivative statements of ``members`` and the literal of their entries."""
        names = self.names
        pending: list[tuple[sympy.Basic, sympy.Expr]] = []
        result: dict[str, dict[str, str]] = {}
        calls: list[tuple[sympy.Dummy, sympy.Basic]] = []  # (gradient call, its evaluate call)
        for quantity in members:
            if not isinstance(quantity, ScalarQuantity) or isinstance(quantity.expr, ContainedCall):
                continue
            returned = isinstance(quantity.expr, Returned)
            # A floor (whole steps per epoch) is differentiated as its argument: its trend. Its
            # exact derivative is 0 between the steps, which would hide that a larger batch
            # means fewer steps.
            expr = sympy.S.Zero if returned else _relax_floors(self.inline(self.fold(quantity.expr, quantity.unit)))
            if _symbols(expr) & self.returned_lists:
                raise DeclarationError(f"{quantity.name}: reads a list output of a contained scenario; its "
                                       "derivative cannot be chained (contained gradients have scalar outputs only)")
            reads = [s for s in expr.free_symbols if s in self.scalars]
            for variable in variables:
                total = self._chained(quantity, variable, calls) if returned else sympy.diff(expr, variable)
                for step in reads:
                    if (step, variable) in self.derivative:
                        total += sympy.diff(expr, step) * self.derivative[(step, variable)]
                if total == 0 or total.has(sympy.Derivative, sympy.Subs):
                    continue  # constant in this variable, or not differentiable in closed form
                target = sympy.Dummy(f"d_{code_name(quantity.name)}")
                names[target] = f"d__{code_name(quantity.name)}__{variable.name}"
                self.derivative[(quantity.symbol, variable)] = target
                pending.append((target, total))
                if not quantity.hidden:
                    result.setdefault(quantity.name, {})[variable.name] = names[target]
                    self.entries.setdefault(quantity.name, []).append(variable.name)
        indices = {limit[0] for _, e in pending for node in e.atoms(sympy.Sum, sympy.Product, MaxOver) for limit in node.limits}
        indices |= {symbol for _, e in pending for symbol in given_inputs(e)}  # None until tested: never hoisted
        replacements, reduced = sympy.cse([e for _, e in pending], symbols=sympy.numbered_symbols("_cse_grad_"),
                                          optimizations=None, ignore=tuple(indices))
        replacements, reduced = _inline_reciprocals(replacements, reduced)
        renamed = {}
        for temporary, _ in replacements:  # numbered across blocks: _g0, _g1, ...
            renamed[temporary] = sympy.Dummy(f"_g{self.temporaries}")
            names[renamed[temporary]] = f"_g{self.temporaries}"
            self.temporaries += 1
        printer = self.printer

        def read_by(expr: sympy.Basic) -> set[sympy.Basic]:  # a returned value is read from its call
            return {self.provided.get(symbol, symbol) for symbol in _symbols(expr)}

        ordered: list[tuple[sympy.Basic, str, set[sympy.Basic], tuple]] = []
        for gradient, call in calls:
            module, _, *arguments = self.calls[call].args
            invocation = ContainedCall(module, Str("gradient"), *arguments)
            ordered.append((gradient, printer.doprint(invocation), _symbols(invocation), ("call", invocation)))
        ordered += [(renamed[t], printer.doprint(e.xreplace(renamed)), read_by(e.xreplace(renamed)), ())
                    for t, e in replacements]
        ordered += [(target, printer.doprint(e.xreplace(renamed)), read_by(e.xreplace(renamed)), ())
                    for (target, _), e in zip(pending, reduced, strict=True)]
        lines = [f"        {path!r}: {{{', '.join(f'{k!r}: {v}' for k, v in entries.items())}}},"
                 for path, entries in result.items()]
        return _ordered(ordered, names), "{\n" + "\n".join(lines) + "\n    }"


