"""Derivations from a scenario's declaration: closed forms, derivatives, scaling (solving:
``symbolic.analysis.solving``).

Everything here is exact sympy over the same expressions the evaluators are generated
from. Symbols stand for physical values in base units (a declared ``µs`` input ``x`` is
``10⁻⁶·x`` seconds), so numbers for an instance are substituted in base units and
answers are converted back to the declared unit of the input solved for.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Iterable
from typing import Any

from symbolic.runtime.errors import MlsysymError, require_extra

require_extra("symbolic.analysis.derive (scaling, closed forms)")

import sympy  # noqa: E402 (after the check that names the extra to install)
from sympy.printing.str import StrPrinter  # noqa: E402

from symbolic.analysis.closed import closed_form as shared_closed_form  # noqa: E402
from symbolic.analysis.dimensions import scale_of_unit  # noqa: E402
from symbolic.model.functions import Given, Len, MaxOver  # noqa: E402
from symbolic.model.functions.declared import NotPowerLaw, lookup, relax_trends  # noqa: E402
from symbolic.analysis.list_entries import EntryError, entry_form, split  # noqa: E402
from symbolic.model import UNIT_SYMBOLS, InputDecl, ListQuantity, Quantity, ScalarQuantity, ScenarioModel  # noqa: E402
from symbolic.scenarios.discover import discover  # noqa: E402
from symbolic.runtime.scenario import ScenarioBase  # noqa: E402


class DerivationError(MlsysymError, ValueError):
    """A derivation that cannot be done, with the reason (e.g. inverting a floor)."""


@lru_cache(maxsize=None)
def _models() -> dict[str, ScenarioModel]:
    return {module.model.name: module.model for module in discover()}


def model_of(name: str) -> ScenarioModel:
    """The declaration of a scenario class, by class name."""
    models = _models()
    if name not in models:
        import difflib

        close = difflib.get_close_matches(name, list(models), n=3)
        raise DerivationError(f"no scenario class {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return models[name]


def quantity(model: ScenarioModel, name: str) -> Quantity:
    """An output (or table entry, group field, contained output) by its path, e.g. ``result.rate[host]``."""
    for candidate in model.quantities:
        if candidate.name == name and not candidate.hidden and isinstance(candidate, ScalarQuantity):
            return candidate
    import difflib

    names = [q.name for q in model.quantities if not q.hidden and isinstance(q, ScalarQuantity)]
    close = difflib.get_close_matches(name, names, n=3)
    base = name.partition("[")[0]
    listed = any(isinstance(q, ListQuantity) and q.name == base for q in model.quantities)
    entry = f"; {base!r} is a list output, and this takes one scalar output" if listed else ""
    hint = (f"; did you mean {', '.join(close)}?" if close else
            f"; its scalar outputs: {', '.join(names)}" if names else "; it has no scalar output")
    raise DerivationError(f"{model.name} has no scalar output {name!r}{entry}{hint}")


def input_decl(model: ScenarioModel, name: str) -> InputDecl:
    """A numeric scalar input (or a number a structured input resolves to) by name."""
    for decl in model.evaluator_inputs():
        if decl.name == name:
            if not decl.symbol.is_Symbol:
                raise DerivationError(f"{model.name}.{name} is a list; solve for a scalar input")
            return decl
    import difflib

    names = [d.name for d in model.evaluator_inputs() if d.symbol.is_Symbol]
    close = difflib.get_close_matches(name, names, n=3)
    raise DerivationError(f"{model.name} has no numeric input {name!r}"
                          + (f"; did you mean {', '.join(close)}?" if close else f" (inputs: {', '.join(names)})"))


def closed_form(subject: Any, output: str, simplify: bool = True) -> sympy.Expr:
    """``output`` in terms of the inputs only (simplified unless asked not to); ``subject`` is a
    scenario instance, class, class name or model."""
    return _closed_form(_Key(subject_of(subject)[0]), output, simplify)


class _Key:
    """Hashes a model by identity, for caches (models are mutable dataclasses)."""

    def __init__(self, model: ScenarioModel) -> None:
        self.model = model

    def __hash__(self) -> int:
        return id(self.model)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and other.model is self.model


@lru_cache(maxsize=1024)
def _closed_form(key: _Key, output: str, simplify: bool) -> sympy.Expr:
    return shared_closed_form(key.model, quantity(key.model, output), simplify)


class _NumbersPrinter(StrPrinter):
    """sympy's text printer, with chosen symbols shown as given text and the unit markers
    (``[flop]``, ``[s]``...) as 1 (every symbol is in base units). Printing the original
    expression, rather than one with the numbers put in, keeps the terms in the order of
    the definition."""

    def __init__(self, shown: dict[sympy.Basic, str]) -> None:
        super().__init__()
        self.shown = shown

    def _print(self, expr: Any, **kwargs: Any) -> str:
        # before the class dispatch: an Indexed prints itself through its own method, so a
        # _print_Indexed override would never see it
        if isinstance(expr, sympy.Basic) and expr in self.shown:
            return self.shown[expr]
        return super()._print(expr, **kwargs)

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        if expr in UNIT_SYMBOLS:
            return "1"
        return super()._print_Symbol(expr)


def printed(expr: sympy.Basic, shown: dict[sympy.Basic, str] | None = None) -> str:
    """``expr`` as text, unit markers dropped (base units), ``shown`` symbols as their text."""
    return _NumbersPrinter(shown or {}).doprint(expr.xreplace({s: sympy.S.One for s in UNIT_SYMBOLS}))


def unrolled(expr: sympy.Basic, integers: dict[sympy.Basic, int], lengths: dict[sympy.Basic, int],
             most: int = 16) -> sympy.Basic:
    """``expr`` with every sum and maximum over a range that ``integers`` (whole-number symbols)
    and ``lengths`` (of lists) fix written out term by term, up to ``most`` terms each: what
    ``explain`` shows so that a list's entries appear as numbers, not as ``Sum(w[l], ...)``."""
    fixed = {sym: sympy.Integer(value) for sym, value in integers.items()}

    def concrete(bound: sympy.Basic) -> sympy.Basic:
        bound = bound.replace(lambda e: isinstance(e, Len) and e.args[0] in lengths,
                              lambda e: sympy.Integer(lengths[e.args[0]]))
        return bound.xreplace(fixed)

    def expand(node: sympy.Basic) -> sympy.Basic:
        *inner, (index, low, high) = node.limits  # the last range is the outermost
        low, high = concrete(low), concrete(high)
        if not (low.is_Integer and high.is_Integer) or high - low + 1 > most:
            return node
        body = type(node)(node.function, *inner) if inner else node.function
        terms = [body.xreplace({index: sympy.Integer(k)}) for k in range(int(low), int(high) + 1)]
        if isinstance(node, MaxOver):
            return sympy.Max(*terms, evaluate=False) if len(terms) > 1 else (terms[0] if terms else node)
        return sympy.Add(*terms, evaluate=False) if terms else sympy.S.Zero

    for _ in range(3):  # nested ranges: the inner one is fixed once the outer one is written out
        expr = expr.replace(lambda e: isinstance(e, (sympy.Sum, MaxOver)), expand)
    return expr


