"""Vectorised sweeps: one evaluator call over numpy arrays of inputs.

Sweeps compute in float64. Integer inputs are converted before the arithmetic, because
numpy's int64 wraps around silently (6·N·D for 10¹² parameters × 10¹³ tokens is past
2⁶³): float64 counts are exact up to 2⁵³ ≈ 9·10¹⁵ and beyond that lose low digits, never
sign or magnitude. Use the scalar class API when a count above 2⁵³ must be exact.
"""

from __future__ import annotations

from typing import Any

from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.validation import ListSpec, coerce_number


def sweep(base: ScenarioBase, varied: dict[str, Any]) -> dict[str, Any]:
    """Every output of ``base`` with the numeric inputs in ``varied`` replaced by arrays.

    Each array is validated against its input's domain, element by element; arrays
    broadcast against each other. Returns ``{output path: float64 array}`` with every
    output broadcast to the common shape (tables as ``name[key]``, groups as ``group.field``).
    """
    import numpy

    cls = type(base)
    title = cls.__name__
    specs = {spec.name: spec for spec in cls._specs if not isinstance(spec, ListSpec)}
    args = dict(base._args)
    for name, values in varied.items():
        if name not in specs:
            numeric = ", ".join(specs)
            raise ScenarioInputError(f"{title}: cannot sweep '{name}'; numeric inputs: {numeric}")
        array = numpy.asarray(values)
        if array.dtype == object or array.dtype.kind not in "iuf":
            raise ScenarioInputError(f"{title}: sweep values of '{name}' must be numbers, got dtype {array.dtype}")
        _validate(title, specs[name], array)
        args[name] = array.astype(numpy.float64)
    shape = numpy.broadcast_shapes(*(numpy.shape(a) for a in args.values() if isinstance(a, numpy.ndarray)))
    for requirement in cls._requirements:
        values = [args[n] for n in requirement.names]
        if any(v is None for v in values) or not numpy.all(requirement.check(*values)):
            raise ScenarioInputError(f"{title}: {requirement.message} (fails for some swept values)")
    with numpy.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            result = cls._evaluate(**args)
        except (FloatingPointError, ZeroDivisionError, OverflowError) as error:
            raise ScenarioInputError(f"{title}: the swept values overflow double precision ({error})") from None
    return {path: numpy.broadcast_to(numpy.asarray(value, dtype=numpy.float64), shape)
            for path, value in flatten_numbers(result)}


def _validate(title: str, spec: Any, array: Any) -> None:
    """Vectorised domain check; the first offending value is re-checked for the message."""
    import numpy

    values = array.astype(numpy.float64).ravel()
    bad = ~numpy.isfinite(values)
    if spec.integer:
        bad |= values != numpy.floor(values)
    if spec.minimum is not None:
        bad |= (values <= spec.minimum) if spec.strict else (values < spec.minimum)
    if spec.maximum is not None:
        bad |= (values >= spec.maximum) if spec.strict_maximum else (values > spec.maximum)
    if bad.any():
        coerce_number(title, spec, array.ravel()[int(numpy.argmax(bad))].item())


def flatten_numbers(tree: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """``(path, value)`` for every numeric leaf (lists and text are skipped: they do not sweep)."""
    rows = []
    for key, value in tree.items():
        if isinstance(value, dict):
            rows += flatten_numbers(value, f"{prefix}{key}.")
        elif value is not None and not isinstance(value, (list, str)):
            rows.append((f"{prefix}{key}", value))
    return rows
