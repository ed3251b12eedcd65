"""An evaluation that divides by zero (or overflows) only in outputs a failing ``Fits`` guards.

Those outputs do not exist for such a setup (a compile that never pays off has no break-even
count; a state with no activations no activation-bound batch), so the arithmetic that would
compute them may not be defined there. The evaluator computes every output; where it raises,
the instance is evaluated once more in numpy doubles with floating-point errors ignored, the
guarded outputs of the failing ``Fits`` are dropped, and what is left must be finite, or the
original error stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from symbolic.runtime.paths import guarded_paths, mask_leaves

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase


def _doubles(value: Any) -> Any:
    import numpy

    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return numpy.float64(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_doubles(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    import numpy

    if isinstance(value, dict):
        return {key: _plain(v) for key, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, numpy.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, numpy.generic):
        item = value.item()
        return int(item) if isinstance(item, bool) else item
    return value


def _failing(cls: type[ScenarioBase], args: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """The evaluation in doubles (floating-point errors ignored) and the guarded paths of its failing ``Fits``."""
    import numpy

    with numpy.errstate(all="ignore"):
        result = cls._evaluate(**{name: _doubles(value) for name, value in args.items()})
    failing = {fits.name for fits in cls._fits if result.get(fits.name) is not None and not result[fits.name]}
    return result, {path for path, names in guarded_paths(cls).items() if failing & set(names)}


def where_fits(cls: type[ScenarioBase], args: dict[str, Any]) -> dict[str, Any] | None:
    """The evaluation with the outputs of failing ``Fits`` removed, or None when no ``Fits`` fails."""
    result, dropped = _failing(cls, args)
    if not dropped:
        return None
    mask_leaves(result, dropped)
    return _plain(result)


def gradient_where_fits(cls: type[ScenarioBase], args: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The derivatives of the outputs that exist where a ``Fits`` fails, or None when none fails."""
    import numpy

    _, dropped = _failing(cls, args)
    if not dropped:
        return None
    with numpy.errstate(all="ignore"):
        gradient = cls._gradient(**{name: _doubles(value) for name, value in args.items()})
    kept = {output: row for output, row in gradient.items()
            if output not in dropped and output.split("[", 1)[0] + "[]" not in dropped}
    return _plain(kept)
