"""What the sympy-free runtime offers but the generator implements, found by name at call time.

``instance.explain(output)`` needs the scenario's sympy declaration, which lives above this
layer. Rather than import upward, the runtime looks the capability up among the installed
distribution's entry points (group ``mlsysym.extensions``, declared in ``pyproject.toml``):
the generator extra provides it, and without that extra the call says which extra to install.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from symbolic.runtime.errors import MlsysymError, require_extra

GROUP = "mlsysym.extensions"


@lru_cache(maxsize=None)
def extension(name: str, feature: str) -> Callable[..., Any]:
    """The callable registered as ``name`` in ``GROUP``: ``MissingExtraError`` naming ``feature`` without the
    generator extra, ``MlsysymError`` when the package's metadata lacks the registration."""
    require_extra(feature)
    found = [point for point in entry_points(group=GROUP) if point.name == name]
    if not found:
        raise MlsysymError(f"{feature}: the installed mlsysym registers no '{name}' in entry-point group {GROUP} "
                           "(its metadata is older than its code): reinstall it")
    loaded: Callable[..., Any] = found[0].load()
    return loaded
