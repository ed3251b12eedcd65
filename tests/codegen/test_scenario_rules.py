"""The rules a scenario module meets (symbolic/scenarios/README.md, "The rules a scenario meets"), one
check at generation whose messages say what to add or rename."""

from __future__ import annotations

import pytest

import symbolic.codegen.rules as rules
from symbolic.model import Input, Output, Scenario
from symbolic.runtime.errors import DeclarationError
from symbolic.scenarios.discover import ScenarioModule


class TinyScenario(Scenario):
    """A tiny scenario."""

    x = Input("GB", positive=True)
    y = Output(2 * x, "GB")


def _tree(tmp_path, monkeypatch, test: bool) -> None:
    (tmp_path / "symbolic/scenarios/framework").mkdir(parents=True)
    (tmp_path / "symbolic/scenarios/framework/tiny.py").write_text("")
    if test:
        (tmp_path / "tests/scenarios/framework").mkdir(parents=True)
        (tmp_path / "tests/scenarios/framework/test_tiny.py").write_text("")
    monkeypatch.setattr(rules, "ROOT", tmp_path)


def test_a_scenario_module_needs_its_test_file(tmp_path, monkeypatch):
    _tree(tmp_path, monkeypatch, test=False)
    with pytest.raises(DeclarationError, match="has no test file; add tests/scenarios/framework/test_tiny.py"):
        rules.check_rules(ScenarioModule("tiny", "framework", TinyScenario.model, ()))
    _tree(tmp_path / "with", monkeypatch, test=True)
    rules.check_rules(ScenarioModule("tiny", "framework", TinyScenario.model, ()))


def test_a_module_is_named_after_its_class(tmp_path, monkeypatch):
    _tree(tmp_path, monkeypatch, test=True)
    (tmp_path / "symbolic/scenarios/framework/small.py").write_text("")
    with pytest.raises(DeclarationError, match="declares TinyScenario, whose module is named tiny.py"):
        rules.check_rules(ScenarioModule("small", "framework", TinyScenario.model, ()))
