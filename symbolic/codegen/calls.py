"""Constructor calls of generated source, as data: the renderer builds them, the templates print them.

A generated module declares its runtime objects (``InputSpec(...)``, ``NodeSpec(...)``,
``Output(...)``, ...) as calls. The renderer describes each as a ``Call`` (the function, the
positional values, the keyword values) and the template macro ``call`` in
``templates/calls.j2`` writes it out: how generated source looks is decided in one template,
not in f-strings scattered through the renderer. Values print with ``repr``, except ``Code``
(a class name, ``REQUIRED``, a lambda) printed as is, nested ``Call``s, and ``Items`` (a tuple
written with a trailing comma after the last element, as a multi-line tuple would be).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Code:
    """Source text printed as is: a class name, ``REQUIRED``, a lambda."""

    text: str


@dataclass(frozen=True)
class Items:
    """A tuple of values (calls, usually), printed ``(a, b,)``."""

    values: tuple[Any, ...]


@dataclass(frozen=True)
class Call:
    """``function(*args, **kwargs)`` in generated source; keyword order is kept as given."""

    function: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    @staticmethod
    def of(function: str, *args: Any, **kwargs: Any) -> Call:
        return Call(function, args, tuple(kwargs.items()))


def register(env: Any) -> None:
    """The jinja tests the ``call`` macro dispatches on."""
    env.tests["call"] = lambda value: isinstance(value, Call)
    env.tests["code"] = lambda value: isinstance(value, Code)
    env.tests["items"] = lambda value: isinstance(value, Items)
