"""Find the scenario modules, their scenario classes and their registry instances."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

import symbolic.scenarios
from symbolic.instances import Instance
from symbolic.model import Scenario, ScenarioModel
from symbolic.runtime.errors import DeclarationError


@dataclass(frozen=True)
class ScenarioModule:
    """One hand-written module under ``symbolic/scenarios`` and what it declares."""

    name: str  # e.g. "mlp_training_step"
    model: ScenarioModel
    instances: tuple[Instance, ...]

    @property
    def source(self) -> str:
        return f"symbolic/scenarios/{self.name}.py"


def discover() -> list[ScenarioModule]:
    """Every scenario module, sorted by name, with its classes and named instances."""
    modules = []
    for info in sorted(pkgutil.iter_modules(symbolic.scenarios.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"symbolic.scenarios.{info.name}")
        models, instances = [], []
        for key, value in vars(module).items():
            if isinstance(value, type) and issubclass(value, Scenario) and value.__module__ == module.__name__:
                models.append(value.model)
            elif isinstance(value, Instance) and value.scenario.__module__ == module.__name__:
                # an entry belongs to its scenario's module (others may import it as an input)
                if value.key and value.key != key:
                    raise DeclarationError(f"{module.__name__}: instance {value.key} is also bound to {key}")
                value.key = key
                instances.append(value)
        if len(models) != 1:
            raise DeclarationError(f"{module.__name__}: declares {len(models)} Scenario classes; one module holds one")
        modules.append(ScenarioModule(info.name, models[0], tuple(instances)))
    return modules
