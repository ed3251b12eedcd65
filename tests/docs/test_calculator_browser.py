"""The scenario pages' calculators, in a real browser (Debian's Chromium over the DevTools pipe).

One browser session visits the fewest scenario pages that between them exercise every kind of
calculator feature (tests/calculator_kinds.py: input kinds and their fields, output kinds, Fits,
contained modules...; the evaluators themselves are checked against Python for every class in
Node.js by tests/codegen/test_javascript.py, and every page's calculator section is checked
without a browser by tests/docs/test_calculator_pages.py). On each it checks that the
outputs the page shows for every registry instance (chosen in its "Start from" list) equal the
Python evaluator's, that the page's form path (text as typed -> validation -> generated
evaluator) gives the Python evaluator's outputs on the registry instances and on 50 random valid
variants (relative 1e-12, integers exactly; evaluated in-page in one batch per page), and that
invalid input shows the very message the Python API raises, with no number left on screen.
It also checks the URL state (a shared what-if, hostile text shown as text) and saves a
screenshot of one calculator to build/artifacts/calculator.png.
"""

from __future__ import annotations

import json
import random
import shlex
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest
from cdp import Browser
from calculator_kinds import covering_pages, page_kinds
from docsite_support import ROOT, built_site, calculator_module, docsite_build, require_debian
from javascript_support import has_big_integer, mismatches, python_result, random_variant, registry_instances

import generated
from symbolic.runtime.paths import infeasible_paths, mask_leaves
from generated import MlsysymError, Scenarios
from symbolic.runtime.validation import ListSpec

ARTIFACTS = ROOT / "build" / "artifacts"
RANDOM_PER_PAGE = 50
TIMINGS: dict[str, float] = {}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    require_debian(docsite_build().debian_packages("browser"), "chromium")
    root = built_site()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    browser = Browser()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", browser
    browser.close()
    httpd.shutdown()
    httpd.server_close()


def _open(browser: Browser, base: str, name: str, query: str = "") -> float:
    browser.navigate(f"{base}/scenarios/{name}.html{query}", "window.mlsysymCalculator")
    return browser.evaluate("window.mlsysymCalculator.ready")


def _numbers(tree) -> list[float]:
    """Every number of an evaluator result, depth first (text, booleans and None left out)."""
    if isinstance(tree, dict):
        return [n for value in tree.values() for n in _numbers(value)]
    if isinstance(tree, list):
        return [n for value in tree for n in _numbers(value)]
    return [tree] if isinstance(tree, (int, float)) and not isinstance(tree, bool) else []


def _random_values(form_text, cls, rng) -> list[tuple[dict, dict]]:
    """(form values, evaluator arguments, the instance drawn from) of random valid variants of ``cls``'s registry
    instances."""
    found = []
    bases = registry_instances()[cls]
    for _ in range(RANDOM_PER_PAGE * 6):
        if len(found) == RANDOM_PER_PAGE:
            break
        base = rng.choice(bases)
        variant = random_variant(rng, base)
        if variant is None or has_big_integer(variant._args):
            continue
        try:
            python_result(cls.__module__.rsplit(".", 1)[-1], variant._args)
        except (ZeroDivisionError, OverflowError):
            continue
        found.append(({name: form_text(value) or "" for name, value in variant._given.items()}, dict(variant._args), base))
    return found


def _examples(cls) -> dict[str, object]:
    """The evaluator's values of the methods' arguments a page starts at: each declared example (a key:
    the first of its input, position 0)."""
    return {a.argument: 0 if a.key_of else a.example
            for name in cls._methods for a in cls.__dict__[name].arguments if a.key_of or a.example is not None}


def _bad_inputs(cls) -> list[tuple[str, str, object]]:
    """(input, text typed, the value Python is given) for inputs outside their domain."""
    bad = []
    for spec in cls._specs:
        if isinstance(spec, ListSpec):
            continue
        bad.append((spec.name, "12 apples", "12 apples"))
        bad.append((spec.name, "1e-310", 1e-310))  # below the normal doubles: too few digits to compute with
        if spec.minimum is not None:
            low = spec.minimum - 1 if not spec.strict else spec.minimum
            bad.append((spec.name, str(int(low)) if float(low).is_integer() else repr(low), int(low) if float(low).is_integer() else low))
        elif spec.integer:
            bad.append((spec.name, "2.5", 2.5))
        break
    return bad


