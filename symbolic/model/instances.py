"""Named instances of scenarios: the registry entries (``Scenarios.SmallKernelDispatch``).

An ``Instance`` is declared in its scenario's module and assigned to a module-level
name, which becomes its registry key. Input values are numbers, strings or catalog
references (``symbolic.catalog.refs.Ref``), so the generator can write each entry as source
that rebuilds it from the runtime catalog.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from collections.abc import Callable
from typing import Any

from symbolic.catalog.refs import Lazy, Ref, value_of
from symbolic.model.collected import ScalarQuantity
from symbolic.model.scenario import Scenario
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.units import Q_

# An entry's output, as another entry's input (``Instance.output``), is evaluated exactly by
# the analysis layer above this one; ``symbolic.analysis.exact`` installs its evaluator here
# when it is imported (every reader of such a value imports it).
_EVALUATOR: dict[str, Callable[[Instance, str], Any]] = {}


def evaluate_outputs_with(evaluator: Callable[[Instance, str], Any]) -> None:
    """Install the exact evaluator of ``instance``'s output ``path`` (its value in the display unit)."""
    _EVALUATOR["output"] = evaluator


class EntryRef(Ref):
    """A ``Ref`` to another registry entry's output or input: it knows that entry, so the page links to it."""

    __slots__ = ("owner",)

    def __init__(self, owner: Instance, source: Lazy, value: Lazy) -> None:
        super().__init__(source, value)
        self.owner = owner


class Instance:
    """A registry entry: a scenario class, a name, a description and its input values."""

    def __init__(self, scenario: type[Scenario], *, name: str, description: str, **inputs: Any) -> None:
        self.scenario = scenario
        self.name = name
        self.description = description
        self.inputs = inputs
        self.base: Instance | None = None
        self.key = ""  # set by the generator's discovery: the module-level name

    def variant(self, *, name: str, description: str, **changes: Any) -> Instance:
        """An entry built at runtime as ``Scenarios.<base>.variant(...)``."""
        child = Instance(self.scenario, name=name, description=description, **changes)
        child.base = self
        return child

    @property
    def source(self) -> str:
        """How generated code refers to this entry (when it is another entry's input)."""
        return f"Scenarios.{self.key}"

    def output(self, path: str) -> Ref:
        """Another entry's input taken from this entry's output ``path`` (as ``mlsysym show``
        names it: ``per_token_activations``, ``activations[none]``, ``result.total``).

        Written into the registry as ``Scenarios.<key>.activations["none"]``; its value is the
        output evaluated exactly at generation (a Quantity with a ``Fraction`` magnitude in the
        output's unit), so worked examples and solved questions see the exact number."""
        quantity = next((q for q in self.scenario.model.quantities if q.name == path), None)
        if quantity is None or not isinstance(quantity, ScalarQuantity):
            raise DeclarationError(f"{self.scenario.model.name}: no scalar output {path!r} to take a value from")
        access = re.sub(r"\[([^\]]+)\]", lambda match: f"[{json.dumps(match.group(1))}]", path)
        return EntryRef(self, Lazy(lambda: f"{self.source}.{access}"), Lazy(lambda: self._exact_output(path, quantity.unit)))

    def input(self, name: str) -> Ref:
        """Another entry's input taken from this entry's given input ``name``, written into the
        registry as ``Scenarios.<key>.<name>`` (``Gpt2XlBatch32Block.input("batch_size")``)."""
        given = self.all_inputs()
        if name not in given:
            raise DeclarationError(f"{self.scenario.model.name}: {self.name} gives no input {name!r} to take")
        return EntryRef(self, Lazy(lambda: f"{self.source}.{name}"), Lazy(lambda: value_of(given[name])))

    def _exact_output(self, path: str, unit: str) -> Any:
        model = self.scenario.model
        if "output" not in _EVALUATOR:
            raise DeclarationError(f"{model.name}: {path} of {self.key or self.name} is evaluated by "
                                   "symbolic.analysis.exact, which is not imported")
        value = _EVALUATOR["output"](self, path)
        if value is None:
            raise DeclarationError(f"{model.name}: {path} of {self.key or self.name} is unavailable (an optional "
                                   "input it needs is not given), so no entry can take its value")
        return Q_(Fraction(int(value.p), int(value.q)), unit or "dimensionless")

    def all_inputs(self) -> dict[str, Any]:
        """Every explicitly given input, the base's first for a variant."""
        inherited = self.base.all_inputs() if self.base else {}
        return {**inherited, **self.inputs}