def base_values(model: ScenarioModel, args: dict[str, Any]) -> dict[sympy.Basic, Any]:
    """Exact base-unit values of an instance's evaluator arguments (lists as lists)."""
    values: dict[sympy.Basic, Any] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
    for decl in model.evaluator_inputs():
        value = args.get(decl.name)
        default = decl.spec.default
        if value is None and isinstance(default, sympy.Basic) and not default.is_Number:
            computed = default.xreplace(values)  # a default computed from inputs above it (all in base units)
            if computed.is_number:
                values[decl.symbol] = computed
            continue
        if value is None:
            continue
        scale = scale_of_unit(decl.spec.unit)
        if isinstance(value, list):
            values[decl.symbol] = [sympy.nsimplify(v, rational=True) * scale for v in value]
        else:
            values[decl.symbol] = sympy.nsimplify(value, rational=True) * scale
    return values


def defaults_put_in(expr: sympy.Basic, model: ScenarioModel, args: dict[str, Any],
                     unknown: dict[sympy.Basic, sympy.Basic]) -> sympy.Basic:
    """``expr`` with each input the instance leaves to an expression default (a sequence length
    defaulting to the workload's context) replaced by that expression, latest first so chains
    resolve, and so a default that reads the unknown keeps depending on it."""
    for decl in reversed(model.evaluator_inputs()):
        default = decl.spec.default
        if args.get(decl.name) is None and isinstance(default, sympy.Basic) and not default.is_Number:
            expr = expr.xreplace({decl.symbol: default.xreplace(unknown)})
    return expr


