"""What each kind of structured input (hardware node, workload, choice, dataset, scenario)
contributes to a generated module: its runtime spec, its row of the page's inputs table,
what the module imports for it. One handler per declaration type, dispatched on the type
(``functools.singledispatch``): a new kind of input is a new ``StructuredDecl`` subclass and
one handler here."""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch

from symbolic.codegen.calls import Call, Code
from symbolic.model import ChoiceDecl, DatasetDecl, NodeDecl, ScenarioInputDecl, ScenarioModel, StructuredDecl, WorkloadDecl
from symbolic.runtime.errors import DeclarationError, a_or_an
from symbolic.runtime.validation import REQUIRED


@dataclass(frozen=True)
class StructuredInput:
    """One structured input as a generated module declares and documents it."""

    attribute: str  # the class attribute holding its spec: "_nodes", "_workloads", ...
    spec: Call
    imports: frozenset[str]  # names from symbolic.runtime.validation
    type: str  # the inputs table: type, domain, default
    domain: str
    default: str
    scenario: str = ""  # a scenario class the module imports for it
    signature_default: str = "REQUIRED"  # its default in the class's __init__


def _fields(item: StructuredDecl, used: set[str]) -> dict[str, str]:
    """What the evaluator reads of ``item``: resolved name -> evaluator argument."""
    return {what: f"{item.name}_{what}" for what in item.resolved if f"{item.name}_{what}" in used}


@singledispatch
def structured_input(item: StructuredDecl, model: ScenarioModel, used: set[str]) -> StructuredInput:
    raise DeclarationError(f"{model.name}: input {item.name}: no generator handler for a {type(item).__name__}")


@structured_input.register
def _node(item: NodeDecl, model: ScenarioModel, used: set[str]) -> StructuredInput:
    fields = _fields(item, used)
    precision = next((p.name for p in model.precisions if item.name in p.nodes), "")
    if "peak" in fields and not precision:
        raise DeclarationError(f"{model.name}: {item.name}.peak needs a Precision(...) naming {item.name}")
    extra = {"fleet": True} if item.fleet else {}
    spec = Call.of("NodeSpec", item.name, precision=precision, fields=fields, optional=item.optional, doc=item.doc,
                   **extra)
    return StructuredInput("_nodes", spec, frozenset({"NodeSpec"}),
                           "HardwareNode or Fleet" if item.fleet else "HardwareNode",
                           f"a node listing `{precision}`" if "peak" in fields else "a hardware node",
                           "None (optional)" if item.optional else "required",
                           signature_default="None" if item.optional else "REQUIRED")


@structured_input.register
def _workload(item: WorkloadDecl, model: ScenarioModel, used: set[str]) -> StructuredInput:
    fields = _fields(item, used)
    required = tuple(decl.resolves for decl in model.inputs
                     if decl.structured == item.name and decl.spec.default is REQUIRED)
    units = {decl.name: decl.spec.unit for decl in model.inputs
             if decl.structured == item.name and decl.name in fields.values() and decl.spec.unit}
    spec = Call.of("WorkloadSpec", item.name, tuple(item.types), fields, required=required, units=units, doc=item.doc)
    reads = ", ".join(f"`{field}`" for field in fields) or "nothing"
    return StructuredInput("_workloads", spec, frozenset({"WorkloadSpec"}), " or ".join(item.types),
                           f"a workload; reads {reads}", "required")


@structured_input.register
def _choice(item: ChoiceDecl, model: ScenarioModel, used: set[str]) -> StructuredInput:
    choice = item.choice
    value = f"{item.name}_value"
    if value not in used:
        raise DeclarationError(f"{model.name}: Choice {item.name} is declared but no output reads it")
    options = {key: (int(v) if v.is_Integer else float(v)) for key, v in choice.options.items()}
    required = choice.default is REQUIRED
    spec = Call.of("ChoiceSpec", item.name, options, value, unit=choice.unit,
                   default=Code("REQUIRED") if required else choice.default,
                   case_insensitive=choice.case_insensitive, doc=item.doc)
    shown = ", ".join(f"{key} ({number} {choice.unit})".replace(" )", ")") for key, number in options.items())
    return StructuredInput("_choices", spec, frozenset({"ChoiceSpec", *(["REQUIRED"] if required else [])}), "str",
                           f"one of {shown}{' (any case)' if choice.case_insensitive else ''}",
                           "required" if required else repr(choice.default),
                           signature_default="REQUIRED" if required else repr(choice.default))


@structured_input.register
def _dataset(item: DatasetDecl, model: ScenarioModel, used: set[str]) -> StructuredInput:
    examples = _fields(item, used).get("training_examples")
    spec = Call.of("DatasetSpec", item.name, training_examples=examples, doc=item.doc)
    return StructuredInput("_datasets", spec, frozenset({"DatasetSpec"}), "DatasetProfile",
                           "a dataset; only its training examples are read", "None (optional)",
                           signature_default="None")


@structured_input.register
def _scenario(item: ScenarioInputDecl, model: ScenarioModel, used: set[str]) -> StructuredInput:
    assert item.scenario is not None
    reads = {inner: str(symbol) for inner, symbol in item.resolved.items() if str(symbol) in used}
    arguments = {inner: outer for inner, outer in reads.items() if not inner.startswith("output:")}
    outputs = {inner.removeprefix("output:"): outer for inner, outer in reads.items() if inner.startswith("output:")}
    extra = {**({"outputs": outputs} if outputs else {}), **({"optional": True} if item.optional else {}),
             **({"same": item.same} if item.same else {})}
    spec = Call.of("ScenarioSpec", item.name, Code(item.scenario.name), arguments, doc=item.doc, **extra)
    read = f"; reads {', '.join(f'`{path}`' for path in outputs)}" if outputs else ""
    return StructuredInput("_scenarios", spec, frozenset({"ScenarioSpec"}), item.scenario.name,
                           f"{a_or_an(item.scenario.name)}{read}", "None (optional)" if item.optional else "required",
                           scenario=item.scenario.name, signature_default="None" if item.optional else "REQUIRED")
