"""The docs site: its generated pages, worked examples, charts and cross-links, and the built HTML.

The built-site tests share one `mkdocs build` (about 10 s on 2 cores); the rest read the
generated Markdown, whose freshness tests/codegen/test_generator.py checks.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

import pytest

import generated
from symbolic.runtime.feasibility import value_at
from symbolic.runtime.methods import BoundMethod
from symbolic.codegen.breaking import fit
from symbolic.catalog import hardware_records
from symbolic.scenarios.discover import discover
from symbolic.codegen.site_pages import node_anchor, slug, units_page
from symbolic.analysis.exact import evaluate, instance_values
from symbolic.codegen.worked import number_latex, worked_example
from docsite_support import ROOT, built_site

DOCS = ROOT / "generated" / "docs"
MODULES = discover()
INSTANCES = [(module, instance) for module in MODULES for instance in module.instances]


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# -- generated pages ---------------------------------------------------------------------------
@pytest.mark.parametrize(("module", "instance"), INSTANCES, ids=[i.key for _, i in INSTANCES])
def test_every_registry_instance_has_a_worked_example_on_its_page(module, instance):
    text = page(f"scenarios/{module.model.name}.md")
    section = text.split(f"### {instance.key}\n", 1)[1].split("\n### ", 1)[0]
    assert f"Worked example: every output of {instance.key}, step by step" in section
    steps = worked_example(module.model, instance).steps
    assert steps and all(f"`{step.name}`](#" in section and f"): ${fit(step.latex)}$\n" in section for step in steps)


def _attribute(obj, path: str):
    for part in re.findall(r"[^.\[\]]+|\[[^\]]+\]", path):
        obj = obj[part[1:-1]] if part.startswith("[") else getattr(obj, part)
    return obj


def _labels(outputs, path):
    """The labels of the output at ``path`` ("result.bottleneck"), searched through groups."""
    head, _, rest = path.partition(".")
    output = next(o for o in outputs if o.name == head)
    return _labels(output.members, rest) if rest else output.labels


def _at_examples(runtime, bound):
    """A method at the values its arguments' docs examples take (a key: its input's first), or None."""
    values = []
    for argument in bound._method.arguments:
        value = next(iter(runtime._given[argument.key_of])) if argument.key_of else argument.example
        if value is None:
            return None
        values.append(value)
    try:
        return bound(*values)
    except generated.MissingInputError:
        return None


@pytest.mark.parametrize(("module", "instance"), INSTANCES, ids=[i.key for _, i in INSTANCES])
def test_worked_examples_agree_with_the_generated_runtime(module, instance):
    """The exact sympy numbers of the docs equal what `generated.Scenarios` computes."""
    evaluation = evaluate(module.model, instance_values(instance))
    runtime = getattr(generated.Scenarios, instance.key)
    checked = 0
    for quantity in module.model.quantities:
        if quantity.hidden:
            continue
        expected = evaluation.shown[quantity.name]
        try:
            actual = _attribute(runtime, quantity.name)
        except generated.MissingInputError:  # an output that needs an optional input the instance leaves out
            actual = None
        except generated.InfeasibleError:  # an output of a setup that does not fit: the evaluator's number
            actual = value_at(runtime._evaluated(), quantity.name)
        if isinstance(actual, BoundMethod):  # a method: the docs show it at its arguments' examples
            actual = _at_examples(runtime, actual)
        if expected is None or isinstance(expected, str):
            assert actual == expected, quantity.name
            continue
        if isinstance(actual, str):  # a labelled choice: the runtime shows the label of the computed value
            assert actual == _labels(module.model.outputs, quantity.name)[int(expected)], quantity.name
            continue
        expected = expected if isinstance(expected, list) else [expected]
        if isinstance(actual, dict):  # a keyed list output, or a grid (a dict of dicts, row by row)
            actual = [cell for row in actual.values() for cell in (row.values() if isinstance(row, dict) else [row])]
        actual = actual if isinstance(actual, list) else [actual]
        for want, got in zip(expected, actual, strict=True):
            magnitude = got.to(quantity.unit).magnitude if hasattr(got, "units") else got
            assert math.isclose(float(magnitude), float(want), rel_tol=1e-9, abs_tol=1e-300), quantity.name
            checked += 1
    assert checked > 0


def test_worked_example_rows_read_formula_numbers_result():
    module = next(m for m in MODULES if m.model.name == "MlpTrainingStepScenario")
    steps = {s.name: s for s in worked_example(module.model, module.instances[0]).steps}
    assert steps["op_flops[matmul1]"].latex == (
        r"\mathrm{op\_flops}_{\mathrm{matmul1}} = 2 b h i\,\mathrm{flop} = 2 \cdot 32 \cdot 128 \cdot 784\,\mathrm{flop}"
        r" = 6\,422\,528\,\mathrm{flop}")
    assert steps["compute_time"].latex.endswith(r"\approx 195.5\,\mathrm{ns}")  # 0.1955 µs, read at its scale
    assert r"67\,\mathrm{TFLOP/s}" in steps["compute_time"].latex  # the H100's fp32 peak, substituted


def test_number_formatting():
    assert number_latex(6422528) == (r"6\,422\,528", True)
    assert number_latex(0.5) == ("0.5", True)
    assert number_latex(1 / 3) == ("0.3333", False)
    assert number_latex(67e12) == (r"6.7 \times 10^{13}", False)


def test_index_links_every_scenario_and_the_catalog_pages():
    text = page("index.md")
    for module in MODULES:
        assert f"(scenarios/{module.model.name}.md)" in text
    for target in ("hardware.md", "outputs.md", "units.md"):
        assert f"({target})" in text


def test_hardware_page_has_every_node_with_its_ridge_points():
    text = page("hardware.md")
    for record in hardware_records():
        assert f"\n### Hardware.{record.path}\n" in text, record.path
        bandwidth = float(record.memory_bandwidth.base)
        for key, rate in record.precision_flops.items():
            row = f"| `{key}` | {rate.text} |"
            assert row in text, (record.path, key)
            assert f"| {float(rate.base) / bandwidth:.4g} |" in text
    assert text.count("\n### Hardware.") == len(hardware_records())


def test_units_page_has_every_definition_of_the_units_file():
    text = page("units.md")
    names = [line.split("=")[0].strip().rstrip("-") for line in (ROOT / "symbolic" / "units.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert names and all(f"| `{name}` |" in text for name in names)
    assert sum(len(s["units"]) + len(s["prefixes"]) for s in units_page()["sections"]) == len(names)


def test_outputs_index_lists_every_output_alphabetically():
    text = page("outputs.md")
    rows = re.findall(r"^\| \[`([^`]+)`\]\(scenarios/(\w+)\.md#([\w-]*)\)", text, re.MULTILINE)
    names = [path.split(".")[-1].lower() for path, _, _ in rows]
    assert names == sorted(names)
    for module in MODULES:
        scenario = page(f"scenarios/{module.model.name}.md")
        for output in module.model.outputs:
            if output.kind != "group":
                assert (output.name, module.model.name, slug(output.name)) in rows
        assert scenario  # and each target page exists


def test_every_equation_has_a_symbol_legend_linking_its_symbols():
    for module in MODULES:
        text = page(f"scenarios/{module.model.name}.md")
        equations = text.split("\n## Equations\n", 1)[1].split("\n## Registry instances\n", 1)[0]
        for block in re.split(r"\n### ", equations)[1:]:
            name = block.split("\n", 1)[0]
            if "$" in block and re.search(r"= \S", block):
                reads_inputs = "Symbols: [$" in block
                constant = re.fullmatch(  # fused_trips = 2, recompute_overhead = 1/3
                    r"(?s).*?\$\$\n[^$]* = -?(?:[\d.]+|\\frac\{\d+\}\{\d+\})\n\$\$\s*", block)
                assert reads_inputs or constant or module.model.name == "DenseNetworkScenario" and name == "architecture", (
                    module.model.name, name)
        for link in re.findall(r"\]\((#input-\w+) ", text):
            assert f'<a id="{link[1:]}"></a>' in text, link


def test_instances_link_to_the_hardware_they_use():
    text = page("scenarios/MlpTrainingStepScenario.md")
    assert f"[Hardware.Cloud.H100](../hardware.md#{node_anchor('Cloud.H100')})" in text
    epoch = page("scenarios/EpochOverheadScenario.md")
    assert f"../hardware.md#{node_anchor('Cloud.ReferenceCPU')}" in epoch
    assert "[Scenarios.MnistDenseNetwork](DenseNetworkScenario.md#mnistdensenetwork)" in epoch
    hardware = page("hardware.md")
    assert "[`Scenarios.MnistTwoLayerTrainingStepOnH100`](scenarios/MlpTrainingStepScenario.md#" in hardware


def test_charts_are_generated_svgs_that_pages_show():
    charts = sorted((DOCS / "charts").rglob("*.svg"))
    shown = "".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md"))
    assert len(charts) >= 5 + 5  # a sweep per scenario with one, a roofline per tier
    for chart in charts:
        text = chart.read_text(encoding="utf-8")
        assert text.startswith("<!-- Code generated by make generate; DO NOT EDIT. -->\n"), chart
        assert "<dc:date>" not in text and "Matplotlib v" not in text, chart
        assert chart.name in shown, f"{chart.name} is not shown on any page"
    for module in MODULES:
        assert f"(../charts/{module.model.name}.svg)" in page(f"scenarios/{module.model.name}.md")


def test_derivations_slot_is_left_before_the_registry_instances():
    template = (ROOT / "templates" / "scenario.md.j2").read_text(encoding="utf-8")
    assert template.index("{{ derivations }}") < template.index("## Registry instances")


# -- the built site ---------------------------------------------------------------------------------
# A tag that loads what it names, with its attributes (quoted values may hold ">"), and any style attribute.
_LOADING_TAG = re.compile(r"<(script|img|iframe|source|audio|video|embed|link|object)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>",
                          re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")
_STYLE = re.compile(r"""\sstyle\s*=\s*("[^"]*"|'[^']*')""", re.IGNORECASE)


