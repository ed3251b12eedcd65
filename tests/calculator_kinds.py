"""The kinds of calculator feature each scenario page exercises, and the fewest pages covering them all.

The generated JavaScript evaluators are checked against Python for every class in Node.js
(tests/codegen/test_javascript.py); what a browser adds is the page's wiring, which
``docsite/calculator.js`` drives entirely from the page's data (``docsite/calculator.py``'s
``page_data``). So the kinds are read from that data: each input kind with each of its fields
that is set (a unit, an integer domain, a strict minimum, a rule default, a fleet, a key of
another input, a same= rebinding...), each output kind with its fields (a guard, a requirement,
labels, keys, columns, a method's arguments), the page's Fits and needs, contained evaluator
modules, a registry instance shown as "does not fit", and the bad-input message the browser test
types. A field of the data that this module does not classify raises (``UnclassifiedField``):
a new feature of the calculator must say which kind it is before the browser test can skip pages.

``covering_pages`` picks the pages (pages of the same kinds, such as a renamed copy, count as
one): each page that alone has some kind, then greedily the page bringing most kinds not yet
covered (ties to the smaller page), until every kind is; a scenario whose page brings no new kind
adds no browser time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from docsite_support import ROOT, calculator_module

from symbolic.runtime.paths import infeasible_paths

# Fields of the data that are text for the reader or catalog values, not a feature of the wiring.
_TEXT = {"doc", "domain", "scalar_domain", "label", "name", "kind"}
# Flags of an input that make its kind a different path through calculator.js when set.
_INPUT_FLAGS = {"unit", "integer", "minimum", "strict", "maximum", "strict_maximum", "rule", "min_length",
                "unique", "aligned_to", "case_insensitive", "optional", "fleet", "precision", "same", "key_of",
                "example", "keyword", "fields", "types", "argument", "nodes", "class", "arguments", "methods"}
_OUTPUT_FLAGS = {"unit", "requires", "labels", "guard", "keys", "columns", "arguments", "title"}
_PAGE_FIELDS = {"scenario", "module", "order", "inputs", "instances", "outputs", "fits", "needs"}


class UnclassifiedField(KeyError):
    """The calculator's data holds a field no kind accounts for: add it to calculator_kinds."""


def _set(value: Any) -> bool:
    return value is not None and value is not False and value not in ("", [], {})


def _input_kinds(name: str, spec: dict[str, Any]) -> set[str]:
    kind = spec["kind"]
    found = {f"input {kind}"}
    for field, value in spec.items():
        if field in _TEXT:
            continue
        if field == "default":
            state = "none" if value is None else "required" if value == "required" else "given"
            found.add(f"input {kind} default {state}")
        elif field == "options":
            found |= _option_kinds(kind, value)
        elif field in _INPUT_FLAGS:
            if _set(value):
                found.add(f"input {kind} {field}")
        else:
            raise UnclassifiedField(f"input {name!r} ({kind}) has field {field!r}")
    return found


def _option_kinds(kind: str, options: dict[str, Any]) -> set[str]:
    """What a select's options make the page do: a catalog value refused with a message, a node's
    peak rate by precision, a custom record, a contained instance rebound to the shared workload."""
    found = set()
    for path, option in options.items():
        if kind == "node":
            if any(value == "peak" for _, value, _ in option["fields"]):
                found.add("input node peak by precision")
            if any(error for _, _, error in option["fields"] if error):
                found.add("input node field refused")
        elif kind == "workload":
            if option["error"]:
                found.add("input workload refused")
            if not path.startswith("Models."):
                found.add("input workload custom record")
        elif kind == "scenario":
            if option.get("error"):
                found.add("input scenario cannot give an output")
            if option.get("bound"):
                found.add("input scenario rebound")
                if any(bound["error"] for bound in option["bound"].values()):
                    found.add("input scenario rebound refused")
    return found


def _output_kinds(output: dict[str, Any], inside: str = "") -> set[str]:
    kind = output["kind"]
    found = {f"output {kind}{inside}"}
    for field, value in output.items():
        if field in _TEXT:
            continue
        if field == "fields":
            for inner in value:
                found |= _output_kinds(inner, f" in a {kind}")
        elif field in _OUTPUT_FLAGS:
            if _set(value):
                found.add(f"output {kind} {field}")
        else:
            raise UnclassifiedField(f"output {output['name']!r} ({kind}) has field {field!r}")
    return found


def _bad_input_kind(cls: type) -> set[str]:
    """Which of validation's messages the browser test's bad input shows (see its ``_bad_inputs``)."""
    from symbolic.runtime.validation import ListSpec

    for spec in cls._specs:
        if isinstance(spec, ListSpec):
            continue
        if spec.minimum is not None:
            return {f"bad input below a {'strict ' if spec.strict else ''}minimum"}
        return {"bad input not a whole number" if spec.integer else "bad input text and tiny numbers only"}
    return {"bad input: no scalar input"}


@lru_cache(maxsize=None)
def page_kinds(cls: type) -> frozenset[str]:
    """Every kind of calculator feature ``cls``'s page exercises."""
    calculator = calculator_module()
    data = calculator.page_data(cls)
    unknown = set(data) - _PAGE_FIELDS
    if unknown:
        raise UnclassifiedField(f"{cls.__name__}'s calculator data has fields {sorted(unknown)}")
    found: set[str] = set()
    for name, spec in data["inputs"].items():
        found |= _input_kinds(name, spec)
    for output in data["outputs"]:
        found |= _output_kinds(output)
    if data["fits"]:
        found.add("page fits")
    if data["needs"]:
        found.add("page needs")
    if len(data["instances"]) > 1:
        found.add("page several instances")
    if calculator._contained_modules(data["module"]):
        found.add("page contained evaluator modules")
    from generated import Scenarios

    if any(infeasible_paths(getattr(Scenarios, key)) for key in data["instances"]):
        found.add("page an instance shows does not fit")
    return frozenset(found | _bad_input_kind(cls))


def covering_pages(classes: list[type]) -> list[type]:
    """The fewest pages whose kinds cover every class's. Pages with the same kinds count as one (the
    smaller page, then the first by name, stands for them); first each page that alone has some kind,
    then greedily the page bringing most kinds not yet covered, ties to the smaller page (its generated
    Markdown: less to load), then by name. Deterministic; a page with no new kind is never chosen."""
    alike: dict[frozenset[str], type] = {}
    for cls in sorted(classes, key=lambda cls: (_page_size(cls), cls.__name__)):
        alike.setdefault(page_kinds(cls), cls)
    candidates = list(alike.values())
    owners: dict[str, list[type]] = {}
    for cls in candidates:
        for kind in page_kinds(cls):
            owners.setdefault(kind, []).append(cls)
    chosen = [cls for cls in candidates if any(owners[kind] == [cls] for kind in page_kinds(cls))]
    remaining = set(owners) - set().union(*(page_kinds(cls) for cls in chosen))
    while remaining:
        best = max(candidates, key=lambda cls: len(page_kinds(cls) & remaining))  # max keeps the first of ties
        chosen.append(best)
        remaining -= page_kinds(best)
    return sorted(chosen, key=lambda cls: cls.__name__)


def _page_size(cls: type) -> int:
    page = ROOT / "generated" / "docs" / "scenarios" / f"{cls.__name__}.md"
    return page.stat().st_size if page.is_file() else 0
