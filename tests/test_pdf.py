"""The LaTeX pages build into one PDF handbook (pdflatex from Debian's TeX Live; ~15 s on 2 cores)."""

from __future__ import annotations

import re

import pytest
from docsite_support import ROOT, docsite_build, require_debian

from symbolic.codegen.discover import discover


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    require_debian(docsite_build().debian_packages("tex"), "pdflatex")
    out = tmp_path_factory.mktemp("pdf")
    return docsite_build().build_pdf(out)


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