def substitute(expr: sympy.Basic, values: dict[sympy.Basic, Any],
               free: frozenset[sympy.Basic] = frozenset()) -> sympy.Basic:
    """``expr`` with instance values put in (lists expanded through their sums and maxima);
    the symbols in ``free`` stay variables (inputs not held at a value), the others not in
    ``values`` are inputs the instance left out."""
    lists = {s: v for s, v in values.items() if isinstance(v, list)}
    scalars = {s: v for s, v in values.items() if not isinstance(v, list)}
    expr = expr.xreplace(scalars)
    # An optional input still a symbol here was not given: its Given(...) branch is not taken.
    expr = expr.replace(lambda e: isinstance(e, Given),
                        lambda e: sympy.false if any(not isinstance(s, sympy.Dummy) and s not in free
                                                     for s in e.inputs()) else e)
    expr = expr.replace(lambda e: isinstance(e, Len) and e.args[0] in lists,
                        lambda e: sympy.Integer(len(lists[e.args[0]])))
    expr = expr.doit()
    expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in lists,
                        lambda e: lists[e.base][int(e.indices[0])])
    return expr.doit()


def is_entry(model: ScenarioModel, path: str) -> bool:
    """Whether ``path`` names one entry of a keyed list output (``result.ring_time[64]``)."""
    try:
        return split(model, path) is not None
    except EntryError as error:
        raise DerivationError(str(error)) from None


def output_form(model: ScenarioModel, name: str, keys: dict[str, list[str]] | None) -> tuple[str, sympy.Basic]:
    """``(unit, unsimplified closed form)`` of a scalar output or of one entry of a keyed list output."""
    if not is_entry(model, name):
        found = quantity(model, name)
        return found.unit, closed_form(model, found.name, simplify=False)
    try:
        return entry_form(model, name, keys)
    except EntryError as error:
        raise DerivationError(str(error)) from None


def subject_of(subject: Any) -> tuple[ScenarioModel, dict[str, Any] | None]:
    """The declaration behind ``subject`` (an instance, a scenario class, its name or its
    model) and, for an instance, its evaluator arguments."""
    if isinstance(subject, ScenarioModel):
        return subject, None
    if isinstance(subject, ScenarioBase):
        return model_of(type(subject).__name__), subject._args
    if isinstance(subject, type) and issubclass(subject, ScenarioBase):
        return model_of(subject.__name__), None
    if isinstance(subject, str):
        return model_of(subject), None
    raise DerivationError(f"expected a scenario instance, a scenario class or its name, got {subject!r}")


def derivative(subject: Any, output: str, with_respect_to: str) -> sympy.Expr:
    """The exact partial derivative of an output's closed form (in base units); a floor
    counts as its argument (its trend; its exact derivative is 0 between steps)."""
    return _derivative(_Key(subject_of(subject)[0]), output, with_respect_to)


@lru_cache(maxsize=1024)
def _derivative(key: _Key, output: str, with_respect_to: str) -> sympy.Expr:
    decl = input_decl(key.model, with_respect_to)
    form = closed_form(key.model, output, simplify=False)
    # A floor is differentiated as its argument (its trend), as in the generated gradients.
    form = relax_trends(form)
    return sympy.diff(form, decl.symbol)


