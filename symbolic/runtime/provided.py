"""What the generated package hands the runtime below it: the runtime never imports ``generated``.

``node.memory`` is a record of the generated systems types (capacity, bandwidth and their
derived quantities, printed from the catalog's schema): ``generated/__init__.py`` installs a
loader of that type here when it is imported (the symbolic catalog does the same for the
generator). This module imports nothing, so ``import generated`` stays as cheap as it was.
"""

from __future__ import annotations

from collections.abc import Callable

_MEMORY_TYPE: dict[str, Callable[[], type]] = {}


def use_memory_type(load: Callable[[], type]) -> None:
    """Install the loader of ``node.memory``'s record type (``generated.systems.MemorySystem``)."""
    _MEMORY_TYPE["load"] = load


def memory_type() -> type | None:
    """``node.memory``'s record type, or None before ``generated`` is imported."""
    load = _MEMORY_TYPE.get("load")
    return None if load is None else load()
