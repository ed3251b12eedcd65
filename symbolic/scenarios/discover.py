"""Find the scenario modules in their family folders, their classes and their registry instances."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from dataclasses import dataclass

from symbolic.model.instances import Instance
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
    def category(self) -> str:
        """The docs category: the title of its family folder ("" for a module outside them, e.g. in a test)."""
        return FAMILIES.get(self.family, "")

    @property
    def source(self) -> str:
        return f"symbolic/scenarios/{self.family}/{self.name}.py"


def scenario_files() -> list[tuple[str, str]]:
    """``(family, snake_name)`` of every scenario module, sorted by name; strays are errors."""
    own = __name__.rpartition(".")[2]  # this module is the package's own code, not a scenario
    strays = [info.name for info in pkgutil.iter_modules([str(HERE)]) if not info.ispkg and info.name != own]
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


def load(name: str) -> ScenarioModule:
    """Import one scenario module (and what it imports) and collect its class and registry entries."""
    family = dict((n, f) for f, n in scenario_files())[name]
    module = importlib.import_module(f"symbolic.scenarios.{family}.{name}")  # found by its file, named at run time
    _name_instances()
    models = [value.model for value in vars(module).values()
              if isinstance(value, type) and issubclass(value, Scenario) and value.__module__ == module.__name__]
    if len(models) != 1:
        raise DeclarationError(f"{module.__name__}: declares {len(models)} Scenario classes; one module holds one")
    instances = [value for value in vars(module).values()
                 if isinstance(value, Instance) and value.scenario.__module__ == module.__name__]
    return ScenarioModule(name, family, models[0], tuple(instances))


def _name_instances() -> None:
    """Registry keys of every loaded scenario module's entries: the module-level names they are bound to.

    Entries of imported modules are named too (an instance that is another's input is
    written as ``Scenarios.<key>``), so loading one module alone yields complete records.
    """
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("symbolic.scenarios.") or module_name.count(".") != 3:
            continue
        for key, value in vars(module).items():
            # an entry belongs to its scenario's module (others may import it as an input)
            if isinstance(value, Instance) and value.scenario.__module__ == module_name:
                if value.key and value.key != key:
                    raise DeclarationError(f"{module_name}: instance {value.key} is also bound to {key}")
                value.key = key


def discover() -> list[ScenarioModule]:
    """Every scenario module, sorted by name, with its class and named instances.

    Raises ``DuplicateNameError`` when two modules declare a scenario class or a registry
    entry of the same name (both become names in one flat ``generated`` namespace).
    """
    modules = [load(name) for _, name in sorted(scenario_files(), key=lambda found: found[1])]
    check_unique_names([(m.source, m.model.name, [i.key for i in m.instances]) for m in modules])
    return modules


def check_unique_names(modules: list[tuple[str, str, list[str]]]) -> None:
    """Scenario classes and registry entries share flat namespaces (``generated``, ``Scenarios``).

    ``modules``: ``(source path, class name, registry keys)`` of each scenario module.
    """
    owners: dict[str, str] = {}
    for source, class_name, keys in modules:
        for what, name in [("scenario class", class_name)] + [("registry entry", key) for key in keys]:
            if name in owners:
                raise DuplicateNameError(f"{what} {name!r} is declared in both {owners[name]} and {source}; "
                                         "registry and class names are unique across all scenario modules")
            owners[name] = source
