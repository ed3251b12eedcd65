"""Find the scenario modules in their family folders, their classes and their registry instances."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from symbolic.instances import Instance
from symbolic.model import Scenario, ScenarioModel
from symbolic.runtime.errors import DeclarationError, DuplicateNameError
from symbolic.scenarios import FAMILIES, HERE


@dataclass(frozen=True)
class ScenarioModule:
    """One hand-written module under ``symbolic/scenarios/<family>/`` and what it declares."""

    name: str  # e.g. "mlp_training_step"; its generated module is generated/<name>.py
    family: str  # e.g. "framework"
    model: ScenarioModel
    instances: tuple[Instance, ...]

    @property
    def source(self) -> str:
        return f"symbolic/scenarios/{self.family}/{self.name}.py"


def scenario_files() -> list[tuple[str, str]]:
    """``(family, snake_name)`` of every scenario module, sorted by name; strays are errors."""
    strays = [info.name for info in pkgutil.iter_modules([str(HERE)]) if not info.ispkg]
    if strays:
        raise DeclarationError(f"symbolic/scenarios/{strays[0]}.py: move it into a family folder "
                               f"({', '.join(FAMILIES)})")
    found: dict[str, str] = {}
    for folder in sorted(HERE.iterdir()):
        if not folder.is_dir() or folder.name.startswith(("_", ".")):
            continue
        if folder.name not in FAMILIES:
            raise DeclarationError(f"symbolic/scenarios/{folder.name}/ is not a family folder; "
                                   f"the families are {', '.join(FAMILIES)} (symbolic/scenarios/__init__.py)")
        for info in pkgutil.iter_modules([str(folder)]):
            if info.name in found:  # generated modules are flat: generated/<name>.py
                raise DuplicateNameError(f"scenario module {info.name!r} exists in both symbolic/scenarios/"
                                         f"{found[info.name]}/ and symbolic/scenarios/{folder.name}/")
            found[info.name] = folder.name
    return sorted((family, name) for name, family in found.items())


def discover() -> list[ScenarioModule]:
    """Every scenario module, sorted by name, with its class and named instances.

    Raises ``DuplicateNameError`` when two modules declare a scenario class or a registry
    entry of the same name (both become names in one flat ``generated`` namespace).
    """
    modules = []
    for family, name in sorted(scenario_files(), key=lambda found: found[1]):
        module = importlib.import_module(f"symbolic.scenarios.{family}.{name}")
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
        modules.append(ScenarioModule(name, family, models[0], tuple(instances)))
    check_unique_names(modules)
    return modules


def check_unique_names(modules: list[ScenarioModule]) -> None:
    """Scenario classes and registry entries share flat namespaces (``generated``, ``Scenarios``)."""
    owners: dict[str, str] = {}
    for module in modules:
        for what, name in [("scenario class", module.model.name)] + [("registry entry", i.key) for i in module.instances]:
            if name in owners:
                raise DuplicateNameError(f"{what} {name!r} is declared in both {owners[name]} and {module.source}; "
                                         "registry and class names are unique across all scenario modules")
            owners[name] = module.source
