"""Build the docs site or the PDF handbook from generated/: ``python docsite/build.py site|pdf [DIR]``.

``site`` runs MkDocs (config ``mkdocs.yml``; KaTeX typesets the math at build time, see
``docsite/hooks.py``) into ``build/site``. ``pdf`` runs pdflatex (again until the table of
contents and the figures' pages settle) on ``generated/latex/handbook.tex`` into ``build/pdf``. The Makefile's ``docs``
and ``pdf`` targets and the tests call these functions, so there is one way to build each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from symbolic.cli.progress import progress_line

ROOT = Path(__file__).resolve().parents[1]
LATEX = ROOT / "generated" / "latex"
DEBIAN_PACKAGES = ROOT / "docsite" / "debian-packages.txt"


class BuildError(RuntimeError):
    """A build step failed; the message says which and why."""


def debian_packages(kind: str = "") -> list[str]:
    """The Debian packages the slow tests need, optionally only TeX ("tex") or the browser ("browser")."""
    names = [line.strip() for line in DEBIAN_PACKAGES.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    if kind == "tex":
        return [n for n in names if n.startswith("texlive")]
    if kind == "browser":
        return [n for n in names if not n.startswith("texlive")]
    return names


def build_site(site_dir: Path | None = None, progress: Callable[..., None] | None = None) -> Path:
    """Build the HTML site with MkDocs (strict: broken links and anchors fail); returns its folder."""
    site_dir = site_dir or ROOT / "build" / "site"
    if progress:  # one MkDocs process: what it is doing, not a share
        progress("site: mkdocs build, KaTeX typesetting every page (about a minute)")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
               "--site-dir", str(site_dir)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    if done.returncode != 0:
        raise BuildError(f"mkdocs build failed:\n{done.stdout}{done.stderr}")
    return site_dir


def build_pdf(out_dir: Path | None = None, settle: bool = True, progress: Callable[..., None] | None = None) -> Path:
    """Compile the handbook with pdflatex (TeX Live from Debian); returns the PDF's path.

    The first pass only writes the table of contents and the references (``-draftmode``: no PDF);
    later passes run until the pages stop moving. With ``settle=False`` (the tests) there is one
    later pass: the log, the page count and every reference are final after it, only the table of
    contents' page numbers may move once more."""
    out_dir = out_dir or ROOT / "build" / "pdf"
    if shutil.which("pdflatex") is None:
        raise BuildError("pdflatex not found; install TeX from Debian's packages: "
                         f"apt-get install {' '.join(debian_packages('tex'))}")
    out_dir.mkdir(parents=True, exist_ok=True)
    command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-output-directory", str(out_dir), "handbook.tex"]
    passes = 4 if settle else 2
    for attempt in range(passes):  # later passes fill in the table of contents, until the pages stop moving
        if progress:
            progress(f"pdf: pdflatex pass {attempt + 1} (at most {passes})", attempt, passes)
        done = subprocess.run(command[:1] + ["-draftmode"] * (attempt == 0) + command[1:], cwd=LATEX,
                              capture_output=True, text=True, check=False,
                              env={**os.environ, "max_print_line": "100000"})  # a log line per message
        if done.returncode != 0:
            log = (out_dir / "handbook.log").read_text(encoding="utf-8", errors="replace") if (out_dir / "handbook.log").exists() else done.stdout
            raise BuildError("pdflatex failed on generated/latex/handbook.tex:\n" + "\n".join(log.splitlines()[-40:]))
        if attempt and "Rerun to get cross-references right" not in done.stdout:
            break
    return out_dir / "handbook.pdf"


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("site", "pdf"):
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    target = Path(argv[1]).resolve() if len(argv) > 1 else None
    try:
        with progress_line() as progress:  # a line on a terminal, nothing in a log
            built = build_site(target, progress) if argv[0] == "site" else build_pdf(target, progress=progress)
    except BuildError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"wrote {built.relative_to(ROOT) if built.is_relative_to(ROOT) else built}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
