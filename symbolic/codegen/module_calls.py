"""The calls a generated module's class declares: the validation spec of each input
(``InputSpec(...)``/``ListSpec(...)``) and the runtime descriptor of each output (``Output``,
``ListOutput``, ``TableOutput``, ``GroupOutput``, ``SubScenario``), as ``Call`` data that
``templates/calls.j2`` prints."""

from __future__ import annotations

from functools import singledispatch
from typing import Any

import sympy

from symbolic.codegen.calls import Call, Code, Items
from symbolic.codegen.python import Evaluator
from symbolic.model import (
    GroupDecl,
    InputDecl,
    ListDecl,
    ListInput,
    MethodDecl,
    OutputDecl,
    ScalarDecl,
    SubDecl,
    TableDecl,
    TextDecl,
)
from symbolic.model.arguments import argument_spec
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.validation import REQUIRED, InputSpec, ListSpec, Spec


def input_spec(decl: InputDecl) -> Spec:
    """The runtime validation spec of a declared input (also what the docs show)."""
    default = decl.spec.default
    rule = ""
    if isinstance(default, sympy.Basic):
        if default.is_Number:
            default = int(default) if default.is_Integer else float(default)
        else:
            rule, default = sympy.sstr(default), None
    minimum: float | None = 0 if (decl.spec.positive or decl.spec.nonnegative) else None
    strict = decl.spec.positive
    if decl.spec.minimum is not None:
        minimum, strict = decl.spec.minimum, False
    fields = (decl.name, decl.spec.unit, decl.spec.integer, minimum, strict, default, rule, decl.spec.doc)
    top, strict_top = decl.spec.maximum, decl.spec.strict_maximum
    if isinstance(decl.spec, ListInput):
        return ListSpec(*fields, min_length=decl.spec.min_length, maximum=top, strict_maximum=strict_top,
                        keyed=decl.spec.keyed, unique=decl.spec.unique, aligned_to=decl.spec.aligned_to)
    return InputSpec(*fields, maximum=top, strict_maximum=strict_top)


def type_text(spec: Spec) -> str:
    number = "int" if spec.integer else "float"
    if isinstance(spec, ListSpec):
        return f"dict[str, {number}]" if spec.keyed else f"list[{number}]"
    return number


def spec_call(spec: Spec) -> Call:
    """The ``InputSpec(...)``/``ListSpec(...)`` call, naming only the fields that differ from the defaults."""
    fields: dict[str, Any] = {}
    for name, empty in (("unit", ""), ("integer", False), ("minimum", None), ("strict", False)):
        if getattr(spec, name) != empty:
            fields[name] = getattr(spec, name)
    if spec.default is not REQUIRED:
        fields["default"] = spec.default
    if spec.default_rule:
        fields["default_rule"] = spec.default_rule
    if isinstance(spec, ListSpec):
        fields["min_length"] = spec.min_length
        for name in ("keyed", "unique", "aligned_to"):
            if getattr(spec, name):
                fields[name] = getattr(spec, name)
    fields["doc"] = spec.doc
    for name, empty in (("maximum", None), ("strict_maximum", False)):
        if getattr(spec, name) != empty:
            fields[name] = getattr(spec, name)
    return Call.of(type(spec).__name__, spec.name, **fields)


