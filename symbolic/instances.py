"""Named instances of scenarios: the registry entries (``Scenarios.SmallKernelDispatch``).

An ``Instance`` is declared in its scenario's module and assigned to a module-level
name, which becomes its registry key. Input values are numbers, strings or catalog
references (``symbolic.refs.Ref``), so the generator can write each entry as source
that rebuilds it from the runtime catalog.
"""

from __future__ import annotations

from typing import Any

from symbolic.model import Scenario


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

    def all_inputs(self) -> dict[str, Any]:
        """Every explicitly given input, the base's first for a variant."""
        inherited = self.base.all_inputs() if self.base else {}
        return {**inherited, **self.inputs}