def _loads(page: str) -> list[str]:
    """Every URL a page would fetch when viewed: scripts, styles, fonts, images, frames. A scan of the
    text, not an HTML parse (a tenth of the time on the site's pages): it reads tags inside comments
    and scripts too, so it can only find more than a browser would load, never less."""
    urls = []
    for name, attributes in _LOADING_TAG.findall(page):
        values = {key.lower(): html.unescape(value.strip("\"'")) for key, value in _ATTRIBUTE.findall(attributes)}
        tag = name.lower()
        if tag in ("script", "img", "iframe", "source", "audio", "video", "embed") and values.get("src"):
            urls.append(values["src"])
        if tag == "link" and values.get("href") and values.get("rel", "") not in ("canonical", "alternate"):
            urls.append(values["href"])
        if tag == "object" and values.get("data"):
            urls.append(values["data"])
    for style in _STYLE.findall(page):
        urls += re.findall(r"url\(\s*['\"]?([^'\")]+)", html.unescape(style.strip("\"'")))
    return urls


def _remote(url: str) -> bool:
    return bool(re.match(r"^\s*(https?:)?//", url, re.IGNORECASE))


@pytest.fixture(scope="module")
def site() -> Path:
    return built_site()


def test_site_has_every_page(site):
    for name in ("index.html", "hardware.html", "outputs.html", "units.html"):
        assert (site / name).is_file(), name
    for module in MODULES:
        assert (site / "scenarios" / f"{module.model.name}.html").is_file()


