"""A real browser renders the built site: headless Chromium (Debian's package) on a local server.

On the MlpTrainingStepScenario page it finds math typeset by KaTeX (with KaTeX's fonts
served by our server, nothing from the network), no raw LaTeX source in the visible text,
the chart, and saves a screenshot to build/screenshots/ (a test artefact). About 10 s on
2 cores, plus the shared site build.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from docsite_support import ROOT, built_site, docsite_build, require_debian

SCREENSHOTS = ROOT / "build" / "screenshots"
PAGE = "scenarios/MlpTrainingStepScenario.html"
# Headless, sandbox off (CI runs as root), no GPU, and every background network feature off.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
         "--disable-default-apps", "--disable-extensions", "--hide-scrollbars"]


class _Handler(SimpleHTTPRequestHandler):
    requests: list[tuple[str, int]]

    def log_request(self, code="-", size="-"):
        self.requests.append((self.path, int(code) if str(code).isdigit() else 0))


@pytest.fixture(scope="module")
def server():
    require_debian(docsite_build().debian_packages("browser"), "chromium")
    site = built_site()
    handler = type("Handler", (_Handler,), {"requests": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler.requests
    httpd.shutdown()
    httpd.server_close()


def chromium(*arguments: str) -> subprocess.CompletedProcess:
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        return subprocess.run([shutil.which("chromium") or "chromium", *FLAGS, f"--user-data-dir={profile}", *arguments],
                              capture_output=True, text=True, timeout=120, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class _Text(HTMLParser):
    """The text a reader sees: no scripts, styles, MathML annotations (KaTeX's hidden TeX copy), or
    closed <details> (a worked example's formulas are typeset when it is opened: see test_calculator_browser)."""

    HIDDEN = {"script", "style", "annotation", "title", "head"}

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []
        self.katex = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.HIDDEN or (tag == "details" and "open" not in dict(attrs)):  # a closed one shows its summary only
            self.depth += 1
        if "katex-html" in (dict(attrs).get("class") or "").split():
            self.katex += 1

    def handle_endtag(self, tag):
        if (tag in self.HIDDEN or tag == "details") and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def test_scenario_page_shows_typeset_math_and_no_raw_latex(server):
    base, requests = server
    done = chromium("--virtual-time-budget=5000", "--dump-dom", f"{base}/{PAGE}")
    assert done.returncode == 0, done.stderr[-2000:]
    parser = _Text()
    parser.feed(done.stdout)
    text = "".join(parser.parts)
    assert "MlpTrainingStepScenario" in text
    assert parser.katex > 50, "expected the page's formulas typeset by KaTeX"
    raw = [token for token in (r"\frac", r"\mathrm", r"\left", "$$", r"\(", r"\[", r"\cdot") if token in text]
    assert not raw, f"raw LaTeX in the visible text: {raw}"
    assert re.search(r'<img[^>]+src="\.\./charts/MlpTrainingStepScenario\.svg"', done.stdout)


def test_screenshot_of_the_training_step_page(server):
    base, requests = server
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "MlpTrainingStepScenario.png"
    shot.unlink(missing_ok=True)
    done = chromium("--window-size=1280,1800", "--virtual-time-budget=5000", f"--screenshot={shot}", f"{base}/{PAGE}")
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 50_000
    fetched = dict(requests)
    assert fetched.get("/" + PAGE) == 200
    assert fetched.get("/charts/MlpTrainingStepScenario.svg") == 200, "the chart was not loaded"
    assert fetched.get("/assets/katex/katex.min.css") == 200
    fonts = [path for path in fetched if path.startswith("/assets/katex/fonts/")]
    assert fonts and all(fetched[path] == 200 for path in fonts), "KaTeX's fonts were not served locally"
    failed = [(path, code) for path, code in requests if code >= 400 and path != "/favicon.ico"]
    assert not failed, failed


def test_screenshot_path_is_under_build():
    assert Path(SCREENSHOTS).is_relative_to(ROOT / "build")
