"""Values that remember how they were written, so the registry is emitted as source.

``Datasets.MNIST.image_width * Datasets.MNIST.image_height`` in a registry declaration
is a ``Ref`` whose ``value`` is 784 and whose ``source`` is that text; the generator
writes the source into ``generated/registry.py`` and the value into the docs, so named
instances are built from the catalog rather than from copied literals.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any
from symbolic.runtime.units import Q_

# Python precedence levels of the operators a Ref supports (higher binds tighter).
_ADD, _MUL, _ATOM = 1, 2, 3


class Lazy:
    """A value computed on first use (an entry's key and outputs exist only at generation)."""

    __slots__ = ("_compute", "_done", "_result")

    def __init__(self, compute: Callable[[], Any]) -> None:
        self._compute = compute
        self._done = False
        self._result: Any = None

    def get(self) -> Any:
        if not self._done:
            self._result, self._done = self._compute(), True
        return self._result


class Ref:
    """A value and the Python source that produces it at runtime (either may be ``Lazy``)."""

    __slots__ = ("_source", "_value", "_precedence")

    def __init__(self, source: str | Lazy, value: Any, precedence: int = _ATOM) -> None:
        self._source = source
        self._value = value
        self._precedence = precedence

    @property
    def source(self) -> str:
        return self._source.get() if isinstance(self._source, Lazy) else self._source

    @property
    def value(self) -> Any:
        return self._value.get() if isinstance(self._value, Lazy) else self._value

    @property
    def lazy(self) -> bool:
        return isinstance(self._source, Lazy) or isinstance(self._value, Lazy)

    def __getattr__(self, name: str) -> Ref:
        if name.startswith("_"):
            raise AttributeError(name)
        if self.lazy:
            return Ref(Lazy(lambda: f"{self._wrap(_ATOM)}.{name}"), Lazy(lambda: getattr(self.value, name)))
        return Ref(f"{self._wrap(_ATOM)}.{name}", getattr(self.value, name))  # (a / b).to(...) keeps its brackets

    def __call__(self, *args: Any, **kwargs: Any) -> Ref:
        """A method call on the referenced value: ``capacity.to("GiB")`` stays written as source."""
        def source() -> str:
            parts = [source_of(a) for a in args] + [f"{key}={source_of(v)}" for key, v in kwargs.items()]
            return f"{self.source}({', '.join(parts)})"

        def value() -> Any:
            return self.value(*(value_of(a) for a in args), **{key: value_of(v) for key, v in kwargs.items()})

        if self.lazy or any(isinstance(a, Ref) and a.lazy for a in (*args, *kwargs.values())):
            return Ref(Lazy(source), Lazy(value))
        return Ref(source(), value())

    def _wrap(self, level: int, right: bool = False) -> str:
        tighter = self._precedence > level or (self._precedence == level and not right)
        return self.source if tighter else f"({self.source})"

    def _binary(self, other: Any, symbol: str, level: int, op: Callable[[Any, Any], Any], reflected: bool = False) -> Ref:
        other_ref = other if isinstance(other, Ref) else Ref(repr(other), other)
        left, right = (other_ref, self) if reflected else (self, other_ref)

        def source() -> str:
            return f"{left._wrap(level)} {symbol} {right._wrap(level, right=True)}"

        if left.lazy or right.lazy:
            return Ref(Lazy(source), Lazy(lambda: op(left.value, right.value)), level)
        return Ref(source(), op(left.value, right.value), level)

    def __add__(self, other: Any) -> Ref:
        return self._binary(other, "+", _ADD, operator.add)

    def __radd__(self, other: Any) -> Ref:
        return self._binary(other, "+", _ADD, operator.add, reflected=True)

    def __sub__(self, other: Any) -> Ref:
        return self._binary(other, "-", _ADD, operator.sub)

    def __mul__(self, other: Any) -> Ref:
        return self._binary(other, "*", _MUL, operator.mul)

    def __rmul__(self, other: Any) -> Ref:
        return self._binary(other, "*", _MUL, operator.mul, reflected=True)

    def __truediv__(self, other: Any) -> Ref:
        return self._binary(other, "/", _MUL, operator.truediv)

    def __rtruediv__(self, other: Any) -> Ref:
        return self._binary(other, "/", _MUL, operator.truediv, reflected=True)

    def __floordiv__(self, other: Any) -> Ref:
        """Whole divisions of catalog counts, ``Clusters.Training_1K.total_accelerators // 8``."""
        return self._binary(other, "//", _MUL, operator.floordiv)

    def __rfloordiv__(self, other: Any) -> Ref:
        return self._binary(other, "//", _MUL, operator.floordiv, reflected=True)

    def __repr__(self) -> str:
        return "Ref(<not yet resolved>)" if isinstance(self._source, Lazy) else f"Ref({self.source!r})"


def Q(text: Any, unit: str | None = None) -> Ref:  # noqa: N802 (reads like the runtime's Q_)
    """A literal Quantity in a registry declaration, ``Q("100 µs")``, or a catalog number in a
    unit, ``Q(Hardware.Cloud.H100.memory_capacity.to("GiB").magnitude, "GB")``."""
    if unit is None:
        return Ref(f"Q_({text!r})", Q_(text))
    return Ref(f"Q_({source_of(text)}, {unit!r})", Q_(value_of(text), unit))


def source_of(value: Any) -> str:
    """The Python source that rebuilds ``value`` in ``generated/registry.py``."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(source_of(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {source_of(item)}" for key, item in value.items()) + "}"
    if hasattr(value, "source"):  # a Ref, or a registry Instance (Scenarios.<key>)
        return value.source
    if isinstance(value, (bool, int, float, str)) or value is None:
        return repr(value)
    raise TypeError(f"registry values must be numbers, strings, lists, dicts or catalog references, got {value!r}")


def value_of(value: Any) -> Any:
    """The plain value behind a ``Ref`` (or the value itself; lists element-wise)."""
    if isinstance(value, (list, tuple)):
        return [value_of(item) for item in value]
    if isinstance(value, dict):
        return {key: value_of(item) for key, item in value.items()}
    return value.value if isinstance(value, Ref) else value


def literal(value: Any) -> Ref:
    """A plain number kept as written through arithmetic, so ``2 * B * K * N`` with
    ``B = literal(32)`` stays ``2 * 32 * ...`` in the registry instead of one folded number."""
    return Ref(repr(value), value)
