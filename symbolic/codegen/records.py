"""Catalog record types to Python: field specs, fallbacks, checks and one method per derived quantity.

Every expression is dimension-checked against its declared unit, folded to the declared
units of the fields it reads (exact rational factors) and printed by the evaluator
printer; symbols print as ``self.resolved("field")`` (the field, or its fallback when unset)
or as the method's arguments.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sympy

from symbolic.catalog.schema import Derived, Field, Implies, Param, Record, Together
from symbolic.codegen.environment import environment
from symbolic.codegen.pyprint import HELPERS, EvaluatorPrinter
from symbolic.model import UNIT_SYMBOLS
from symbolic.analysis.dimensions import dimension_of_unit, describe, infer, scale_of_unit
from symbolic.runtime.errors import DeclarationError
from symbolic.catalog.systems import LINK_TYPES, SYSTEM_TYPES
from symbolic.catalog.workloads import WORKLOAD_TYPES
from symbolic import catalog
from symbolic.catalog import storage_widths
import generated


@dataclass(frozen=True)
class Method:
    name: str
    doc: str
    unit: str
    params: tuple[tuple[str, str], ...]  # (name, default source or "")
    conversions: tuple[str, ...]  # statements converting each argument
    reads: tuple[str, ...]  # fields/derived the main expression needs (for ``otherwise``)
    code: str
    otherwise: str  # "" when none


@dataclass(frozen=True)
class TypeCode:
    name: str
    base: str
    doc: str
    fields: tuple[str, ...]  # FieldSpec(...) sources
    fallbacks: tuple[tuple[str, str], ...]  # field -> lambda body
    checks: tuple[str, ...]  # Check(...) sources
    methods: tuple[Method, ...]
    links: tuple[tuple[str, tuple[str, str]], ...] = ()  # name -> (record field, its field)


def _symbol_units(record: type[Record]) -> dict[sympy.Basic, str]:
    units: dict[sympy.Basic, str] = dict(UNIT_SYMBOLS)
    for item in record.declared.values():
        if item.symbol is not None:
            units[item.symbol] = item.unit
    return units


def _check_dimension(record: type[Record], name: str, expr: sympy.Basic, unit: str | None) -> None:
    """Raise unless ``expr`` has the dimension of ``unit`` (None: only that its parts agree)."""
    dims = {s: dimension_of_unit(u) for s, u in _symbol_units(record).items()}
    where = f"{record.__name__}.{name}"
    try:
        found = infer(expr, dims)
    except DeclarationError as error:
        raise type(error)(f"{where} {error}") from None
    if unit is not None and found != dimension_of_unit(unit):
        raise DeclarationError(f"{where} is {describe(found)}, but its declared unit {unit or 'dimensionless'!r} "
                               f"is {describe(dimension_of_unit(unit))}")


def _folded(record: type[Record], expr: sympy.Basic, unit: str | None) -> sympy.Basic:
    """``expr`` on numbers in each symbol's declared unit, giving a number in ``unit``."""
    replace = {}
    for symbol, symbol_unit in _symbol_units(record).items():
        scale = scale_of_unit(symbol_unit)
        if symbol in UNIT_SYMBOLS:
            replace[symbol] = scale
        elif scale != 1 and symbol in expr.free_symbols:
            replace[symbol] = scale * symbol
    folded = expr.xreplace(replace)
    return folded if unit is None else folded / scale_of_unit(unit)


def _printer(record: type[Record], params: set[sympy.Basic], receiver: str) -> EvaluatorPrinter:
    names = {}
    for item in record.declared.values():
        if item.symbol is None:
            continue
        names[item.symbol] = item.name if item.symbol in params else f'{receiver}.resolved("{item.name}")'
    return EvaluatorPrinter(names, {})


def _reads(record: type[Record], expr: sympy.Basic) -> tuple[str, ...]:
    by_symbol = {item.symbol: name for name, item in record.declared.items() if not isinstance(item, Param)}
    return tuple(sorted(by_symbol[s] for s in expr.free_symbols if s in by_symbol))


def _method(record: type[Record], derived: Derived) -> Method:
    params = [p for p in record.params().values() if p.symbol in derived.expr.free_symbols]
    parameterized = {d.symbol for d in record.derived().values() if _params_of(record, d)}
    for expr in (derived.expr, derived.otherwise):
        if expr is None:
            continue
        _check_dimension(record, derived.name, expr, derived.unit)
        nested = (expr.free_symbols & parameterized) - {derived.symbol}
        if nested:
            raise DeclarationError(f"{record.__name__}.{derived.name} reads derived quantities with arguments "
                                   f"({', '.join(sorted(map(str, nested)))}); write their expression instead")
    ordered = [p for p in params if p.default is None] + [p for p in params if p.default is not None]
    printer = _printer(record, {p.symbol for p in params}, "self")
    conversions = []
    for param in ordered:
        if param.unit == "byte":
            conversions.append(f"{param.name} = self.width({param.name}, {param.name!r})")
        else:
            minimum = 0 if (param.positive or param.nonnegative) else None
            conversions.append(f"{param.name} = self.argument({param.name!r}, {param.name}, "
                               f"integer={param.kind == 'int'}, minimum={minimum!r}, strict={param.positive})")
    code = printer.doprint(_folded(record, derived.expr, derived.unit))
    otherwise = "" if derived.otherwise is None else printer.doprint(_folded(record, derived.otherwise, derived.unit))
    return Method(derived.name, derived.doc, derived.unit,
                  tuple((p.name, "" if p.default is None else repr(p.default)) for p in ordered),
                  tuple(conversions), _reads(record, derived.expr) if otherwise else (), code, otherwise)


