"""The rules a scenario module must meet beyond its math, checked in one place at generation (stated in
symbolic/scenarios/README.md, "The rules a scenario meets"): each message says what to add or rename.

* names: ``symbolic/scenarios/<family>/<module>.py`` declares the class whose name, without a trailing
  ``Scenario``, is the module's name in CamelCase (``kv_decode_batch`` -> ``KvDecodeBatchScenario``);
* a test file per scenario module, ``tests/scenarios/<family>/test_<module>.py``, with its outputs worked by
  hand (the physics rule: every derived quantity against an independent hand calculation);
The share rule (a dimensionless output named ``share``, ``fraction``, ``utilization`` or ``efficiency``
lies in [0, 1] unless ``bounds`` says otherwise) needs numbers: tests/physics/test_physics_generated.py holds
every scenario to it at the corners of its domain.
"""

from __future__ import annotations

import re

from symbolic.codegen.locations import PACKAGE
from symbolic.runtime.errors import DeclarationError
from symbolic.scenarios.discover import ScenarioModule

ROOT = PACKAGE.parent


def check_rules(module: ScenarioModule) -> None:
    """Refuse a scenario module of the source tree that breaks a rule, saying what to add or rename (a module
    rendered from elsewhere, as a test's, has no file to hold to them)."""
    model = module.model
    if (ROOT / module.source).is_file():
        expected = re.sub(r"(?<!^)(?=[A-Z])", "_", model.name.removesuffix("Scenario")).lower()
        if expected != module.name:
            raise DeclarationError(f"{module.source}: declares {model.name}, whose module is named {expected}.py "
                                   f"(the class name without 'Scenario', in snake_case): rename the file or the class")
        test = f"tests/scenarios/{module.family}/test_{module.name}.py"
        if not (ROOT / test).is_file():
            raise DeclarationError(f"{module.source}: has no test file; add {test} working its outputs by hand "
                                   "(symbolic/scenarios/README.md, 'The rules a scenario meets')")
