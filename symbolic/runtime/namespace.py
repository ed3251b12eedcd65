"""Attribute-style catalogs (``Hardware.Cloud.H100``, ``Scenarios.SmallKernelDispatch``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from threading import RLock
from typing import Any

# Re-entrant: building one entry may read others (a variant of a registry instance).
_BUILDING = RLock()


class Namespace:
    """An ordered, read-only mapping read by attribute; entries may be built lazily.

    A ``lazy`` namespace stores zero-argument builders and calls each on first access,
    so that importing the registry builds nothing (and imports no pint).
    """

    def __init__(self, title: str, entries: dict[str, Any], *, lazy: bool = False,
                 extra: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_title", title)
        object.__setattr__(self, "_entries", dict(entries))
        object.__setattr__(self, "_lazy", lazy)
        object.__setattr__(self, "_built", {})
        # ``extra``: attributes that are not entries (``Hardware.Tech`` beside the node tiers), so
        # iterating ``Hardware`` still gives exactly its tiers of nodes
        object.__setattr__(self, "_extra", dict(extra or {}))

    def __getattr__(self, name: str) -> Any:
        entries = object.__getattribute__(self, "_entries")
        if name not in entries and name in self._extra:
            return self._extra[name]
        if name not in entries:
            import difflib

            close = difflib.get_close_matches(name, list(entries), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise AttributeError(f"{self._title} has no entry '{name}'{hint}")
        if not self._lazy:
            return entries[name]
        built = self._built
        if name not in built:
            with _BUILDING:  # one instance per entry, even when threads ask at the same time
                if name not in built:
                    builder: Callable[[], Any] = entries[name]
                    built[name] = builder()
        return built[name]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._title} is read-only")

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError as error:
            raise KeyError(str(error)) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __dir__(self) -> list[str]:
        return list(self._entries) + list(self._extra)

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(name, entry)`` pairs in catalog order (building lazy entries)."""
        return ((name, getattr(self, name)) for name in self._entries)

    def __repr__(self) -> str:
        return f"<{self._title}: {', '.join(self._entries)}>"
