"""Every registry entry of every discovered scenario: the generated evaluator against exact sympy.

The per-scenario suites under ``tests/scenarios/`` hold the hand calculations; this one
needs no edit when a scenario is added: it walks the registry.
"""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten, table_paths

from generated import Scenarios
from symbolic.scenarios.discover import discover

MODELS = {module.model.name: module.model for module in discover()}


@pytest.mark.parametrize("key", list(Scenarios))
def test_registry_entry_matches_exact_evaluation(key):
    scenario = getattr(Scenarios, key)
    model = MODELS[type(scenario).__name__]
    tables = {quantity.table for quantity in model.quantities if quantity.table}
    got = table_paths(flatten(scenario._evaluated()), tables)  # every number, those of a setup that does not fit too
    exact = exact_outputs(model, scenario._args)
    shown = {q.name for q in model.quantities if not q.hidden and q.kind != "text"}
    assert shown <= set(got), f"outputs missing from the evaluator: {sorted(shown - set(got))}"
    assert_matches_exact(got, {name: exact[name] for name in shown})
