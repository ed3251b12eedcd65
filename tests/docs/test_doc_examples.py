"""The doctest examples of every generated page (and of the runtime API's docstring) run."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import generated

PAGES = sorted((Path(__file__).resolve().parents[2] / "generated" / "docs").rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_doctests(page):
    text = page.read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{page.name}: {runner.failures} doctest failure(s)"


def test_scenario_pages_have_examples():
    scenario_pages = [p for p in PAGES if p.parent.name == "scenarios"]
    assert scenario_pages
    for page in scenario_pages:
        assert ">>> from generated import Scenarios" in page.read_text(encoding="utf-8"), page.name


def test_reference_doctest_is_on_the_training_step_page():
    text = (Path(generated.__file__).parent / "docs" / "scenarios" / "MlpTrainingStepScenario.md").read_text()
    assert ">>> round(float(scenario.op_flops['matmul1'].magnitude), 4)\n6422528.0" in text


def test_runtime_api_docstring():
    result = doctest.testmod(generated, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_readme_examples():
    readme = Path(__file__).resolve().parents[2] / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
