"""Long equations are broken into aligned lines: the width estimate, the rewrite keeping every
symbol in order, and no equation of the generated site or handbook wider than the budget."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from symbolic.codegen.breaking import BUDGET, fit, parse, source, width
from symbolic.scenarios.discover import discover

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tex, expected", [
    ("a + b", 1 + 2.4 + 1),
    (r"\frac{abc}{d}", 3 + 0.8),
    (r"x_{ab}^{2}", 1 + 1.4),  # a sub- and superscript stack: the wider counts
    (r"\mathrm{peak\_rate}", 4 + 1.4 + 4),
    (r"\left(a\right)", 1 + 1.6),
    (r"\sum_{l=1}^{L} w_{l}", 0.7 * (1 + 2.4 + 1) + (1 + 0.7)),  # the limits, under the sign, are wider than it
    (r"\begin{aligned} & a + b \\ & \quad + c \end{aligned}", 2 + 2.4 + 1),  # the wider row
])
def test_width_estimates(tex, expected):
    assert width(tex) == pytest.approx(expected)


def test_short_equations_are_left_alone():
    short = r"\mathrm{compute\_time} = \frac{\mathrm{total\_flops}}{\mathrm{peak\_rate}}"
    assert fit(short) == short


def _symbols(tex: str) -> list[str]:
    """The tokens of ``tex`` without what breaking adds (alignment, line breaks, indents, braces)."""
    added = {"&", r"\\", r"\quad", r"\times", "{", "}"}
    tex = re.sub(r"\\(begin|end)\{aligned\}", " ", tex)
    return [t for t in re.findall(r"\\[a-zA-Z]+|\\.|[^\s]", tex) if t not in added]


LONG = [
    # a sum of products, too long for one line: broken at its top-level + signs
    " + ".join(rf"\mathrm{{term\_{n}}} \mathrm{{factor}}_{{{n}}}" for n in range(12)),
    # a fraction whose numerator is long: broken inside the numerator
    r"x = \frac{" + " + ".join(rf"a_{{{n}}} b_{{{n}}} c_{{{n}}} d_{{{n}}}" for n in range(14)) + r"}{2 y}",
    # a product with no sign to break at: broken between its factors
    r"y = " + " ".join(rf"\left(\mathrm{{long\_name\_{n}}} + 1\right)" for n in range(6)),
]


@pytest.mark.parametrize("tex", LONG)
def test_long_equations_are_broken_keeping_every_symbol_in_order(tex):
    assert width(tex) > BUDGET
    broken = fit(tex)
    assert r"\begin{aligned}" in broken and "\n" not in broken
    assert width(broken) <= BUDGET
    assert _symbols(broken) == _symbols(tex)
    assert re.sub(r"\s", "", source(parse(broken))) == re.sub(r"\s", "", broken)


def test_an_equation_is_aligned_at_its_first_relation():
    tex = "S = " + " + ".join(rf"\mathrm{{term\_{n}}}" for n in range(14)) + r" \approx 3"
    broken = fit(tex)
    assert broken.startswith(r"\begin{aligned} S &= ")
    assert r"\\ & \quad + " in broken


def _math(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".tex":
        return [m.group(1) or m.group(2) for m in
                re.finditer(r"\\\[\n(.*?)\n\\\]|\\begin\{dmath\*\}\n(.*?)\n\\end\{dmath\*\}", text, re.S)]
    displays = re.findall(r"\$\$\n(.*?)\n\$\$", text, re.S)
    inline = re.findall(r"(?<![\\$])\$([^$\n]+)\$", re.sub(r"\$\$\n(.*?)\n\$\$", "", text, flags=re.S))
    return displays + inline


def test_no_generated_equation_is_wider_than_the_budget():
    pages = sorted((ROOT / "generated" / "docs").rglob("*.md")) + sorted((ROOT / "generated" / "latex").glob("*.tex"))
    widest: dict[str, float] = {}
    for path in pages:
        for tex in _math(path):
            widest[path.stem] = max(widest.get(path.stem, 0.0), width(tex))
    assert len(widest) > 40
    # a scenario may declare a wider estimate for an equation that cannot be broken further (and says why)
    allowed = {m.model.name: m.model.widest_equation for m in discover() if m.model.widest_equation}
    assert len(allowed) >= 5
    too_wide = {page: round(w, 1) for page, w in widest.items() if w > (allowed.get(page) or BUDGET * 1.1)}
    assert not too_wide


def test_no_table_cell_splits_its_math():
    """A ``|`` inside a table cell's math (``\\left|w\\right|``) would end the cell and leave the
    math unparsed: every cell of every generated table holds whole formulas."""
    for path in sorted((ROOT / "generated" / "docs").rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("| ") and "$" in line:
                for cell in re.split(r"(?<!\\)\|", line)[1:-1]:
                    assert len(re.findall(r"(?<!\\)\$", cell)) % 2 == 0, (path.name, cell[:80])


_LINE_STARTS_WITH_A_SPACE = re.compile(r"\\\\\s*&\s*(?:\\quad\s*)?(?:\\times\s*|[+-]\s*)?\\[,;:!]")


def test_a_thin_space_binds_digit_groups_and_units():
    """``2\\,048`` is one number and ``4\\,\\mathrm{GB}`` one quantity: a product broken between
    its factors never starts a line at a thin space (it once gave ``2 \\\\ & \\times \\,048``)."""
    tex = "x = " + " ".join([r"2\,048 \cdot 1\,024\,\mathrm{GB}"] * 14)
    broken = fit(tex)
    assert broken != tex and not _LINE_STARTS_WITH_A_SPACE.search(broken)
    assert broken.count(r"2\,048") == 14 and broken.count(r"1\,024\,\mathrm{GB}") == 14


def test_no_generated_number_is_split_even_on_a_narrow_line():
    """Every generated formula holding a digit group, broken for a line half as wide: no line
    starts at a thin space, and every digit group survives whole."""
    groups = re.compile(r"\d\\,\d{3}")
    checked = 0
    for path in sorted((ROOT / "generated" / "docs" / "scenarios").glob("*.md")):
        for tex in _math(path):
            if not groups.search(tex) or r"\begin{aligned}" in tex:
                continue
            broken = fit(tex, BUDGET / 2)
            assert not _LINE_STARTS_WITH_A_SPACE.search(broken), (path.stem, tex)
            assert len(groups.findall(broken)) == len(groups.findall(tex)), (path.stem, tex)
            checked += 1
    assert checked > 50