def test_every_kind_of_calculator_matches_python_and_refuses_bad_input(site):
    base, browser = site
    form_text = calculator_module()._form_text
    rng = random.Random(29)
    started = time.perf_counter()
    failures, first_results, checked, refused = [], [], 0, 0
    instances = registry_instances()
    classes = covering_pages(list(generated.SCENARIO_CLASSES))
    TIMINGS["pages visited"] = len(classes)
    tabs = [browser.first, browser.tab()]  # the next page loads in one while the other is checked
    tabs[0].start(f"{base}/scenarios/{classes[0].__name__}.html")
    for position, cls in enumerate(classes):
        name = cls.__name__
        module = cls.__module__.rsplit(".", 1)[-1]
        tab = tabs[position % 2]
        if position + 1 < len(classes):
            tabs[(position + 1) % 2].start(f"{base}/scenarios/{classes[position + 1].__name__}.html")
        waited = time.perf_counter()
        tab.wait("window.mlsysymCalculator")
        TIMINGS["waiting for pages"] = TIMINGS.get("waiting for pages", 0) + time.perf_counter() - waited
        first_results.append(tab.evaluate("[window.mlsysymCalculator.ready, window.mlsysymCalculator.ready"
                                          " - performance.getEntriesByType('navigation')[0].domInteractive]"))
        # 1. what the page shows for each registry instance, chosen in its list
        for scenario in instances[cls]:
            key = next(k for k in Scenarios if getattr(Scenarios, k) is scenario)
            shown = tab.evaluate(
                "(() => { const s = document.querySelector('select.calc-start'); s.value = " + json.dumps(key)
                + "; s.dispatchEvent(new Event('change')); return [document.querySelector('.calc-error').textContent,"
                " [...document.querySelectorAll('td.calc-value[data-value]')].map((c) => c.dataset.value)]; })()")
            error, cells = shown
            shown_values = python_result(module, {**scenario._args, **_examples(cls)})
            mask_leaves(shown_values, infeasible_paths(scenario))  # "does not fit" there, as show() says
            expected = sorted(_numbers(shown_values))
            got = sorted(float(c) for c in cells if c not in ("true", "false") and not c.isalpha() and _is_number(c))
            if error or mismatches([float(x) for x in expected], got):
                failures.append(f"{name} {key}: page shows {error!r} {got[:5]} vs {expected[:5]}")
        # 2. the form's path on the registry instances and random valid variants, in one batch
        cases = [({n: form_text(v) or "" for n, v in s._given.items()}, dict(s._args), s) for s in instances[cls]]
        registry_values = [values for values, _, _ in cases]
        cases += _random_values(form_text, cls, rng)
        answers = tab.evaluate("(" + json.dumps([values for values, _, _ in cases])
                                   + ").map((v) => { const r = window.mlsysymCalculator.run(v);"
                                   " return r.error !== undefined ? {error: r.error} : {result: r.result}; })")
        for (values, args, _), answer in zip(cases, answers, strict=True):
            checked += 1
            if "error" in answer and "2^53" in answer["error"] and values not in registry_values:
                refused += 1  # an integer step no double holds: refused, as documented, never rounded
                continue
            if "error" in answer:
                failures.append(f"{name}: the page refused valid input {values}: {answer['error']}")
                continue
            found = mismatches(python_result(module, args), answer["result"])
            if found:
                failures.append(f"{name} {values}: {found[:3]}")
        # 3. "copy as Python" and "copy as CLI" build the very variant on screen, started from the entry it was
        # drawn from (from another entry a custom record, such as a registry entry's own workload, is written
        # TransformerWorkload('...'), which neither builds: see /work/notes/budget.md)
        values, args, drawn_from = cases[-1]
        python_line, cli_line = tab.evaluate(
            "(() => { const c = window.mlsysymCalculator; const s = document.querySelector('select.calc-start');"
            f" s.value = {json.dumps(next(k for k in Scenarios if getattr(Scenarios, k) is drawn_from))};"
            f" s.dispatchEvent(new Event('change')); c.load({json.dumps(values)}); c.update();"
            " return [document.querySelector('.calc-python').textContent,"
            " document.querySelector('.calc-cli').textContent]; })()")
        failures += [f"{name}: {problem}" for problem in _copies_rebuild(cls, python_line, cli_line, args)]
        # 4. invalid input: Python's message, and no number left on screen
        start = instances[cls][0]
        for field, text, value in _bad_inputs(cls):
            try:
                start.variant(**{field: value})
                failures.append(f"{name}: Python accepted {field}={value!r}")
                continue
            except MlsysymError as error:
                expected_message = str(error)
            shown = tab.evaluate(
                "(() => { const c = window.mlsysymCalculator; const s = document.querySelector('select.calc-start');"
                f" s.value = {json.dumps(next(k for k in Scenarios if getattr(Scenarios, k) is start))};"
                " s.dispatchEvent(new Event('change'));"
                f" const f = document.querySelector('#calc-{field}'); f.value = {json.dumps(text)};"
                " f.dispatchEvent(new Event('input', {bubbles: true}));"
                " return [document.querySelector('.calc-error').textContent,"
                " document.querySelectorAll('td.calc-value').length]; })()")
            if shown != [expected_message, 0]:
                failures.append(f"{name} {field}={text!r}: page shows {shown!r}, Python raises {expected_message!r}")
    TIMINGS["calculator pages"] = time.perf_counter() - started
    middle = len(first_results) // 2
    TIMINGS["first result after navigation start (ms, median)"] = sorted(r[0] for r in first_results)[middle]
    TIMINGS["of which after the HTML was parsed (ms, median)"] = sorted(r[1] for r in first_results)[middle]
    first = {}
    for failure in failures:  # the first failure of each page, then how many in all
        first.setdefault(failure.split(" ")[0].rstrip(":"), failure[:600])
    assert not failures, f"{len(failures)} failures; the first of each page:\n" + "\n".join(first.values())
    assert checked >= len(classes) * RANDOM_PER_PAGE
    every_kind = set().union(*(page_kinds(cls) for cls in generated.SCENARIO_CLASSES))
    visited = set().union(*(page_kinds(cls) for cls in classes))
    assert visited == every_kind, f"kinds no page visited exercises: {sorted(every_kind - visited)}"
    assert refused <= checked // 50, f"{refused} of {checked} random cases refused as beyond 2^53"
    TIMINGS["cases checked in pages"], TIMINGS["refused beyond 2^53"] = checked, refused


