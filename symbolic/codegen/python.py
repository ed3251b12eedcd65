"""The evaluator: declared expressions folded to display units, CSE'd, printed as Python.

Each input arrives as a number in its declared unit and each output leaves in its
display unit, so every symbol ``x`` stands for ``scale(x) * x`` in base units; the
generator substitutes that, divides by the output's scale, and lets sympy fold the
exact rational factors. Where all scales are 1 nothing changes, so integer counts stay
exact Python ints. Outputs that need an optional input are computed in a block guarded
by ``is not None`` and are None otherwise; hidden steps that no output reads are dropped.
A public contained scenario (``Sub``) is one call of its own generated evaluator, not a copy of
its steps; a private one contributes only the steps read here (symbolic.codegen.contained).

Unit factors round once where they can (``_Folder`` in symbolic.codegen.pyprint):

* A folded factor ``p/q`` prints as ``p*n/(q*d)``, in Python and JavaScript alike: a division
  by the exact integer ``q`` (``hardware_peak/1000000000000``), never a product with the
  rounded reciprocal ``(1/q)``; ``p`` times an exact int, and ``q`` times an integer
  denominator, round nothing.
* A step folded to ``c * G`` with an inexact factor ``c`` (not ±2**k) can be read raw: a
  reader whose own fold would rescale its display value by an inexact constant reads ``c * G``
  instead and folds ``c`` into its own exact constant, so scales that cancel cancel exactly
  (``compute_time = 1000000*total_flops/hardware_peak``, not ``total_flops/peak_rate/1000000``
  of a peak rate already rounded to TFLOP/s). Where the reader's fold keeps display values
  unscaled (``compute_time + memory_time``, both in µs) it reads them. ``G`` is the step's
  fold with its own reads raw; when it is more than one symbol, ``_raw_<step> = G`` is
  computed in each block that reads it (in JavaScript as doubles, never a checked integer
  product: a raw value is only ever scaled), and the step becomes ``c*_raw_<step>`` where
  that costs no extra rounding.
* Gradients (symbolic.codegen.gradient) differentiate the display folds: unchanged, exact.

``make bench`` reports every registry float output's error in ulp against exact sympy
(benchmarks/rounding.py); tests/codegen/test_rounding.py holds its bounds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy

from symbolic.codegen.contained import ContainedCall, Returned, called, check_calls
from symbolic.codegen.gradient import GradientState
from symbolic.codegen.pyprint import (
    EvaluatorPrinter,
    Statement,
    _Folder,
    _inline_reciprocals,
    _ordered,
    code_name,
    python_code,
)
from symbolic.model.functions import Given, MaxOver, given_inputs
from symbolic.model.functions.declared import python_helper_sources
from symbolic.model import ListQuantity, Quantity, ScalarQuantity, ScenarioModel, TextQuantity, _symbols
from symbolic.model.arguments import argument_spec
from symbolic.model.dependencies import closure, reads
from symbolic.model.feasibility import guarded_outputs
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED

__all__ = ["Evaluator", "build_evaluator", "code_name"]


@dataclass(frozen=True)
class Block:
    """Statements run when every ``guard`` argument is given (the main block has none)."""

    guard: tuple[str, ...]
    statements: tuple[Statement, ...]
    outputs: tuple[str, ...]  # what the block defines for the result (None when skipped)


@dataclass(frozen=True)
class Argument:
    name: str
    default: str  # "" when required
    unit: str
    doc: str


@dataclass(frozen=True)
class Requirement:
    names: tuple[str, ...]
    code: str
    message: str
    unless: str = ""
    when: str = ""
    condition: Any = field(default=None, compare=False)  # the folded sympy condition the code prints
    tested: tuple[str, ...] = ()  # names read only in a branch on Given: None there takes the other branch


@dataclass(frozen=True)
class Default:
    """An input whose default is an expression of others, computed when it is None and
    every optional input in ``guard`` is given (else it stays None: it is optional too)."""

    target: str
    code: str
    guard: tuple[str, ...] = ()
    expr: Any = field(default=None, compare=False)  # the folded sympy expression the code prints


@dataclass(frozen=True)
class Evaluator:
    arguments: tuple[Argument, ...]
    defaults: tuple[Default, ...]  # inputs whose default is an expression of others
    blocks: tuple[Block, ...]
    result: str  # the nested dict literal returned
    helpers: tuple[str, ...]
    requirements: tuple[Requirement, ...]
    optional: dict[str, tuple[str, ...]]  # output path -> optional arguments it needs
    alternatives: dict[str, tuple[str, ...]]  # optional argument -> what its default is computed from, as users name it (`workload.context_length`)
    gradient: tuple[Statement, ...] = ()  # derivative statements, after the main block
    gradient_result: str = "{}"  # {output path: {argument: d output / d argument}}
    gradient_blocks: tuple[tuple[Block, str], ...] = ()  # guarded (statements, entries) for optional inputs
    # For an input defaulting to an expression of others: (input, {other: code of d default / d other}).
    # When it is not given, its derivatives are chained into the inputs its default reads.
    default_chains: tuple[tuple[str, str], ...] = ()
    gradient_tested: tuple[str, ...] = ()  # optional inputs differentiated where an otherwise= branch reads them
    # How the statements name symbols and offset list indices, for other printers of the same forms.
    names: dict[sympy.Basic, str] = field(default_factory=dict, compare=False)
    offsets: dict[sympy.Basic, sympy.Expr] = field(default_factory=dict, compare=False)
    tree: dict = field(default_factory=dict, compare=False)  # the result's keys (see result_tree)
    # output path -> the arguments its derivative is non-zero in (for containers that chain it)
    partials: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    calls: tuple[tuple[str, str], ...] = ()  # (module, function) of contained scenarios it calls
    # output path -> the Fits outputs it exists under (``Fits(..., guards=)`` and what reads those)
    guarded: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    # the source of each declared function's helper it calls (symbolic.model.functions), held by the module
    inline_helpers: tuple[str, ...] = ()


_BUILT: dict[int, tuple[ScenarioModel, Evaluator]] = {}


def evaluator_of(model: ScenarioModel) -> Evaluator:
    """``build_evaluator(model)``, once per model in a process (a container needs its contained ones')."""
    found = _BUILT.get(id(model))
    if found is None or found[0] is not model:
        found = _BUILT[id(model)] = (model, build_evaluator(model))
    return found[1]


def build_evaluator(model: ScenarioModel) -> Evaluator:
    """Fold units, prune, split by optional inputs, eliminate common subexpressions, order."""
    arguments = model.evaluator_inputs()
    fold = _Folder(model, arguments)
    names: dict[sympy.Basic, str] = {decl.symbol: decl.name for decl in arguments}
    names.update({decl.symbol.label: decl.name for decl in arguments if isinstance(decl.symbol, sympy.IndexedBase)})
    offsets: dict[sympy.Basic, sympy.Expr] = {}
    for quantity in model.quantities:
        names[quantity.symbol] = code_name(quantity.name)
        if isinstance(quantity, ListQuantity):
            offsets[quantity.symbol] = quantity.limits[1] if quantity.limits else 0
    _check_unique(model, [d.name for d in arguments] + [code_name(q.name) for q in model.quantities])
    # contained scenarios: one call each instead of their steps
    quantities, provided, contained = called(model, list(model.quantities), lambda inner: evaluator_of(inner).partials, names)
    printer = EvaluatorPrinter(names, offsets)
    scalars = {decl.symbol for decl in arguments if not isinstance(decl.symbol, sympy.IndexedBase)}
    defined = {q.symbol: q for q in model.quantities}
    printer.array_capable = scalars | {q.symbol for q in model.quantities if closure([q.symbol], defined) & scalars}

    by_symbol = {quantity.symbol: quantity for quantity in quantities}
    # Prune, merge repeated steps, fold hidden lists into their sums, prune what that freed.
    needed = _needed(_inline_hidden_lists(_deduplicated(_needed(quantities))))
    # inputs a requirement names are always there, unless it is checked only when another input is given
    required = set().union(set(), *(_direct_needs(r.condition.lhs) | _direct_needs(r.condition.rhs)
                                    for r in model.requirements if not r.when))
    optional = {decl.symbol: decl.name for decl in arguments if decl.spec.default is None and decl.symbol not in required}
    alternatives: dict[str, tuple[str, ...]] = {}
    by_name = {decl.name: decl for decl in arguments}
    for decl in arguments:  # a default computed from optional inputs is absent when they are
        default = decl.spec.default
        if isinstance(default, sympy.Basic) and not default.is_Number and decl.symbol not in required:
            sources = tuple(sorted(optional[s] for s in _symbols(default) if s in optional))
            if sources:
                optional[decl.symbol] = decl.name
                alternatives[decl.name] = sources
    shown_alternatives = {name: tuple(_shown(by_name[s]) for s in sources) for name, sources in alternatives.items()}
    guards = _optional_dependencies(needed, by_symbol, optional)
    check_calls(model, needed, guards, contained)

    blocks = []
    for guard in sorted(set(guards.values()), key=lambda g: (len(g), g)):
        members = [q for q in needed if guards[q.symbol] == guard]
        blocks.append(Block(guard, _statements(members, fold, printer, names, provided, bool(guard)),
                            tuple(names[q.symbol] for q in members)))

    defaults, argument_list, chains = [], [], []
    for decl in arguments:
        default = decl.spec.default
        if default is REQUIRED:
            text = ""
        elif default is None:
            text = "None"
        elif sympy.sympify(default).is_Number:
            number = sympy.sympify(default)
            text = repr(int(number) if number.is_Integer else float(number))
        else:
            text = "None"
            folded = fold(sympy.sympify(default), decl.spec.unit)
            defaults.append(Default(decl.name, printer.doprint(folded), alternatives.get(decl.name, ()), folded))
            partials = {other.name: sympy.diff(folded, other.symbol) for other in arguments
                        if other.symbol.is_Symbol and folded.has(other.symbol)}
            literal = ", ".join(f"{name!r}: {printer.doprint(d)}" for name, d in partials.items() if d != 0)
            chains.append((decl.name, "{" + literal + "}"))
        argument_list.append(Argument(decl.name, text, decl.spec.unit, decl.spec.doc))

    requirements = []
    for requirement in model.requirements:
        condition = requirement.condition
        folded = type(condition)(fold.base(condition.lhs), fold.base(condition.rhs))
        involved = tuple(d.name for d in arguments if d.symbol in _symbols(condition))
        needs = _direct_needs(condition.lhs) | _direct_needs(condition.rhs)  # a Given branch's inputs may be None
        may_be_none = tuple(d.name for d in arguments if d.symbol in _symbols(condition) and d.symbol not in needs)
        requirements.append(Requirement(involved, printer.doprint(folded), requirement.message, requirement.unless,
                                        requirement.when, folded, may_be_none))

    optional_outputs = {q.name: guards[q.symbol] for q in needed if guards[q.symbol]}
    main = [q for q in needed if not guards[q.symbol]]
    variables = [d.symbol for d in arguments if d.symbol.is_Symbol and d.symbol not in optional]
    # a key argument is the position of an entry (links[link]): no derivative in it
    positions = {d.symbol for d in arguments if d.argument and argument_spec(d).key_of}
    by_name = {decl.name: decl.symbol for decl in arguments}
    shared = GradientState(needed, fold, printer, names, provided, contained)
    tested = sorted(set().union(*(given_inputs(q.expr) for q in main)) - set(variables), key=lambda s: s.name)
    parts = [(blocks[0] if blocks and not blocks[0].guard else Block((), (), ()),
              *shared.block(main, variables + tested))]
    for block in blocks:
        if block.guard:
            members = [q for q in needed if guards[q.symbol] == block.guard]
            # the inputs a Given branch tests move the main outputs this block reads, so they are variables here too
            guarded_inputs = [by_name[g] for g in block.guard if by_name[g] not in positions]
            statements, entries = shared.block(members, variables + [s for s in tested if s not in guarded_inputs] + guarded_inputs)
            if "d__" in entries:  # a block whose outputs are all flat (a floor) adds nothing
                parts.append((block, statements, entries))
    # Each part repeats its block's value statements, keeping only what the derivatives read.
    wanted = set(re.findall(r": (d__\w+)", " ".join(result for _, _, result in parts)))
    kept: list[list[Statement]] = [[] for _ in parts]
    for position in reversed(range(len(parts))):
        block, statements, _ = parts[position]
        for statement in reversed(block.statements + statements):
            if statement.target in wanted:
                kept[position].append(statement)
                wanted |= statement.reads
    guarded = tuple((Block(block.guard, tuple(reversed(kept[position])), ()), result)
                    for position, (block, _, result) in enumerate(parts) if position)
    helpers = printer.helpers_used | ({"chain_default"} if chains else set()) | ({"drop_absent"} if tested else set())
    declared = python_helper_sources()
    inline = tuple(declared[name] for name in sorted(helpers & declared.keys()))
    helpers -= declared.keys()
    every = [*(st for block in blocks for st in block.statements), *(st for part in kept for st in part)]
    calls = sorted({(str(st.form[1].args[0]), str(st.form[1].args[1])) for st in every if st.form[:1] == ("call",)})
    tree = result_tree(needed, names)
    under_fits = guarded_outputs(model)
    return Evaluator(tuple(argument_list), tuple(defaults), tuple(blocks), nested_literal(tree, 1),
                     tuple(sorted(helpers)), tuple(requirements), optional_outputs, shown_alternatives,
                     tuple(reversed(kept[0])), parts[0][2], guarded, tuple(reversed(chains)),
                     tuple(names[symbol] for symbol in tested), names, offsets, tree,
                     {path: tuple(entries) for path, entries in shared.entries.items()}, tuple(calls), under_fits,
                     inline)


def _check_unique(model: ScenarioModel, names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DeclarationError(f"{model.name}: two values would share the Python name {name!r}")
        seen.add(name)


def _dependencies(quantity: Quantity, by_symbol: dict[sympy.Basic, Quantity]) -> set[sympy.Basic]:
    return {s for s in reads(quantity) if s in by_symbol and s != quantity.symbol}


def _inline_hidden_lists(quantities: list[Quantity]) -> list[Quantity]:
    """Lists of hidden steps are not materialised: their entries are put into the sums that
    read them, where constant factors come out (Σ 2b·w → 2b·Σ w)."""
    from dataclasses import replace

    hidden = {q.symbol: q for q in quantities
              if isinstance(q, ListQuantity) and q.hidden and q.limits and not isinstance(q.expr, Returned)}

    def inline(expr: sympy.Basic) -> sympy.Basic:
        def entry(indexed: sympy.Indexed) -> sympy.Basic:
            quantity = hidden[indexed.base]
            return inline(quantity.expr).xreplace({quantity.limits[0]: indexed.indices[0]})
        return expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in hidden, entry)

    return [q if q.symbol in hidden else replace(q, expr=inline(q.expr)) for q in quantities]


def _needed(quantities: list[Quantity]) -> list[Quantity]:
    """Visible quantities and everything they read, in declaration order."""
    keep = closure({q.symbol for q in quantities if not q.hidden}, {q.symbol: q for q in quantities})
    return [q for q in quantities if q.symbol in keep]


def _deduplicated(needed: list[Quantity]) -> list[Quantity]:
    """Steps that repeat an earlier step exactly (same unit, same expression once earlier
    repeats are renamed) become a plain copy of it, so shared work is computed once: the
    epoch model's network at batch 1 shares every batch-independent step with the network
    at its batch."""
    from dataclasses import replace

    alias: dict[sympy.Basic, sympy.Basic] = {}
    seen: dict[tuple[Any, ...], Quantity] = {}
    result: list[Quantity] = []
    for quantity in needed:
        expr = quantity.expr.xreplace(alias)
        renamed: Quantity = replace(quantity, expr=expr)
        if isinstance(quantity, ListQuantity):
            renamed = replace(quantity, expr=expr, limits=tuple(part.xreplace(alias) for part in quantity.limits))
        key = (type(quantity), quantity.unit, getattr(quantity, "separator", ""), sympy.srepr(expr),
               sympy.srepr(getattr(renamed, "limits", ())), sympy.srepr(getattr(quantity, "inner", ())))
        earlier = seen.get(key)
        if earlier is not None and isinstance(quantity, ScalarQuantity) and not quantity.echo:
            alias[quantity.symbol] = earlier.symbol
            result.append(replace(quantity, expr=earlier.symbol))
        elif earlier is not None and isinstance(quantity, ListQuantity) and quantity.limits and not quantity.echo:
            alias[quantity.symbol] = earlier.symbol
            result.append(replace(quantity, expr=earlier.symbol, limits=(), inner=(), echo=True))
        else:
            seen.setdefault(key, quantity)
            result.append(renamed)
    return result


def _optional_dependencies(needed: list[Quantity], by_symbol: dict[sympy.Basic, Quantity],
                           optional: dict[sympy.Basic, str]) -> dict[sympy.Basic, tuple[str, ...]]:
    """For each quantity, the optional arguments it needs (directly or through others)."""
    needs: dict[sympy.Basic, frozenset[sympy.Basic]] = {}
    for quantity in needed:
        found = {s for s in _direct_needs(quantity.expr) | reads(quantity) - _symbols(quantity.expr) if s in optional}
        tested = _given_branches(quantity.expr)
        for dependency in _dependencies(quantity, by_symbol):
            if dependency in tested and needs[dependency]:
                raise DeclarationError(f"{quantity.name}: its otherwise= branch reads {dependency}, which needs optional "
                                       "inputs; read those inputs directly in the expression")
            found |= needs[dependency]
        needs[quantity.symbol] = frozenset(found)
    return {symbol: tuple(sorted(optional[s] for s in found)) for symbol, found in needs.items()}


def _given_pieces(expr: sympy.Basic) -> list[sympy.Piecewise]:
    """The ``Piecewise`` nodes of ``expr`` branching on ``Given`` (``Output(..., otherwise=)``, or a record's
    quantity whose fields may be unset, which a scenario may scale: ``workload.kv_cache_bytes(S, e) * B``)."""
    return [node for node in expr.atoms(sympy.Piecewise) if any(isinstance(c, Given) for _, c in node.args)]


def _given_branches(expr: sympy.Basic) -> set[sympy.Basic]:
    """What the branches on ``Given`` read that run only when their inputs are given."""
    return set().union(*(_symbols(branch) for node in _given_pieces(expr)
                         for branch, condition in node.args if isinstance(condition, Given)))


def _direct_needs(expr: sympy.Basic) -> set[sympy.Basic]:
    """What ``expr`` reads, less the inputs a ``Given`` branch tests (absent, the fallback is taken)."""
    if not _given_pieces(expr):
        return _symbols(expr)
    if isinstance(expr, sympy.Piecewise) and any(isinstance(c, Given) for _, c in expr.args):
        found: set[sympy.Basic] = set()
        for branch, condition in expr.args:
            reads = _direct_needs(branch)
            if isinstance(condition, Given):
                reads -= set(condition.inputs())
            found |= reads
        return found
    return set().union(*(_direct_needs(arg) for arg in expr.args))


def _statements(members: list[Quantity], fold: _Folder, printer: EvaluatorPrinter,
                names: dict[sympy.Basic, str], provided: dict[sympy.Basic, sympy.Basic],
                guarded: bool = False) -> tuple[Statement, ...]:
    """The block's statements: CSE over its scalar expressions, then dependency order. A
    contained scenario's call is one statement; the values it returns need none."""
    order: dict[sympy.Basic, float] = {q.symbol: i for i, q in enumerate(members)}
    calls = [q for q in members if isinstance(q.expr, ContainedCall)]
    members = [q for q in members if not isinstance(q.expr, (Returned, ContainedCall))]
    scalars: list[Quantity] = [q for q in members if isinstance(q, ScalarQuantity)]
    lists = [q for q in members if isinstance(q, ListQuantity)]
    indices = {q.limits[0] for q in lists if q.limits} | {q.inner[0] for q in lists if q.inner} | {
        limit[0] for q in members for node in q.expr.atoms(sympy.Sum, sympy.Product, MaxOver) for limit in node.limits}
    tested = set().union(*(given_inputs(q.expr) for q in members))  # None until tested: never hoisted
    steps = fold.fold_steps(scalars)
    bodies = {q.symbol: fold.read(q.expr, q.unit) for q in lists if q.limits}
    raws = fold.raw_statements(steps, bodies.values(), guarded)
    for raw, _ in raws:
        if names.setdefault(raw, raw.name) != raw.name or list(names.values()).count(raw.name) > 1:
            raise DeclarationError(f"a value would share the Python name {raw.name!r} of a raw value")
    targets = [raw for raw, _ in raws] + list(steps)
    folded = [value for _, value in raws] + list(steps.values())
    replacements, reduced = sympy.cse(folded, symbols=sympy.numbered_symbols("_cse_"),
                                      optimizations=None, ignore=tuple(indices | tested))
    replacements, reduced = _inline_reciprocals(replacements, reduced)
    renumber = {}  # temporaries are numbered across blocks: _t0, _t1, ...
    for temporary, _ in replacements:
        fresh = f"_t{sum(1 for n in names.values() if n.startswith('_t'))}"
        renumber[temporary] = sympy.Dummy(fresh)
        names[renumber[temporary]] = fresh
    replacements = [(renumber[t], e.xreplace(renumber)) for t, e in replacements]
    reduced = [e.xreplace(renumber) for e in reduced]

    forms: list[tuple[sympy.Basic, tuple, set[sympy.Basic]]] = [
        (t, ("expr", e), _symbols(e)) for t, e in replacements]
    forms += [(q.symbol, ("call", q.expr), _symbols(q.expr)) for q in calls]
    for target, expr in zip(targets, reduced, strict=True):
        forms.append((target, ("expr", expr), _symbols(expr)))
    for quantity in members:
        if isinstance(quantity, ListQuantity) and not quantity.limits:  # a list input echoed into a group
            forms.append((quantity.symbol, ("echo", quantity.expr), _symbols(quantity.expr)))
        elif isinstance(quantity, ListQuantity):
            index, start, stop = quantity.limits
            body = bodies[quantity.symbol]
            reads_here = _symbols(body) | _symbols(start) | _symbols(stop)
            if quantity.inner:  # a grid: one flat list, row by row
                reads_here |= _symbols(quantity.inner[1]) | _symbols(quantity.inner[2])
            forms.append((quantity.symbol, ("list", body, quantity.limits, tuple(quantity.inner)), reads_here))
        elif isinstance(quantity, TextQuantity):
            forms.append((quantity.symbol, ("text", quantity.separator, quantity.expr), _symbols(quantity.expr)))
    pending = [(target, python_code(printer, form), {provided.get(r, r) for r in reads}, form)
               for target, form, reads in forms]

    order.update({raw: order.get(fold.raw_values[raw][0], -1) - 0.5 for raw, _ in raws})  # just before its step
    pending.sort(key=lambda item: order.get(item[0], -1))  # temporaries first, then declaration order
    notes = {names[q.symbol]: fold.note(q.expr, q.unit) for q in [*scalars, *(q for q in lists if q.limits)]
             if q.symbol in names}
    return tuple(dataclasses.replace(st, note=notes.get(st.target, "")) for st in _ordered(pending, names))


def result_tree(needed: list[Quantity], names: dict[sympy.Basic, str]) -> dict:
    """The nested keys of the evaluator's result, each leaf the code of its value (its
    name, or what a contained call returned: ``_host['host_time']``)."""
    tree: dict = {}
    for quantity in needed:
        if quantity.hidden:
            continue
        parts = re.split(r"\.|\[", quantity.name.replace("]", ""))
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = names[quantity.symbol]
    return tree


def nested_literal(tree: dict, depth: int, indent: str = "    ", key: Callable[[str], str] = repr) -> str:
    """The result tree as a dict (or, with ``key=json.dumps``, a JavaScript object) literal, one entry per line."""
    pad = indent * (depth + 1)
    lines = []
    for name, value in tree.items():
        shown = nested_literal(value, depth + 1, indent, key) if isinstance(value, dict) else value
        lines.append(f"{pad}{key(name)}: {shown},")
    return "{\n" + "\n".join(lines) + "\n" + indent * depth + "}"


def _shown(decl: Any) -> str:
    """An argument as a user names it: a field of a structured input as ``workload.context_length``
    (the runtime maps the dot back to the evaluator's ``workload_context_length``)."""
    if decl.structured and decl.name == f"{decl.structured}_{decl.resolves}":
        return f"{decl.structured}.{decl.resolves}"
    return decl.name