def _params_of(record: type[Record], derived: Derived) -> list[Param]:
    return [p for p in record.params().values() if p.symbol in derived.expr.free_symbols]


def field_spec_source(field: Field) -> str:
    parts = [repr(field.name)]
    if field.unit:
        parts.append(f"unit={field.unit!r}")
    if field.kind != "number":
        parts.append(f"kind={field.kind!r}")
    if field.minimum is not None:
        parts.append(f"minimum={field.minimum!r}")
    if field.positive:
        parts.append("strict=True")
    if field.maximum is not None:
        parts.append(f"maximum={field.maximum!r}")
    if field.required:
        parts.append("required=True")
    parts.append(f"doc={field.doc!r}")
    if field.choices:
        parts.append(f"choices={field.choices!r}")
    if field.record:
        parts.append(f"record={field.record!r}")
    default = getattr(field, "default", None)
    if default is not None:
        parts.append(f"default={default!r}")
    return f"FieldSpec({', '.join(parts)})"


def type_code(record: type[Record]) -> TypeCode:
    """What the template writes for one record type."""
    base = record.__mro__[1]
    base_name = base.__name__ if base is not Record else "CatalogRecord"
    fallbacks = []
    for field in record.fields().values():
        if field.fallback is not None:
            _check_dimension(record, f"{field.name} (fallback)", field.fallback, field.unit)
            printer = _printer(record, set(), "r")
            fallbacks.append((field.name, printer.doprint(_folded(record, field.fallback, field.unit))))
    checks = []
    for check in record.checks:
        if isinstance(check, Together):
            split = f", split={check.split}" if isinstance(check, Implies) else ""
            checks.append(f"Check({tuple(map(str, check.fields))!r}, None, {check.message!r}, rule={check.rule!r}{split})")
            continue
        _check_dimension(record, f"check {check.message!r}", check.condition, None)
        names = sorted((s for s in check.condition.free_symbols), key=str)
        printer = EvaluatorPrinter({s: str(s) for s in names}, {})
        condition = _folded(record, check.condition, None)
        arguments = ", ".join(map(str, names))
        unless = f", unless={str(check.unless)!r}" if check.unless is not None else ""
        checks.append(f"Check({tuple(map(str, names))!r}, lambda {arguments}: {printer.doprint(condition)}, "
                      f"{check.message!r}{unless})")
    own = set(record.own())
    methods = tuple(_method(record, d) for name, d in record.derived().items() if name in own)
    links = tuple((name, (link.via, link.field)) for name, link in record.links().items())
    return TypeCode(record.__name__, base_name, (record.__doc__ or "").strip(),
                    tuple(field_spec_source(f) for f in record.fields().values()), tuple(fallbacks), tuple(checks),
                    methods, links)


def types_context(types: tuple[type[Record], ...]) -> list[TypeCode]:
    return [type_code(record) for record in types]


def field_rows(record: type[Record]) -> list[dict[str, Any]]:
    """The docs' rows for a type's own fields."""
    own = set(record.own())
    return [{"name": f.name, "unit": f.unit, "domain": f.domain, "required": f.required, "doc": f.doc,
             "fallback": "" if f.fallback is None else sympy.sstr(f.fallback)}
            for f in record.fields().values() if f.name in own]


def _modules() -> dict[str, tuple[str, str, tuple[type[Record], ...], dict[str, str]]]:
    """Each generated record module: title, schema source, types, and the namespace of each type's entries."""
    systems = {t.__name__: "Systems" for t in SYSTEM_TYPES} | {t.__name__: "Hardware" for t in LINK_TYPES}
    return {
        "workloads": ("The workload types: models as the scenarios read them.", "symbolic/catalog/workloads.py",
                      WORKLOAD_TYPES, {t.__name__: "Models" for t in WORKLOAD_TYPES}),
        "systems": ("The systems types: links, memories, servers, fabrics, fleets and storage tiers.",
                    "symbolic/catalog/systems.py", LINK_TYPES + SYSTEM_TYPES, systems),
    }


RECORD_MODULES = ("workloads", "systems")


def record_module(name: str, header: list[str]) -> str:
    """The text of ``generated/<name>.py``."""
    title, source, types, namespaces = _modules()[name]
    template = environment().get_template("records.py.j2")
    context = dict(header=header, title=title, source=source, namespaces=namespaces, types=types_context(types),
                   widths=storage_widths())
    # the runtime helpers the printed methods call (a floor prints as floor_div), imported by the template
    helpers = [h for h in HELPERS if f"{h}(" in template.render(helpers=[], **context)]
    return template.render(helpers=helpers, **context)


def record_source(name: str) -> str:
    return _modules()[name][1]


def install(name: str, text: str) -> None:
    """Put ``text``, what ``generated/<name>.py`` is about to hold, into ``sys.modules`` as ``generated.<name>``
    (and onto the ``generated`` package), before any catalog record is built: registry values are then built
    with the record types as ``symbolic/catalog/`` declares them now (``symbolic.catalog.runtime_types`` reads
    them from there), not as the file on disk last held them."""

    if built := catalog.built_already():
        raise DeclarationError(f"generated/{name}.py is stale, and catalog records ({', '.join(built)}) were built "
                               "with its old record types: run `make generate` in a fresh process")
    module = types.ModuleType(f"generated.{name}")
    module.__file__ = str(Path(generated.__file__).with_name(f"{name}.py"))
    exec(compile(text, f"<generated/{name}.py>", "exec"), module.__dict__)  # noqa: S102
    sys.modules[module.__name__] = module
    setattr(generated, name, module)
