"""A workload input: a model from ``Models`` (or a custom one) that resolves to numbers.

    from symbolic.catalog.workloads import TransformerWorkload
    from symbolic.model import Input, Output, Scenario, WorkloadInput

    class KvExample(Scenario):
        workload = WorkloadInput(TransformerWorkload, requires=("heads",), doc="The model.")
        tokens = Input(integer=True, positive=True, doc="Tokens cached.")
        bytes_per_value = Input("byte", positive=True, doc="Width of one cached value.")
        weights = Output(workload.size_in_bytes(bytes_per_value), "GB", doc="Weight bytes.")
        kv_bytes = Output(workload.kv_values_per_token * tokens * bytes_per_value, "GB", doc="...")

``workload.<field>`` is a number read from the record when an instance is built (its
fallback when unset: ``kv_heads`` unset is ``heads``); ``workload.<derived>`` likewise, the
record's generated method computing it; ``workload.<derived>(args)`` for a derived quantity
with arguments is its declared expression, substituted here, so a scenario page shows the
same equation as the models page. A field a type only may have (``heads``, ``context_length``)
is an optional number: outputs that read it are unavailable, with an error naming it, when
the record leaves it unset, unless ``requires`` names it (then building the instance fails).
"""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.catalog.schema import Check, Derived, Field, Param, Record
from symbolic.catalog.workloads import WORKLOAD_TYPES, Workload
from symbolic.model.collected import InputDecl, ScenarioModel, WorkloadDecl, _assumptions
from symbolic.model.declarations import Declaration, Input
from symbolic.model.functions import Given
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED


def _record_types(types: tuple[Any, ...]) -> tuple[type[Record], ...]:
    by_name = {t.__name__: t for t in WORKLOAD_TYPES}
    found = []
    for item in types or (Workload,):
        record = by_name.get(item) if isinstance(item, str) else item
        if not (isinstance(record, type) and issubclass(record, Record)):
            raise DeclarationError(f"WorkloadInput: {item!r} is not a workload type; types: {', '.join(by_name)}")
        found.append(record)
    return tuple(found)


class WorkloadInput(Declaration):
    """A workload input accepting records of ``types``; without types, any record whose type declares
    every field ``requires`` names (``WorkloadInput(requires=("layers", "hidden_dim"))`` takes a
    transformer, a state-space model or an embodied policy), else any workload."""

    def __init__(self, *types: Any, requires: tuple[str, ...] = (), doc: str = "") -> None:
        self.types = _record_types(types) if types or not requires else _declaring(tuple(requires))
        self.requires = tuple(requires)
        self.doc = doc

    def bind(self, name: str, into: ScenarioModel) -> WorkloadRef:
        ref = WorkloadRef(name, into, self.types, self.requires)
        into.add_structured(WorkloadDecl(name, self.doc, dict(ref.symbols), types=tuple(t.__name__ for t in self.types),
                                         checks=ref._declared_checks()))
        return ref


def _declaring(fields: tuple[str, ...]) -> tuple[type[Record], ...]:
    """The most general workload types declaring every field of ``fields`` (their subtypes come with them)."""
    found = [kind for kind in WORKLOAD_TYPES if all(isinstance(kind.declared.get(f), Field) for f in fields)]
    general = tuple(kind for kind in found if not any(kind is not other and issubclass(kind, other) for other in found))
    if not general:
        raise DeclarationError(f"WorkloadInput: no workload type declares every field of {list(fields)}")
    return general