def _copies_rebuild(cls, python_line: str, cli_line: str, args: dict) -> list[str]:
    """The copied Python expression and CLI line each build an instance with the evaluator arguments on screen."""
    from symbolic.cli.values import build

    problems = []
    built = eval(python_line, {"Scenarios": Scenarios, "Hardware": generated.Hardware,  # noqa: S307 - our own page's text
                               "Models": generated.Models, "Datasets": generated.Datasets, "Systems": generated.Systems})
    if built._args != args:
        problems.append(f"copy as Python {python_line!r} builds other inputs")
    words = shlex.split(cli_line)
    assert words[:5] == ["mlsysym", "eval", cls.__name__, "--from", words[4]], cli_line
    settings = [word for position, word in enumerate(words) if position > 5 and words[position - 1] == "--set"]
    if build(cls, getattr(Scenarios, words[4]), settings)._args != args:
        problems.append(f"copy as CLI {cli_line!r} builds other inputs")
    return problems


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_page_state_lives_in_the_url_and_is_only_data(site):
    base, browser = site
    hostile = '<img src=x onerror="window.pwned=1">'
    _open(browser, base, "MlpTrainingStepScenario",
          "?from=MnistTwoLayerTrainingStepOnH100&batch_size=64&hardware=Hardware.Cloud.B200")
    state = browser.evaluate("[document.querySelector('#calc-batch_size').value, document.querySelector('.calc-python')"
                             ".textContent, document.querySelector('.calc-cli').textContent,"
                             " document.querySelector('td.calc-value[data-path=\"compute_time\"]').dataset.value]")
    variant = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(batch_size=64, hardware=generated.Hardware.Cloud.B200)
    assert state[0] == "64"
    assert state[1] == "Scenarios.MnistTwoLayerTrainingStepOnH100.variant(batch_size=64, hardware=Hardware.Cloud.B200)"
    assert state[2] == ("mlsysym eval MlpTrainingStepScenario --from MnistTwoLayerTrainingStepOnH100 "
                        "--set batch_size=64 --set hardware=Hardware.Cloud.B200")
    assert float(state[3]) == pytest.approx(variant.compute_time.to("µs").magnitude, rel=1e-12)
    from symbolic.cli.values import build, scenario_class  # the CLI line builds the same variant

    cls = scenario_class("MlpTrainingStepScenario")
    assert build(cls, Scenarios.MnistTwoLayerTrainingStepOnH100, ["batch_size=64", "hardware=Hardware.Cloud.B200"]) == variant
    _open(browser, base, "MlpTrainingStepScenario", f"?from=MnistTwoLayerTrainingStepOnH100&batch_size={quote(hostile)}")
    shown = browser.evaluate("[document.querySelector('.calc-error').textContent, Boolean(window.pwned),"
                             " document.querySelectorAll('section.calculator img').length,"
                             " document.querySelectorAll('td.calc-value').length]")
    try:
        Scenarios.MnistTwoLayerTrainingStepOnH100.variant(batch_size=hostile)
    except MlsysymError as error:
        assert shown == [str(error), False, 0, 0]


