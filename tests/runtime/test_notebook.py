"""Scenario instances in notebooks: HTML and Markdown tables of inputs and outputs with units,
escaped text, and ``explain()`` printing as ``mlsysym explain`` with its equations as LaTeX."""

from __future__ import annotations

import contextlib
import html
import io
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from symbolic.runtime.readable import readable

from generated import Scenarios, TransformerWorkload
from symbolic.runtime.analysis import flat_outputs
from symbolic.runtime.units import label

ROOT = Path(__file__).resolve().parents[2]


class _Rows(HTMLParser):
    """The text of every table row's cells, entities decoded (``<br>`` as a newline)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "br" and self.cell is not None:
            self.cell.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def html_rows(scenario) -> dict[str, tuple[str, str]]:
    parser = _Rows()
    parser.feed(scenario._repr_html_())
    return {row[0]: (row[1], row[2]) for row in parser.rows if len(row) == 3 and row[0] != "name"}


def markdown_rows(scenario) -> dict[str, tuple[str, str]]:
    rows = {}
    for line in scenario._repr_markdown_().splitlines():
        if not line.startswith("| ") or line.startswith("| :---"):
            continue
        cells = [html.unescape(re.sub(r"\\(.)", r"\1", cell.strip())) for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        if cells[0].startswith("*") and not cells[1]:
            continue  # a group's title row
        rows[cells[0]] = (cells[1].replace("<br>", "\n"), cells[2])
    return rows


def expected(scenario) -> dict[str, str]:
    """Every input and output leaf by name, with the unit the table must show."""
    cls = type(scenario)
    units = {spec.name: label(spec.unit) for spec in cls._specs}
    wanted = {name: units.get(name, "") if scenario._given[name] is not None else "" for name in cls.input_names()}
    wanted.update({path: readable(value, unit)[1] if value is not None else "" for path, (value, unit)
                   in flat_outputs(scenario, everything=True).items()})  # at the scale a reader takes in
    return wanted


@pytest.mark.parametrize("name", list(Scenarios))
def test_every_input_and_output_is_a_row_with_its_unit(name):
    scenario = getattr(Scenarios, name)
    wanted = expected(scenario)
    for rows in (html_rows(scenario), markdown_rows(scenario)):
        assert {key: unit for key, (_, unit) in rows.items() if key in wanted} == wanted
        assert all(value.strip() for value, _ in rows.values())


def test_values_as_a_person_reads_them():
    step = html_rows(Scenarios.MnistTwoLayerTrainingStepOnH100)
    assert step["op_flops[matmul1]"] == ("6.42253", "Mflop")  # 2·B·in·hidden = 6,422,528, read in Mflop
    assert step["hardware"] == ("NVIDIA H100 (Cloud.H100)", "")
    assert step["dispatch"] == ("10", "µs")
    assert step["host.operations"] == ("5", "")  # a contained scenario's output, by its path
    ring = markdown_rows(Scenarios.DdpBucketRingNdr)  # a per-item output under its list input's entries
    assert ring["result.ring_rounds"] == (f"64: {2 * 63}\n1024: {2 * 1023}", "")
    assert ring["group_sizes"] == ("[64, 1024]", "")
    decode = html_rows(Scenarios.Llama2_70B_DecodeTwoH100)
    assert decode["result.bottleneck"][0] == "Memory"  # a choice's label, not its index
    unfit = html_rows(Scenarios.Llama3_70B_DecodeH100)  # 141.2 GB on one 80 GiB H100: the step does not exist
    assert unfit["result.bottleneck"][0] == "– (does not fit)" and unfit["fits"][0] == "False"


def test_names_are_escaped():
    hostile = "<script>alert('x')</script> | *bold* & [link](javascript:1)"
    workload = TransformerWorkload(name=hostile, parameters=8e9, layers=32, hidden_dim=4096, heads=32, kv_heads=8)
    scenario = Scenarios.Llama3_70B_DecodeH100.variant(workload=workload, name=hostile, description=hostile)
    page = scenario._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert html_rows(scenario)["workload"][0].startswith(hostile)
    text = scenario._repr_markdown_()
    assert "<script>" not in text and not re.search(r"(?<!\\)\]\(", text)  # no live link
    assert markdown_rows(scenario)["workload"][0].startswith(hostile)  # one cell: the | did not split it


def test_an_absent_optional_output_says_so():
    """Gpt2XlBatch32Activations checkpoints nothing: its segment outputs need the segment count."""
    rows = html_rows(Scenarios.Gpt2XlBatch32Activations)
    assert rows["segment_layers"] == ("– (needs an input not given)", "")
    assert markdown_rows(Scenarios.Gpt2XlBatch32Activations)["segment_layers"] == rows["segment_layers"]


def cli_explain(name: str, output: str) -> str:
    from symbolic.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["explain", name, output]) == 0
    return buffer.getvalue()


EXPLAINED = [("MnistTwoLayerTrainingStepOnH100", "compute_time"), ("MnistDenseNetwork", "result.weights"),
             ("MnistEpochCpuVersusH100", "result.total_time[accelerator]"), ("SmallKernelDispatch", "host_time"),
             ("DdpBucketRingNdr", "result.message")]


@pytest.mark.parametrize("name, output", EXPLAINED)
def test_explain_prints_as_the_command(name, output):
    explanation = getattr(Scenarios, name).explain(output)
    assert str(explanation) + "\n" == repr(explanation) + "\n" == cli_explain(name, output)


@pytest.mark.parametrize("name, output", EXPLAINED)
def test_explain_latex_is_one_aligned_display(name, output):
    tex = getattr(Scenarios, name).explain(output)._repr_latex_()
    assert tex.startswith(r"$$\begin{aligned}") and tex.endswith(r"\end{aligned}$$")
    body = tex[2:-2]
    depth = 0
    for char in re.sub(r"\\[{}]", "", body):  # braces balance (escaped ones aside)
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0
    assert depth == 0
    assert body.count(r"\left") == body.count(r"\right")
    labels = [body.index(rf"\text{{{step}:}} \quad & ") for step in ("definition", "closed form", "numbers", "result")]
    assert labels == sorted(labels)  # four labelled steps, in order (a long one broken into its own aligned lines)
    assert body.count(r"\begin{aligned}") == body.count(r"\end{aligned}")
    assert not re.search(r"Sum\(|\*\*|\[flop\]|µ", body)  # LaTeX, not sympy's text or raw units


def test_explain_latex_numbers():
    tex = Scenarios.MnistTwoLayerTrainingStepOnH100.explain("compute_time").latex
    assert tex["numbers"] == (r"\mathrm{compute\_time} = \frac{\left(13100608\,\mathrm{flop}\right)}"
                              r"{\left(67\,\mathrm{Tflop/s}\right)}")
    assert tex["result"] == r"\mathrm{compute\_time} = 0.195531\,\mathrm{\mu s}"
    weights = Scenarios.MnistDenseNetwork.explain("result.weights").latex["numbers"]
    assert weights.endswith(r"\left(100352\right) + \left(8192\right) + \left(640\right)")  # 784·128, 128·64, 64·10


def test_import_generated_stays_light():
    """No IPython, Jupyter or sympy behind ``import generated`` (the notebook hooks are found by name)."""
    code = ("import sys, generated; s = generated.Scenarios.MnistDenseNetwork; s._repr_html_(); s._repr_markdown_(); "
            "print(sorted(m for m in ('sympy', 'IPython', 'ipykernel', 'jinja2', 'matplotlib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_explain_shows_a_choice_with_its_label_as_show_does():
    """``fits`` is 1 in the formulas and True on the instance; ``bottleneck`` 1 and Memory: the
    result step gives both (it gave the bare number)."""
    from generated import Scenarios

    fits = Scenarios.Gpt2Fp32AdamOnH100.explain("fits")
    assert fits.steps["result"] == f"fits = 1 ({Scenarios.Gpt2Fp32AdamOnH100.fits})"
    assert fits.latex["result"].endswith(r"\text{ (True)}")
    decode = Scenarios.Llama2_70B_DecodeTwoH100
    bottleneck = decode.explain("result.bottleneck")
    assert bottleneck.steps["result"].endswith(f"({decode.result.bottleneck})")
    assert decode.result.bottleneck in ("Memory", "Compute")
    assert "(" not in Scenarios.MnistTwoLayerTrainingStepOnH100.explain("compute_time").steps["result"]
