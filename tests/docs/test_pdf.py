"""The LaTeX pages build into one PDF handbook (pdflatex from Debian's TeX Live; ~15 s on 2 cores)."""

from __future__ import annotations

import re

import pytest
from docsite_support import ROOT, docsite_build, require_debian

from symbolic.scenarios.discover import discover


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    require_debian(docsite_build().debian_packages("tex"), "pdflatex")
    out = tmp_path_factory.mktemp("pdf")
    return docsite_build().build_pdf(out, settle=False)  # two passes: what these tests read is final after them


def test_handbook_compiles_to_a_pdf_with_every_scenario(handbook):
    assert handbook.read_bytes().startswith(b"%PDF-")
    log = handbook.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    pages = int(re.search(r"Output written on .*handbook\.pdf \((\d+) pages", log.replace("\n", "")).group(1))
    assert pages > 5 * len(discover())
    assert "LaTeX Error" not in log and "Undefined control sequence" not in log
    assert "There were undefined references" not in log
    toc = handbook.with_suffix(".toc").read_text(encoding="utf-8", errors="replace")
    for module in discover():
        assert module.model.name in toc


def test_handbook_inputs_every_scenario_page():
    handbook = (ROOT / "generated" / "latex" / "handbook.tex").read_text(encoding="utf-8")
    for module in discover():
        assert f"\\input{{{module.model.name}}}" in handbook


def _in_display_math(lines: list[str], number: int) -> bool:
    """Whether line ``number`` (1-based) of a LaTeX page lies inside ``\\[ ... \\]`` or dmath*."""
    for line in reversed(lines[:number]):
        if line.startswith(("\\[", "\\begin{dmath*}")):
            return True
        if line.startswith(("\\]", "\\end{dmath*}")):
            return line is lines[number - 1]
    return False


def test_no_equation_and_no_line_of_prose_runs_off_the_page(handbook):
    """pdflatex reports every box wider than the line; none may be an equation (the generator
    breaks long ones into aligned lines) nor prose (code names and defaults may break after
    ``_ . * / ( ,``, and a line may stretch a little: there were 18 such lines, up to 408 pt)."""
    log = handbook.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    current, overfull, prose = "", [], []
    for match in re.finditer(r"\(\./(\w+)\.tex|Overfull \\hbox \(([\d.]+)pt too wide\) "
                             r"(?:detected at line (\d+)|in paragraph at lines (\d+)--)", log):
        if match.group(1):
            current = match.group(1)
            continue
        line = int(match.group(3) or match.group(4))
        page = (ROOT / "generated" / "latex" / f"{current}.tex").read_text(encoding="utf-8").splitlines()
        if _in_display_math(page, line):
            overfull.append((current, line, match.group(2)))
        else:
            # a line past the page's end belongs to the file that input it (the handbook: its contents)
            prose.append((current, line, match.group(2), page[line - 1][:100] if line <= len(page) else "handbook.tex"))
    assert not overfull
    assert not prose


def test_explain_latex_compiles(tmp_path):
    """``explain()``'s LaTeX for notebooks, set by pdflatex with amsmath."""
    import shutil
    import subprocess

    from generated import Scenarios

    require_debian(docsite_build().debian_packages("tex"), "pdflatex")
    cases = [("MnistTwoLayerTrainingStepOnH100", "compute_time"), ("MnistDenseNetwork", "result.weights"),
             ("MnistEpochCpuVersusH100", "result.total_time[accelerator]"), ("Llama3_70B_DecodeH100", "result.memory_time")]
    body = "\n\n".join(getattr(Scenarios, name).explain(output)._repr_latex_() for name, output in cases)
    (tmp_path / "explain.tex").write_text("\\documentclass{article}\\usepackage[utf8]{inputenc}\\usepackage{amsmath}"
                                          "\\begin{document}\n" + body + "\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run([shutil.which("pdflatex") or "pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "explain.tex"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:]


def test_handbook_includes_every_scenario_chart(handbook):
    """Each scenario's sweep chart (the site's SVG, drawn again as PDF text) is a figure of its section."""
    log = handbook.with_suffix(".log").read_text(encoding="utf-8", errors="replace").replace("\n", "")
    charted = [m.model.name for m in discover() if m.model.chart is not None]
    assert len(charted) > 30
    for name in charted:
        assert (ROOT / "generated" / "latex" / "charts" / f"{name}.pdf").is_file(), name
        assert f"<./charts/{name}.pdf>" in log, name