class WorkloadRef:
    """What a class body sees for a workload input: fields and derived quantities as symbols."""

    def __init__(self, name: str, model: ScenarioModel, types: tuple[type[Record], ...], requires: tuple[str, ...]) -> None:
        self._name = name
        self.types = types
        self.requires = requires
        self.items: dict[str, Field | Derived] = {}
        for record in types:
            for key, item in record.declared.items():
                if isinstance(item, Param) or (isinstance(item, Field) and item.kind == "str"):
                    continue
                self.items.setdefault(key, item)
        unknown = sorted(set(requires) - set(self.items))
        if unknown:
            raise DeclarationError(f"{model.name}: WorkloadInput {name} requires unknown fields {unknown}")
        self.symbols: dict[str, sympy.Symbol] = {}
        self.optional: set[sympy.Symbol] = set()  # fields the record may leave unset (not in ``requires``)
        for key, item in self.items.items():
            if isinstance(item, Derived) and _params(types, key):
                continue
            required = key in requires or (isinstance(item, Field) and all(
                key in t.fields() and t.fields()[key].required for t in types))
            symbol = self._resolved(model, key, item, required)
            self.symbols[key] = symbol
            if not required:
                self.optional.add(symbol)

    def _resolved(self, model: ScenarioModel, key: str, item: Field | Derived, required: bool) -> sympy.Symbol:
        if isinstance(item, Field):
            spec = Input(item.unit, integer=item.kind == "int", positive=item.positive, nonnegative=item.nonnegative,
                         default=REQUIRED if required else None, doc=f"`{key}` of `{self._name}`: {item.doc}")
            assumptions = _assumptions(item.kind == "int", item.positive, item.nonnegative)
        else:
            positive, nonnegative = _sign(self.types, key)
            spec = Input(item.unit, positive=positive, nonnegative=nonnegative, default=REQUIRED if required else None,
                         doc=f"`{key}` of `{self._name}`: {item.doc}")
            assumptions = _assumptions(False, positive, nonnegative)
        symbol = sympy.Symbol(f"{self._name}_{key}", **assumptions)
        shown = item.latex or rf"\mathrm{{{key.replace('_', chr(92) + '_')}}}"
        latex = rf"{{{shown}}}_{{\mathrm{{{self._name.replace('_', chr(92) + '_')}}}}}"
        model.add_input(InputDecl(symbol.name, symbol, spec, latex, structured=self._name, resolves=key))
        return symbol

    def _declared_checks(self) -> tuple[sympy.Basic, ...]:
        """The record types' checks every accepted record satisfies (a type's checks hold for its subtypes), in
        this input's symbols; one waived by a field (``unless=``) or reading a field not resolved here is left out."""
        replace = {item.symbol: self.symbols[name] for name, item in self.items.items()
                   if isinstance(item, Field) and item.symbol is not None and name in self.symbols}
        return tuple(check.condition.xreplace(replace) for check in self.types[0].checks
                     if isinstance(check, Check) and check.unless is None and all(check in kind.checks for kind in self.types)
                     and check.condition.free_symbols <= set(replace))

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        if key in self.symbols:
            return self.symbols[key]
        if key in self.items:  # a derived quantity with arguments
            return lambda *args, **kwargs: self._substituted(key, args, kwargs)
        accepted = " or ".join(t.__name__ for t in self.types)
        raise DeclarationError(f"workload input {self._name} ({accepted}) has no field or derived quantity {key!r}")

    def _substituted(self, key: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> sympy.Basic:
        record = next(t for t in self.types if key in t.declared)
        derived = record.derived()[key]
        _refuse_overrides(self.types, key, derived)
        params = _params(self.types, key)
        ordered = [p for p in params if p.default is None] + [p for p in params if p.default is not None]
        if len(args) > len(ordered):
            raise DeclarationError(f"{record.__name__}.{key} takes {len(ordered)} arguments, got {len(args)}")
        given = {p.name: sympy.sympify(a) for p, a in zip(ordered, args, strict=False)}
        for name, value in kwargs.items():
            if name not in {p.name for p in params} or name in given:
                raise DeclarationError(f"{record.__name__}.{key}: unexpected or repeated argument {name!r}")
            given[name] = sympy.sympify(value)
        missing = [p.name for p in params if p.name not in given]
        if missing:
            raise DeclarationError(f"{record.__name__}.{key} needs {', '.join(missing)} (a scenario gives every "
                                   "argument: a width as an input in byte, for instance)")
        replace: dict[sympy.Basic, sympy.Basic] = {p.symbol: given[p.name] for p in params}
        for name, symbol in self.symbols.items():
            item = record.declared.get(name)
            if item is not None and item.symbol is not None:
                replace[item.symbol] = symbol
        expr = derived.expr.xreplace(replace)
        unset = sorted(expr.free_symbols & self.optional, key=lambda symbol: symbol.name)
        if derived.otherwise is None or not unset:
            return expr
        # The record's own fallback comes with the expression where a field it reads may be unset (the KV cache
        # of a model without sliding-window blocks), so the scenario answers as the record's method does.
        return sympy.Piecewise((expr, Given(*unset)), (derived.otherwise.xreplace(replace), True))


def _sign(types: tuple[type[Record], ...], key: str) -> tuple[bool, bool]:
    """Whether a derived quantity is positive (or nonnegative) for every record type the input accepts,
    as sympy proves it from the fields' domains: the divisions the scenario makes by it are then safe."""
    kinds = [kind for kind in WORKLOAD_TYPES if issubclass(kind, types) and key in kind.derived()]
    forms = [kind.inlined(key) for kind in kinds]
    forms += [kind.inlined(key, otherwise=True) for kind in kinds if kind.derived()[key].otherwise is not None]
    positive = all(form.is_positive for form in forms)
    return positive, not positive and all(form.is_nonnegative for form in forms)


def _refuse_overrides(types: tuple[type[Record], ...], key: str, derived: Derived) -> None:
    """A quantity with arguments is substituted as one expression; a record type the input accepts
    that declares it otherwise (a mixture of experts overriding a dense rule) would be read wrong."""
    for kind in WORKLOAD_TYPES:
        if issubclass(kind, types) and key in kind.declared and kind.declared[key] is not derived:
            raise DeclarationError(
                f"{kind.__name__}.{key} overrides the expression of {types[0].__name__}.{key}; a derived quantity "
                "with arguments is substituted as one expression, so an input accepting both would read the "
                "override wrong (declare the difference in a quantity without arguments that it reads)")


def _params(types: tuple[type[Record], ...], key: str) -> list[Param]:
    record = next(t for t in types if key in t.declared)
    item = record.declared[key]
    if not isinstance(item, Derived):
        return []
    return [p for p in record.params().values() if p.symbol in item.expr.free_symbols]
