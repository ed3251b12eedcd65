"""Progress of long work on standard error: a bar on a terminal, nothing on a pipe or with --json.

A command that runs for more than a moment (``calibrate``, ``validate --here``, a large sweep or
search) takes ``progress_line(...)`` as a context manager; what it yields is None when nothing is to
be drawn (so the work skips even formatting its text), else a callable taking the text of the current
step and, when known, how much of the whole is done. The line is rubbed out when the work ends, so the
result printed after it starts on a clean line.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

WIDTH = 30  # characters of the bar
LINE = 78   # the whole line, so a shorter text rubs out a longer one


class Progress(Protocol):
    def __call__(self, text: str, done: float | None = None, total: float | None = None) -> None: ...


def line(text: str, done: float | None = None, total: float | None = None) -> str:
    """``[#########.....] 30% block 2/7: matmul``: the bar when the share done is known, else the text."""
    if done is None or not total:
        return text[:LINE]
    share = min(max(done / total, 0.0), 1.0)
    filled = int(round(WIDTH * share))
    return f"[{'#' * filled}{'.' * (WIDTH - filled)}] {share:4.0%} {text}"[:LINE]


def drawn(stream: TextIO, json_output: bool) -> bool:
    """Whether to draw: on a terminal, and not when the output is JSON for a script."""
    return not json_output and stream.isatty()


@contextmanager
def progress_line(json_output: bool = False, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """A progress callable drawing on ``stream`` (standard error) when it is a terminal, else None."""
    out = sys.stderr if stream is None else stream
    if not drawn(out, json_output):
        yield None
        return

    def show(text: str, done: float | None = None, total: float | None = None) -> None:
        print(f"\r{line(text, done, total):<{LINE}}", end="", file=out, flush=True)

    try:
        yield show
    finally:
        print("\r" + " " * LINE + "\r", end="", file=out, flush=True)