def test_no_built_page_loads_anything_from_the_network(site):
    offenders = []
    for page in site.rglob("*.html"):
        offenders += [(page.name, url) for url in _loads(page.read_text(encoding="utf-8")) if _remote(url)]
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        urls = re.findall(r"url\(\s*['\"]?([^'\")]+)", text) + re.findall(r"@import\s+['\"]([^'\"]+)", text)
        offenders += [(css.name, url) for url in urls if _remote(url)]
    assert not offenders, offenders


def test_the_scan_for_loads_finds_every_kind_of_remote_fetch():
    page = """<p>text</p><SCRIPT defer src=https://cdn.example/a.js></SCRIPT><img alt="a > b" src='//cdn.example/b.png'>
    <link rel="canonical" href="https://mlsysym.example/"><link rel="stylesheet" href="http://cdn.example/c.css">
    <object data="https://cdn.example/d.svg"></object><span style="background: url('https://cdn.example/e.png')"></span>
    <iframe src="&#104;ttps://cdn.example/f.html"></iframe><a href="https://example.org/">a link loads nothing</a>"""
    assert [url for url in _loads(page) if _remote(url)] == [
        "https://cdn.example/a.js", "//cdn.example/b.png", "http://cdn.example/c.css", "https://cdn.example/d.svg",
        "https://cdn.example/f.html", "https://cdn.example/e.png"]


def test_math_is_typeset_at_build_time_with_local_katex_assets(site):
    """Every formula is typeset at build, but those of a closed worked example (typeset when it is
    opened, by the page's docsite/katex-later.js and the site's copy of KaTeX: see test_calculator_browser)."""
    later = 0
    for module in MODULES:
        html = (site / "scenarios" / f"{module.model.name}.html").read_text(encoding="utf-8")
        shown = re.sub(r"<details>.*?</details>", "", html, flags=re.DOTALL)
        assert 'class="arithmatex"' not in shown, module.model.name  # every formula shown was replaced
        assert shown.count('class="katex"') > 5, module.model.name  # even a one-output page
        assert "assets/katex/katex.min.css" in html
        if 'class="arithmatex"' in html:
            later += 1
            assert '<script data-katex="../assets/katex/katex.min.js">' in html, module.model.name
    assert later > 10 and (site / "assets" / "katex" / "katex.min.js").is_file()
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    fonts = set(re.findall(r"url\((fonts/[^)]+)\)", css))
    assert fonts and all((site / "assets" / "katex" / font).is_file() for font in fonts)


def test_built_pages_show_the_charts(site):
    html = (site / "scenarios" / "MlpTrainingStepScenario.html").read_text(encoding="utf-8")
    assert 'src="../charts/MlpTrainingStepScenario.svg"' in html
    assert (site / "charts" / "MlpTrainingStepScenario.svg").is_file()
    assert (site / "charts" / "roofline" / "Cloud.H100.svg").is_file()


def test_the_predicted_vs_measured_page_is_on_the_site(site):
    """The page, its chart and a working link from each run to its registry instance's worked example."""
    html = (site / "validation.html").read_text(encoding="utf-8")
    assert 'src="charts/validation.svg"' in html and (site / "charts" / "validation.svg").is_file()
    links = set(re.findall(r'href="(scenarios/(?:MegatronIteration|PrefillPass)Scenario\.html)#(\w+)"', html))
    assert len(links) == 17
    for page, anchor in links:
        assert f'id="{anchor}"' in (site / page).read_text(encoding="utf-8"), (page, anchor)