@singledispatch
def descriptor(output: OutputDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    """The runtime descriptor of one output: ``Output``, ``ListOutput``, ``TableOutput``, ``GroupOutput``
    or ``SubScenario`` (one handler per declaration type)."""
    raise DeclarationError(f"output {path}: no generator handler for a {type(output).__name__}")


@descriptor.register
def _group(output: GroupDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    imports.add("GroupOutput")
    members = Items(tuple(descriptor(m, f"{path}.{m.name}", evaluator, owners, imports) for m in output.members))
    return Call.of("GroupOutput", output.name, members)


@descriptor.register
def _sub(output: SubDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    imports.add("SubScenario")
    assert output.scenario is not None and output.sub is not None
    guard = _guard(evaluator, [p for p in evaluator.guarded if p.startswith(f"{path}.")])
    return Call.of("SubScenario", output.name, Code(output.scenario.name), output.sub.title, output.sub.description,
                   **guard)


@descriptor.register
def _table(output: TableDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    # it needs what any of its entries needs
    requires = tuple(dict.fromkeys(r for key in output.keys for r in evaluator.optional.get(f"{path}[{key}]", ())))
    return _value_output("TableOutput", output, requires, evaluator, owners, imports,
                         **_guard(evaluator, [f"{path}[{key}]" for key in output.keys]))


@descriptor.register
def _scalar(output: ScalarDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    extra = {"labels": output.labels} if output.labels else {}
    return _value_output("Output", output, evaluator.optional.get(path, ()), evaluator, owners, imports, **extra,
                         **_guard(evaluator, [path]))


@descriptor.register
def _text(output: TextDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    return _value_output("Output", output, evaluator.optional.get(path, ()), evaluator, owners, imports)


@descriptor.register
def _list(output: ListDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    extra = {key: value for key, value in (("keys", output.keyed_by), ("columns", output.columns_by)) if value}
    return _value_output("ListOutput", output, evaluator.optional.get(path, ()), evaluator, owners, imports, **extra,
                         **_guard(evaluator, [path]))


@descriptor.register
def _method(output: MethodDecl, path: str, evaluator: Evaluator, owners: dict[str, str], imports: set[str]) -> Call:
    """``Method(...)``: the output's descriptor, with one ``ArgumentSpec`` per argument it reads."""
    arguments = []
    for decl in output.arguments:
        spec = input_spec(decl)._replace(name=decl.argument, default=REQUIRED if argument_spec(decl).required else None)
        if not argument_spec(decl).required and not spec.default_rule:
            spec = spec._replace(default=input_spec(decl).default)
        extra: dict[str, Any] = {"key_of": argument_spec(decl).key_of} if argument_spec(decl).key_of else {}
        if argument_spec(decl).example is not None:
            extra["example"] = argument_spec(decl).example
        arguments.append(Call.of("ArgumentSpec", spec_call(spec), decl.name, **extra))
    own = {decl.name for decl in output.arguments}
    requires: list[str] = []
    for needed in evaluator.optional.get(path, ()):
        if needed in own:  # an argument left to its default needs what the default reads
            requires += [source.replace(".", "_") for source in evaluator.alternatives.get(needed, ())]
        else:
            requires.append(needed)
    extra = {"labels": output.labels} if output.labels else {}
    extra |= _guard(evaluator, [path])
    call = _value_output("Method", output, tuple(dict.fromkeys(requires)), evaluator, owners, imports, arguments=Items(tuple(arguments)),
                         doc=output.doc, **extra)
    imports.discard("Method")  # imported from symbolic.runtime.methods (with ArgumentSpec), not from outputs
    return call


def _guard(evaluator: Evaluator, paths: list[str]) -> dict[str, tuple[str, ...]]:
    """``guard=`` for a descriptor: the ``Fits`` outputs any of ``paths`` exists under (none: no keyword)."""
    found = sorted({name for path in paths for name in evaluator.guarded.get(path, ())})
    return {"guard": tuple(found)} if found else {}


def _value_output(kind: str, output: OutputDecl, requires: tuple[str, ...], evaluator: Evaluator,
                  owners: dict[str, str], imports: set[str], **extra: Any) -> Call:
    """An output holding values: its unit, what optional inputs it needs, how it reads when they are missing."""
    imports.add(kind)
    needs: dict[str, Any] = {}
    if requires:
        needs["requires"] = tuple(dict.fromkeys(owners[r] for r in requires))
        alternatives = {r: evaluator.alternatives[r] for r in requires if r in evaluator.alternatives}
        if alternatives:
            needs["alternatives"] = alternatives
    if output.if_missing != "error":
        needs["if_missing"] = output.if_missing
    unit = (output.unit,) if output.unit else ()
    return Call.of(kind, output.name, *unit, **needs, **extra)
