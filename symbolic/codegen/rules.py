"""The rules a scenario module must meet beyond its math, checked in one place at generation (stated in
symbolic/scenarios/README.md, "The rules a scenario meets"): each message says what to add or rename.

* names: ``symbolic/scenarios/<family>/<module>.py`` declares the class whose name, without a trailing
  ``Scenario``, is the module's name in CamelCase (``kv_decode_batch`` -> ``KvDecodeBatchScenario``);
* a test file per scenario module, ``tests/scenarios/<family>/test_<module>.py``, with its outputs worked by
  hand (the physics rule: every derived quantity against an independent hand calculation);
* a share (an output whose name says ``share``, ``fraction``, ``utilization`` or ``efficiency``, not
  ``ratio``) is a dimensionless number in [0, 1]: it has no unit, and an output that may leave [0, 1]
  declares its range in ``bounds`` (the physics test holds every share to it at the domain's corners).
"""

from __future__ import annotations

import re

from symbolic.codegen.locations import PACKAGE
from symbolic.runtime.errors import DeclarationError
from symbolic.scenarios.discover import ScenarioModule

SHARE_WORDS = ("share", "fraction", "utilization", "utilisation", "efficiency")
ROOT = PACKAGE.parent


def is_share(path: str, unit: str = "") -> bool:
    """Whether an output's name says it is a share of a whole (``kv_share``, ``bandwidth_utilization``)."""
    last = path.split(".")[-1].split("[")[0]
    return "ratio" not in last and any(word in last for word in SHARE_WORDS)


def check_rules(module: ScenarioModule) -> None:
    """Refuse a scenario module of the source tree that breaks a rule, saying what to declare (a module
    rendered from elsewhere, as a test's, is held to the shares rule only)."""
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
    for quantity in model.quantities:
        if not quantity.hidden and quantity.unit and is_share(quantity.name):
            raise DeclarationError(
                f"{model.name}.{quantity.name}: its name says a share (a number in [0, 1]) but it has unit "
                f"{quantity.unit!r}: make it dimensionless, or rename it (a 'ratio' may have any range)")
