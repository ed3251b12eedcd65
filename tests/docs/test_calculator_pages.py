"""Every scenario page's calculator section, without a browser; which pages the browser visits.

The browser test (test_calculator_browser.py) visits only the pages that between them exercise
every kind of calculator feature (tests/calculator_kinds.py). Here, for every page of the built
site: its calculator section is the one ``docsite/calculator.py`` builds now for its class, it
parses (one section, one data block, one module script, the elements calculator.js looks up), its
data is JSON naming its class, module and registry instances, and its evaluator is served.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from calculator_kinds import UnclassifiedField, covering_pages, page_kinds
from docsite_support import built_site, calculator_module

import generated
from generated import Scenarios

CLASSES = list(generated.SCENARIO_CLASSES)
SECTION = re.compile(r'<section class="calculator".*?</section>', re.DOTALL)
# what docsite/calculator.js looks up in the section
ELEMENTS = {("select", "calc-start"), ("form", "calc-form"), ("p", "calc-error"), ("table", "calc-outputs"),
            ("tbody", ""), ("code", "calc-python"), ("code", "calc-cli"), ("button", "calc-copy-python"),
            ("button", "calc-copy-cli")}


class _Section(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, str]] = []
        self.scripts: list[dict[str, str | None]] = []
        self.open: list[str] = []
        self.data: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes.get("class") or ""))
        if tag == "script":
            self.scripts.append(attributes)
        if tag not in ("input", "br", "img", "meta", "link"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()

    def handle_data(self, data):
        if self.open and self.open[-1] == "script":
            self.data[self.scripts[-1].get("id") or "module"] = data


@pytest.fixture(scope="module")
def pages():
    root = built_site() / "scenarios"
    return {cls.__name__: (root / f"{cls.__name__}.html").read_text(encoding="utf-8") for cls in CLASSES}


def test_every_page_has_its_calculator_and_it_parses(pages):
    calculator = calculator_module()
    js = built_site() / "js"
    problems = []
    for cls in CLASSES:
        name = cls.__name__
        found = SECTION.findall(pages[name])
        if len(found) != 1 or found[0] != calculator.section_html(name).rstrip("\n"):
            problems.append(f"{name}: {len(found)} calculator sections, not the one calculator.py builds")
            continue
        parsed = _Section()
        parsed.feed(found[0])
        parsed.close()
        missing = ELEMENTS - set(parsed.tags)
        types = sorted(script.get("type") or "" for script in parsed.scripts)
        data = json.loads(parsed.data.get("calculator-data", "null"))
        registry = sorted(key for key in Scenarios if type(getattr(Scenarios, key)) is cls)
        if missing or parsed.open or types != ["application/json", "module"]:
            problems.append(f"{name}: missing {missing}, unclosed {parsed.open}, scripts {types}")
        elif data["scenario"] != name or sorted(data["instances"]) != registry or not registry:
            problems.append(f"{name}: its data is {data['scenario']}'s, instances {sorted(data['instances'])}")
        elif not (js / f"{data['module']}.mjs").is_file() or "export function evaluate" not in data["code"]["evaluator"]:
            problems.append(f"{name}: evaluator module {data['module']} not on the site or not in the page")
        elif parsed.data["module"] != calculator._script():
            problems.append(f"{name}: its module script is not docsite/calculator.js")
    assert not problems, "\n".join(problems)


def test_the_browser_pages_cover_every_kind_of_every_page():
    chosen = covering_pages(CLASSES)
    every = set().union(*(page_kinds(cls) for cls in CLASSES))
    assert set().union(*(page_kinds(cls) for cls in chosen)) == every
    assert len(chosen) < len(CLASSES)
    assert covering_pages(list(reversed(CLASSES))) == chosen  # the same pages whatever the order


def test_kinds_tell_features_apart_and_a_new_field_must_be_classified(monkeypatch):
    kinds = {cls.__name__: page_kinds(cls) for cls in CLASSES}
    assert "input node fleet" in kinds["TrainingRunScenario"] and "input node fleet" not in kinds["IronLawScenario"]
    assert {"input dataset", "page fits"} <= kinds["DenseNetworkScenario"] | kinds["KvDecodeBatchScenario"]
    page_data = calculator_module().page_data

    def with_new_field(cls):
        data = page_data(cls)
        next(iter(data["inputs"].values()))["wobble"] = True
        return data

    monkeypatch.setattr(calculator_module(), "page_data", with_new_field)
    page_kinds.cache_clear()
    try:
        with pytest.raises(UnclassifiedField, match="wobble"):
            page_kinds(CLASSES[0])
    finally:
        page_kinds.cache_clear()