def growth(expr: sympy.Basic, variables: set[sympy.Basic]) -> sympy.Rational:
    """The leading power of ``expr`` as every variable grows together (x -> t·x, t -> ∞).

    Sums take their largest power, products add, Min/Max take the smaller/larger (the
    branch that wins asymptotically), floors follow their argument, list sums count their
    terms' power in the list entries.
    """
    if expr.is_Number:
        return sympy.Integer(0)
    if expr in variables or (isinstance(expr, sympy.Indexed) and expr.base in variables):
        return sympy.Integer(1)
    if expr.is_Symbol or isinstance(expr, (sympy.Indexed, Len)):
        return sympy.Integer(0)
    if isinstance(expr, sympy.Add):
        return max(growth(arg, variables) for arg in expr.args)
    if isinstance(expr, sympy.Mul):
        return sum((growth(arg, variables) for arg in expr.args), sympy.Integer(0))
    if isinstance(expr, sympy.Pow) and expr.exp.is_Number:
        return growth(expr.base, variables) * expr.exp
    if isinstance(expr, sympy.Pow) and not (expr.exp.free_symbols & variables):
        return growth(expr.base, variables) * expr.exp  # m^(-α) grows as the power -α of m
    if isinstance(expr, sympy.Pow):
        raise DerivationError(f"{expr} has a growing input in its exponent: not a power law")
    declared = lookup(expr)
    if declared is not None and declared.growth is not None:  # its declaration's rule (symbolic.model.functions)
        try:
            return declared.growth(expr, lambda arg: growth(arg, variables))
        except NotPowerLaw as error:
            raise DerivationError(str(error)) from None
    if isinstance(expr, (sympy.Sum, MaxOver)):
        return growth(expr.function, variables)
    if isinstance(expr, sympy.Product):
        if growth(expr.function, variables) == 0:
            return sympy.Integer(0)
        raise DerivationError(f"a product over a list grows with the list's length: {expr}")
    raise DerivationError(f"no growth rule for {type(expr).__name__}: {expr}")


GROWTH_WORDS = {0: "constant", 1: "linear", 2: "quadratic", 3: "cubic", -1: "inverse"}


def growth_word(power: Any) -> str:
    """``1`` -> "linear", ``-1`` -> "inverse", ``3/2`` -> "power 3/2", None -> "not a power law"."""
    if power is None:
        return "not a power law"
    if sympy.sympify(power).is_Integer and int(power) in GROWTH_WORDS:
        return GROWTH_WORDS[int(power)]
    return f"power {power}"


@dataclass
class Scaling:
    output: str
    per_input: dict[str, sympy.Expr | None]  # leading power in each input alone (None: not a power law)
    overall: sympy.Expr | None  # leading power when every input grows together
    polynomial: bool


def _growth_or_none(expr: sympy.Basic, variables: set[sympy.Basic]) -> sympy.Expr | None:
    """The leading power, or None where the growth is not a power law (2^(1/α) in α)."""
    try:
        return growth(expr, variables)
    except (DerivationError, TypeError):  # TypeError: two symbolic powers sympy cannot order
        return None


def scaling(subject: Any, output: str, held: Iterable[str] = ()) -> Scaling:
    """Leading-order growth of ``output`` in each input, and overall; ``subject`` is a
    scenario instance, class, class name or model (growth is a property of the class).

    ``held`` names inputs of an instance ``subject`` kept at its values (``mlsysym scaling
    --set``): their numbers are put in first, so a term they make 0, or a branch an input
    they leave out decides, drops out; growth is then in the other inputs.

        >>> from generated import Scenarios
        >>> total = scaling(Scenarios.PhoneFullUpdateWorkingSet, "total")
        >>> total.per_input["parameters"], total.overall, total.polynomial
        (1, 3, True)
    """
    model, args = subject_of(subject)
    form = closed_form(model, output)
    names = set(held)
    fixed = {d.symbol for d in model.evaluator_inputs() if d.name in names or d.structured in names}
    if names:
        if args is None:
            raise DerivationError(f"scaling of {model.name}: holding {', '.join(sorted(names))} at a value needs an "
                                  "instance (a registry entry, or a class with its inputs set)")
        free = frozenset(s for d in model.evaluator_inputs() if d.symbol not in fixed
                         for s in (d.symbol, getattr(d.symbol, "label", d.symbol)))
        values = {symbol: value for symbol, value in base_values(model, args).items() if symbol in fixed}
        form = sympy.simplify(substitute(form, values, free))
    inputs = [d for d in model.evaluator_inputs() if d.symbol not in fixed and (
        d.symbol in form.free_symbols or (isinstance(d.symbol, sympy.IndexedBase) and form.has(d.symbol)))]
    per_input = {d.name: _growth_or_none(form, {d.symbol}) for d in inputs}
    overall = _growth_or_none(form, {d.symbol for d in inputs})
    denominator = sympy.denom(sympy.together(form))
    polynomial = not form.has(sympy.Min, sympy.Max, sympy.floor, sympy.ceiling, MaxOver) and not any(
        denominator.has(d.symbol) for d in inputs)
    return Scaling(quantity(model, output).name, per_input, overall, polynomial)
