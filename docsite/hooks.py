"""MkDocs hooks of the docs site: typeset every formula with KaTeX at build time.

``pymdownx.arithmatex`` (generic mode) keeps each ``$...$`` and ``$$...$$`` of the
generated Markdown intact as ``<span class="arithmatex">\\(...\\)</span>`` or
``<div class="arithmatex">\\[...\\]</div>``; ``on_post_page`` sends a page's formulas
to KaTeX (``docsite/katex-render.js``, run by Node.js) in one batch and puts the
typeset HTML (with MathML for screen readers) in their place. A formula KaTeX cannot
typeset fails the build, naming the page and the formula. The pages then need only
KaTeX's stylesheet and fonts, which ``on_post_build`` copies into the site: nothing is
loaded from the network when a page is viewed.

The formulas of a closed ``<details>`` (the worked examples after a page's first, about half
of the site's bytes when typeset) are checked by KaTeX at build all the same but stay TeX in
the page: ``docsite/katex-later.js`` typesets them in the browser, with the same KaTeX (its
script copied into the site too) and options (``docsite/katex-options.js``), when one is opened.

KaTeX comes from the npm registry: ``on_config`` installs the pinned version into
``build/katex`` when it is not there (it is never committed).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError


KATEX_VERSION = "0.19.1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KATEX_PREFIX = ROOT / "build" / "katex"
KATEX = KATEX_PREFIX / "node_modules" / "katex"
MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)
CLOSED = re.compile(r"<details>.*?</details>", re.DOTALL)  # a collapsed block: its formulas are typeset when opened


def installed_version() -> str:
    try:
        return json.loads((KATEX / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return ""


def ensure_katex() -> None:
    """Install the pinned KaTeX from the npm registry into build/katex unless it is there."""
    if installed_version() == KATEX_VERSION:
        return
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise PluginError("the docs need Node.js and npm to typeset math with KaTeX "
                          "(Debian: apt-get install nodejs npm)")
    KATEX_PREFIX.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(KATEX_PREFIX), "--no-save", "--no-package-lock", "--no-audit",
               "--no-fund", "--loglevel=error", f"katex@{KATEX_VERSION}"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or installed_version() != KATEX_VERSION:
        raise PluginError(f"could not install katex@{KATEX_VERSION} with npm:\n{done.stdout}{done.stderr}")


def typeset(formulas: list[tuple[str, bool, bool]], where: str) -> list[str | None]:
    """KaTeX HTML for each ``(tex, display, keep)`` (None where not ``keep``: checked only); raises
    naming every formula that fails."""
    if not formulas:
        return []
    done = subprocess.run(["node", str(HERE / "katex-render.js"), str(KATEX)], input=json.dumps(formulas),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PluginError(f"{where}: KaTeX failed: {done.stderr}")
    results = json.loads(done.stdout)
    errors = [f"  {tex!r}: {r['error']}" for (tex, _, _), r in zip(formulas, results, strict=True) if "error" in r]
    if errors:
        raise PluginError(f"{where}: KaTeX could not typeset {len(errors)} formula(s):\n" + "\n".join(errors))
    return [r.get("html") for r in results]


def on_config(config: Any) -> Any:
    ensure_katex()
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Drop the generated-file header comments, so the page's H1 comes first and names it in
    the navigation (MkDocs takes a page's title from a leading H1, else from its file name)."""
    lines = markdown.split("\n")
    while lines and (not lines[0].strip() or (lines[0].startswith("<!--") and lines[0].rstrip().endswith("-->"))):
        lines.pop(0)
    return "\n".join(lines)


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    return _with_calculator(content, page.file.src_uri)


def on_post_page(content: str, page: Any, config: Any) -> str:
    """Typeset the page's math in its final HTML: after the search plugin indexed its content, which so
    holds each formula's TeX rather than KaTeX's markup (a third of the build's time went to parsing it)."""
    closed = [match.span() for match in CLOSED.finditer(content)]
    formulas = []
    for match in MATH.finditer(content):
        tex = html.unescape(match.group(2)).strip()
        display = tex.startswith(r"\[")
        later = any(start < match.start() < end for start, end in closed)
        formulas.append((tex[2:-2].strip(), display, not later))
    rendered = iter(typeset(formulas, page.file.src_uri))
    content = MATH.sub(lambda match: next(rendered) or match.group(0), content)
    if any(not keep for _, _, keep in formulas):
        root = "../" * page.url.count("/")  # the site's root from this page (use_directory_urls is off)
        script = f'<script data-katex="{root}assets/katex/katex.min.js">{_later_script()}</script>\n'
        position = content.rfind("</body>")
        content = content[:position] + script + content[position:]
    return content


@lru_cache(maxsize=None)
def _later_script() -> str:
    """docsite/katex-options.js and katex-later.js, to inline in a page with formulas typeset when opened."""
    text = "\n".join((HERE / name).read_text(encoding="utf-8") for name in ("katex-options.js", "katex-later.js"))
    if "</script" in text.lower() or "<!--" in text:
        raise PluginError("docsite/katex-*.js must not contain '</script' or '<!--' (they are inlined)")
    return text


def _with_calculator(content: str, source: str) -> str:
    """A scenario page gets its calculator (docsite/calculator.py) before its first section."""
    match = re.fullmatch(r"scenarios/(\w+)\.md", source)
    if match is None:
        return content
    calculator = _calculator()
    if match.group(1) not in calculator.scenario_classes():
        return content
    position = content.find("<h2")
    position = len(content) if position < 0 else position
    return content[:position] + calculator.section_html(match.group(1)) + content[position:]


@lru_cache(maxsize=None)
def _calculator() -> Any:
    """docsite/calculator.py, reading this checkout's generated/ (not another one's editable install)."""
    import importlib.util

    if str(ROOT) not in sys.path[:1]:
        sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("mlsysym_calculator", HERE / "calculator.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_post_build(config: Any) -> None:
    site = Path(config["site_dir"])
    _calculator().copy_scripts(site)
    assets = site / "assets"
    shutil.copytree(KATEX / "dist" / "fonts", assets / "katex" / "fonts", dirs_exist_ok=True)
    shutil.copy2(KATEX / "dist" / "katex.min.css", assets / "katex" / "katex.min.css")
    shutil.copy2(KATEX / "dist" / "katex.min.js", assets / "katex" / "katex.min.js")  # for docsite/katex-later.js
    shutil.copy2(HERE / "mlsysym.css", assets / "mlsysym.css")
