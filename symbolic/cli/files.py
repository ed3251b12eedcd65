"""Inputs read from files on the command line: ``--set workload=@path/config.json``.

A value starting with ``@`` names a file. What reads it depends on the kind of input it is given
to (the kinds ``mlsysym list <Scenario>`` shows: workload, node, ...): each kind has at most one
loader, registered here with ``register_loader(kind, loader)``. A loader takes the path and returns
the value the input accepts (a workload record, a hardware node), raising ``MlsysymError`` with a
message naming the file and what is wrong; that message becomes the command's usage error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from symbolic.cli.usage import UsageError
from symbolic.runtime.errors import MlsysymError
from symbolic.runtime.model_config import workload_from_config
from symbolic.runtime.node_file import hardware_from_file


def _workload(path: Path) -> Any:
    """A Hugging Face config.json as a workload record (``symbolic.runtime.model_config``)."""
    from generated import workloads  # start-up: the record classes load only when a config is read

    return workload_from_config(path, {name: getattr(workloads, name) for name in workloads.__all__})


def _node(path: Path) -> Any:
    """A node file written by ``mlsysym calibrate`` as a hardware node (``symbolic.runtime.node_file``)."""

    return hardware_from_file(path)


# input kind -> (loader, what the file holds, for messages)
LOADERS: dict[str, tuple[Callable[[Path], Any], str]] = {
    "workload": (_workload, "a Hugging Face config.json"),
    "node": (_node, "a node file written by `mlsysym calibrate`"),
}


def register_loader(kind: str, loader: Callable[[Path], Any], holds: str) -> None:
    """Read ``@file`` values of ``kind`` inputs with ``loader``; ``holds`` says what the file is."""
    if kind in LOADERS and LOADERS[kind][0] is not loader:
        raise ValueError(f"a loader of {kind} files is registered already ({LOADERS[kind][1]})")
    LOADERS[kind] = (loader, holds)


def is_file_value(text: str) -> bool:
    return text.startswith("@")


def from_file(kind: str, text: str, what: str) -> Any:
    """The value of ``@path`` for an input of ``kind``; a UsageError naming ``what`` otherwise."""
    path = Path(text.removeprefix("@").strip())
    if kind not in LOADERS:
        readable = ", ".join(f"{k} ({holds})" for k, (_, holds) in sorted(LOADERS.items()))
        raise UsageError(f"{what}: {text!r} names a file, but a {kind} input is not read from files "
                         f"(files are read for: {readable})")
    loader, holds = LOADERS[kind]
    try:
        return loader(path)
    except MlsysymError as error:
        raise UsageError(f"{what}: {error}") from None