@pytest.mark.parametrize(("page", "query", "change"), [
    ("MlpTrainingStepScenario", "?from=MnistTwoLayerTrainingStepOnH100&precision=fp99", {"precision": "fp99"}),
    ("MlpTrainingStepScenario", "?from=MnistTwoLayerTrainingStepOnH100&hardware=Hardware.Mobile.iPhone15Pro",
     {"hardware": generated.Hardware.Mobile.iPhone15Pro}),
    ("AllReduceScheduleScenario", "", {"time_saved_fraction": 2}),
])
def test_catalog_and_requirement_errors_are_pythons(site, page, query, change):
    """A precision the node does not list (from the URL, or kept when the node changes) and a
    broken requirement between inputs show the message the Python API raises."""
    base, browser = site
    cls = type(getattr(Scenarios, next(k for k in Scenarios if type(getattr(Scenarios, k)).__name__ == page)))
    start = registry_instances()[cls][0]
    key = next(k for k in Scenarios if getattr(Scenarios, k) is start)
    if not query:
        (name, value), = change.items()
        query = f"?from={key}&{name}={value}"
    _open(browser, base, page, query)
    with pytest.raises(MlsysymError) as raised:
        start.variant(**change)
    shown = browser.evaluate("[document.querySelector('.calc-error').textContent,"
                             " document.querySelectorAll('td.calc-value').length]")
    assert shown == [str(raised.value), 0]


def test_copies_of_a_fleet_and_a_keyed_list_rebuild_the_instance(site):
    base, browser = site
    for page, key, change, query in [
        ("TrainingRunScenario", "Gpt3PretrainingFrontier8K", {"fleet": generated.Systems.Clusters.DgxH100SuperPodSU},
         "fleet=Systems.Clusters.DgxH100SuperPodSU"),
        ("AlphaBetaScenario", "CriticalSizeByInterconnect", None, "messages=" + quote("tiny: 1, huge message: 1e9")),
    ]:
        _open(browser, base, page, f"?from={key}&{query}")
        start = getattr(Scenarios, key)
        variant = start.variant(**(change or {"messages": {"tiny": 1, "huge message": 1e9}}))
        python_line, cli_line, error = browser.evaluate(
            "[document.querySelector('.calc-python').textContent, document.querySelector('.calc-cli').textContent,"
            " document.querySelector('.calc-error').textContent]")
        assert error == "", error
        assert _copies_rebuild(type(start), python_line, cli_line, variant._args) == []


def test_works_opened_from_disk(site):
    """No server: the page's scripts and modules are inline (browsers load no module file from file://)."""
    _, browser = site
    page = built_site() / "scenarios" / "IronLawScenario.html"
    browser.navigate(page.as_uri(), "window.mlsysymCalculator")
    state = browser.evaluate("[document.querySelector('section.calculator').dataset.state,"
                             " document.querySelectorAll('td.calc-value[data-value]').length]")
    assert state[0] == "ok" and state[1] > 3, state


def test_screenshot_of_a_calculator(site):
    base, browser = site
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "calculator.png"
    shot.unlink(missing_ok=True)
    _open(browser, base, "MlpTrainingStepScenario", "?from=MnistTwoLayerTrainingStepOnH100&batch_size=256")
    browser.evaluate("document.querySelector('section.calculator').scrollIntoView()")
    browser.screenshot(shot)
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 30_000
    print(f"\ncalculator screenshot: {shot}; timings: {TIMINGS}")


def test_what_does_not_fit_an_input_no_output_reads_and_a_shared_workload(site):
    """Issue 24: the page shows "does not fit" where the class refuses an output, refuses an optional input
    given without the one that makes it matter with Python's message, and rebinds a contained instance of
    another model to the workload chosen, as variant() and --set do."""
    base, browser = site
    _open(browser, base, "DecodeScenario", "?from=Llama3_70B_DecodeH100")  # 141.2 GB on one 80 GiB H100
    cells = browser.evaluate("Object.fromEntries([...document.querySelectorAll('td.calc-value')]"
                             ".map((c) => [c.dataset.path, c.textContent]))")
    assert cells["result.compute_time"].startswith("does not fit: each device's share of the weights")
    assert cells["fits"] == "False" and cells["result.weight_bytes"] != ""
    entry = Scenarios.Gpt2XlKvFullWindow
    with pytest.raises(MlsysymError) as raised:
        entry.variant(kv_share=0.5)
    _open(browser, base, "KvFootprintScenario", "?from=Gpt2XlKvFullWindow&kv_share=0.5")
    assert browser.evaluate("document.querySelector('.calc-error').textContent") == str(raised.value)
    _open(browser, base, "ZeroShardingScenario", "?from=Gpt3Zero3On64&workload=Models.Language.Llama3_8B")
    error, total = browser.evaluate(
        "[document.querySelector('.calc-error').textContent, document.querySelector("
        "'td.calc-value[data-path=\"result.zero3_total_per_device\"]').dataset.value]")
    expected = Scenarios.Gpt3Zero3On64.variant(workload=generated.Models.Language.Llama3_8B)
    assert error == ""
    assert float(total) == pytest.approx(expected.result.zero3_total_per_device.to("GB").magnitude, rel=1e-12)
