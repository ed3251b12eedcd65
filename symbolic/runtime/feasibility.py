"""What a generated class declares about setups that cannot run and values that cannot be.

``_fits``: one ``FitsSpec`` per ``Fits(need <= have, ...)`` of the declaration
(``symbolic.model.feasibility``); the evaluator returns ``<name>`` (1 or 0), ``<name>_need`` and
``<name>_have``. An output descriptor with ``guard=("fits",)`` exists only where those hold:
``refuse_infeasible`` raises ``InfeasibleError`` for it on an instance that does not fit. A ``Fits``
whose condition reads a method's argument (``step_bytes(b) <= capacity``) is a method too: the
instance has no value of it, and each call of a method it guards checks it at the call's arguments
(``refuse_at_arguments``: an error for a number, NaN where it fails for an array).
``_bounds``: one ``Bound`` per declared output range; ``check_bounds`` refuses an evaluation
outside one, naming the output, its value and the inputs it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from symbolic.runtime.errors import InfeasibleError, ScenarioInputError

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase


class FitsSpec(NamedTuple):
    """A ``Fits`` declaration: the output ``name`` is 1 where ``name_need <= name_have`` (in ``unit``)."""

    name: str
    message: str
    unit: str = ""
    inputs: tuple[str, ...] = ()  # the inputs need and have read, as users name them


class Bound(NamedTuple):
    """A declared range of the output at ``path`` (``group.field``, ``table[key]``)."""

    path: str
    low: float | None  # None: no bound on that side
    high: float | None
    inputs: tuple[str, ...] = ()  # the inputs the output reads, as users name them


def value_at(result: dict[str, Any], path: str) -> Any:
    """The value of an evaluation at an output path (``a.b``, ``t[k]``, ``a.t[k]``)."""
    value: Any = result
    for part in path.replace("]", "").replace("[", ".").split("."):
        value = value[part]
    return value


def _shown_inputs(scenario: ScenarioBase, names: tuple[str, ...]) -> str:
    shown = []
    for name in names:
        value = getattr(scenario, name, None)
        text = getattr(value, "name", None) if hasattr(value, "resolved") or hasattr(value, "precision_flops") else None
        shown.append(f"{name}={text if isinstance(text, str) else _short(value)}")
    return ", ".join(shown)


def _short(value: Any) -> str:
    if hasattr(value, "magnitude") and hasattr(value, "units"):
        text = f"{value.magnitude:.6g} {value.units:~P}"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _amount(value: Any, unit: str) -> str:
    return f"{value:.6g} {unit}".strip()


def infeasible(scenario: ScenarioBase) -> list[FitsSpec]:
    """The ``Fits`` of the instance that do not hold (an absent one, needing an optional input, holds)."""
    result = scenario._result or scenario._evaluated()
    return [fits for fits in type(scenario)._fits if result.get(fits.name) is not None and not result[fits.name]]


def refuse_infeasible(scenario: ScenarioBase, guard: tuple[str, ...], output: str,
                      result: dict[str, Any] | None = None) -> None:
    """Raise ``InfeasibleError`` when a ``Fits`` in ``guard`` fails for this instance (or in ``result``, an
    evaluation at a method's arguments, ``output`` then naming them)."""
    result = result or scenario._result or scenario._evaluated()
    for fits in type(scenario)._fits:
        if fits.name in guard and result.get(fits.name) is not None and not result[fits.name]:
            need, have = result[f"{fits.name}_need"], result[f"{fits.name}_have"]
            if need is None or have is None:  # a side needs an input not given: the output says which
                continue
            raise InfeasibleError(
                f"{type(scenario).__name__}: '{output}' does not exist for a setup that does not fit: {fits.message}, "
                f"but it needs {_amount(need, fits.unit)} and has {_amount(have, fits.unit)} "
                f"({_shown_inputs(scenario, fits.inputs)}); '{fits.name}' is False")


def refuse_at_arguments(scenario: ScenarioBase, guard: tuple[str, ...], output: str, values: dict[str, Any],
                        value: Any, array: bool) -> Any:
    """A method's value at its arguments under the ``Fits`` in ``guard`` that only the arguments decide
    (the instance has no value of them, ``values`` has): refused for a number where one fails, NaN
    in the elements of an array where one fails."""
    result = scenario._result or scenario._evaluated()
    per_call = [fits.name for fits in type(scenario)._fits if fits.name in guard and result.get(fits.name) is None
                and values.get(fits.name) is not None]
    if not per_call:
        return value
    if not array:
        refuse_infeasible(scenario, tuple(per_call), output, values)
        return value
    import numpy

    ok = numpy.bool_(True)
    for name in per_call:
        ok = ok & (numpy.asarray(values[name]) != 0)
    return value if numpy.all(ok) else numpy.where(ok, value, numpy.nan)


def shown_range(bound: Bound) -> str:
    low = "-inf" if bound.low is None else f"{bound.low:g}"
    high = "inf" if bound.high is None else f"{bound.high:g}"
    return f"[{low}, {high}]"


def within(bound: Bound, value: Any) -> Any:
    """Whether ``value`` (a number or an array) lies in the declared range."""
    low = value >= bound.low if bound.low is not None else value == value  # noqa: PLR0124 (False for NaN)
    return low & (value <= bound.high) if bound.high is not None else low


def check_bounds(scenario: ScenarioBase, result: dict[str, Any]) -> None:
    """Refuse an evaluation with an output outside its declared range (NaN-free: finite already)."""
    for bound in type(scenario)._bounds:
        value = value_at(result, bound.path)
        if value is not None and not within(bound, value):
            raise ScenarioInputError(
                f"{type(scenario).__name__}: output '{bound.path}' is {value:.6g}, outside its declared range "
                f"{shown_range(bound)}; check the inputs it reads: {_shown_inputs(scenario, bound.inputs)}")


def mask_infeasible(cls: type[ScenarioBase], result: dict[str, Any], outputs: dict[str, Any],
                    guards: dict[str, tuple[str, ...]]) -> None:
    """A sweep's arrays: NaN in every guarded output where its ``Fits`` fails (``outputs`` changed in place)."""
    import numpy

    holds = {fits.name: numpy.asarray(result[fits.name]) != 0 for fits in cls._fits if result.get(fits.name) is not None}
    for path in list(outputs):
        names = guards.get(path) or guards.get(path.split("[", 1)[0] + "[]") if "[" in path else guards.get(path)
        if not names:
            continue
        ok = numpy.bool_(True)
        for name in names:
            if name in holds:
                ok = ok & holds[name]
        if not numpy.all(ok):
            outputs[path] = numpy.where(ok, outputs[path], numpy.nan)
