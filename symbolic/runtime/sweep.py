"""Vectorised sweeps: one evaluator call over numpy arrays of inputs.

Sweep values go through the same conversion and checks as ``variant()``, element by
element: a Quantity array (or a list of Quantities) is converted to the input's declared
unit, a bare number is read in that unit, a wrong dimension, a non-number or a value
outside the domain is refused naming the input.

Sweeps compute in float64. Integer inputs are converted before the arithmetic, because
numpy's int64 wraps around silently (6·N·D for 10¹² parameters × 10¹³ tokens is past
2⁶³): float64 counts are exact up to 2⁵³ ≈ 9·10¹⁵ and beyond that lose low digits, never
sign or magnitude. Use the scalar class API when a count above 2⁵³ must be exact.
"""

from __future__ import annotations

from typing import Any

from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.feasibility import mask_infeasible, shown_range, value_at, within
from symbolic.runtime.paths import guarded_paths, leaves
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.units import is_quantity, label
from symbolic.runtime.validation import FLOAT_MAX, FLOAT_TINY, InputSpec, ListSpec, coerce_number, conversion_factor
from symbolic.runtime.units import Q_


class SweepResult(dict[str, Any]):
    """``{output path: read-only float64 array}``, every array of the sweep's common shape.

    An output that exists only for a setup that fits (``Fits``) is NaN where it does not; the
    ``fits`` output (1.0 or 0.0) says where.

    Paths are named as everywhere else (``op_flops[matmul1]``, ``host.host_time``,
    ``result.total_time[accelerator]``). ``units[path]`` is each output's display unit,
    ``inputs`` the varied inputs broadcast to the same shape (in ``input_units``), and
    ``quantity(path)`` an output as a pint Quantity array.
    """

    def __init__(self, outputs: dict[str, Any], units: dict[str, str], inputs: dict[str, Any],
                 input_units: dict[str, str]) -> None:
        super().__init__(outputs)
        self.units = units
        self.inputs = inputs
        self.input_units = input_units

    @property
    def shape(self) -> tuple[int, ...]:
        return next(iter(self.values())).shape if self else ()

    def quantity(self, path: str) -> Any:
        """Output ``path`` as a Quantity array in its display unit."""
        return Q_(self[path], self.units[path] or "dimensionless")

    def __repr__(self) -> str:
        varied = ", ".join(f"{name} [{unit or '1'}]" for name, unit in self.input_units.items())
        return f"<SweepResult of shape {self.shape} over {varied}: {len(self)} outputs>"

    def __reduce__(self) -> Any:  # a dict subclass with attributes: pickle both
        return (SweepResult, (dict(self), self.units, self.inputs, self.input_units))


def sweep(base: ScenarioBase, varied: dict[str, Any]) -> SweepResult:
    """Every output of ``base`` with the numeric inputs in ``varied`` replaced by arrays.

    Each array is converted and validated like a ``variant()`` value, element by element;
    the arrays broadcast against each other.

        >>> import numpy as np
        >>> from generated import Q_, Scenarios
        >>> out = sweep(Scenarios.MnistTwoLayerTrainingStepOnH100, {"dispatch": Q_(np.array([1, 5]), "ms")})
        >>> out["host.dispatch_time"].tolist(), out.units["host.dispatch_time"]
        ([5000.0, 25000.0], 'µs')
        >>> out.inputs["dispatch"].tolist(), out.input_units["dispatch"]
        ([1000.0, 5000.0], 'µs')
    """
    import numpy

    expect_instance("sweep", base)
    cls = type(base)
    title = cls.__name__
    specs = {spec.name: spec for spec in cls._specs if not isinstance(spec, ListSpec)}
    if not isinstance(varied, dict) or not varied:
        raise ScenarioInputError(f"{title}: sweep needs a non-empty dict of input name -> values, got {varied!r}")
    args = dict(base._args)
    arrays = {}
    for name, values in varied.items():
        if name not in specs:
            numeric = ", ".join(specs)
            raise ScenarioInputError(f"{title}: cannot sweep '{name}'; numeric inputs: {numeric}")
        absent = [other for other in cls._needs.get(name, ()) if base._given.get(other) is None]
        if absent:  # as variant() refuses it: no output would read the swept values
            raise ScenarioInputError(f"{title}: cannot sweep '{name}' without {' and '.join(map(repr, absent))}: no "
                                     "output reads it without them")
        arrays[name] = args[name] = coerce_array(title, specs[name], values)
    try:
        shape = numpy.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{name} {array.shape}" for name, array in arrays.items())
        raise ScenarioInputError(f"{title}: the swept arrays do not broadcast to one shape: {shapes}") from None
    for requirement in cls._requirements:
        if not requirement.applies(args):
            continue
        values = [args[n] for n in requirement.names]
        if requirement.absent(args):
            raise ScenarioInputError(f"{title}: {requirement.message} (fails for some swept values)")
        holds = numpy.broadcast_to(requirement.check(*values), shape)
        if not numpy.all(holds):  # name the first swept point that fails, as variant() would
            at = numpy.unravel_index(int(numpy.argmin(holds)), shape) if shape else ()
            point = ", ".join(f"{name}={numpy.broadcast_to(value, shape)[at].item():g}"
                              for name, value in zip(requirement.names, values, strict=True)
                              if value is not None)  # an optional input left out has no value to show
            raise ScenarioInputError(f"{title}: {requirement.message}; fails for some swept values, first at {point}")
    undefined = None
    with numpy.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            result = cls._evaluate(**args)
        except (FloatingPointError, ZeroDivisionError, OverflowError) as error:
            if not cls._fits:
                raise ScenarioInputError(f"{title}: the swept values overflow double precision ({error})") from None
            undefined = error  # perhaps only where a Fits fails, in outputs that do not exist there
    if undefined is not None:
        with numpy.errstate(all="ignore"):
            result = cls._evaluate(**{name: numpy.asarray(value, dtype=numpy.float64) if name in arrays else value
                                      for name, value in args.items()})
    outputs, units = {}, {}
    for path, value, unit, kind in leaves(cls, result):
        if kind == "number" and value is not None:
            outputs[path] = _read_only(numpy.broadcast_to(numpy.asarray(value, dtype=numpy.float64), shape))
            units[path] = unit
    if cls._fits:  # outputs of a setup that runs are NaN where it does not fit
        mask_infeasible(cls, result, outputs, guarded_paths(cls))
        outputs = {path: _read_only(numpy.broadcast_to(value, shape)) for path, value in outputs.items()}
    if undefined is not None:  # what is left, outside the masked points, must be numbers
        guards = guarded_paths(cls)
        for path, value in outputs.items():
            names = guards.get(path) or (guards.get(path.split("[", 1)[0] + "[]") if "[" in path else None)
            if not numpy.all(numpy.isfinite(value) | (numpy.isnan(value) & bool(names))):
                raise ScenarioInputError(f"{title}: the swept values overflow double precision ({undefined})")
    if cls._bounds:
        _refuse_out_of_bounds(cls, result, shape, arrays)
    inputs = {name: _read_only(numpy.broadcast_to(array, shape)) for name, array in arrays.items()}
    return SweepResult(outputs, units, inputs, {name: label(specs[name].unit) for name in arrays})


def _refuse_out_of_bounds(cls: type[ScenarioBase], result: dict[str, Any], shape: tuple[int, ...],
                          arrays: dict[str, Any]) -> None:
    """A declared output range fails at some swept point: refused naming the first, as variant() would."""
    import numpy

    for bound in cls._bounds:
        value = value_at(result, bound.path)
        if value is None:
            continue
        values = numpy.broadcast_to(numpy.asarray(value, dtype=numpy.float64), shape)
        outside = ~within(bound, values)
        if numpy.any(outside):
            at = numpy.unravel_index(int(numpy.argmax(outside)), shape) if shape else ()
            point = ", ".join(f"{name}={numpy.broadcast_to(array, shape)[at].item():g}" for name, array in arrays.items())
            raise ScenarioInputError(f"{cls.__name__}: output '{bound.path}' is {values[at].item():.6g} at {point}, "
                                     f"outside its declared range {shown_range(bound)}; check the inputs it "
                                     f"reads: {', '.join(bound.inputs)}")


def expect_instance(what: str, value: Any) -> None:
    """Refuse a class, a name or anything else where an instance is needed, saying how to get one."""
    if isinstance(value, ScenarioBase):
        return
    if isinstance(value, type) and issubclass(value, ScenarioBase):
        got = f"the class {value.__name__}"
    else:
        got = f"{type(value).__name__} {value!r}"[:80]
    raise ScenarioInputError(f"{what} needs a scenario instance (a registry entry such as Scenarios.X, or "
                             f"SomeScenario(...) with its inputs), got {got}")


def _read_only(array: Any) -> Any:
    view = array.view()
    view.flags.writeable = False
    return view


def coerce_array(title: str, spec: InputSpec, values: Any) -> Any:
    """``values`` as a float64 array in ``spec.unit``, every element checked like ``coerce_number``."""
    import numpy

    where = f"{title}: sweep values of '{spec.name}'"
    if isinstance(values, (str, bytes, bytearray, memoryview)):  # numpy reads bytes as uint8 codes: b"12" -> 49, 50
        raise ScenarioInputError(f"{where} must be numbers, got {type(values).__name__} {values!r:.60}")
    data = getattr(values, "magnitude", values)
    if numpy.ma.is_masked(data):  # numpy.asarray drops the mask and sweeps the values under it
        first = numpy.unravel_index(int(numpy.argmax(numpy.ma.getmaskarray(data))), numpy.shape(data))
        at = ", ".join(str(int(i)) for i in first)
        raise ScenarioInputError(f"{where} have masked (missing) entries, the first at [{at}]; "
                                 "give a number for every point")
    if is_quantity(values):
        magnitude = numpy.asarray(values.magnitude)
        if magnitude.dtype == object:  # ints beyond int64 (Q_(2**70)): each converted like a scalar input
            quantity = values._REGISTRY.Quantity
            return _element_by_element(title, spec, [quantity(m, values.units) for m in magnitude.ravel()],
                                       magnitude.shape)
        if magnitude.dtype.kind not in "iuf":
            raise ScenarioInputError(f"{where} must be numbers, got a Quantity of dtype {magnitude.dtype}")
        factor = conversion_factor(f"{title}: input '{spec.name}'", spec, values)  # refuses a wrong dimension
        with numpy.errstate(over="ignore", under="ignore"):  # refused below, naming the value as given
            array = magnitude.astype(numpy.float64) * factor
        lost = ~numpy.isfinite(array) | ((array == 0) & (magnitude != 0))
        if lost.any():  # overflowed or underflowed in the conversion: the scalar check names the value
            coerce_number(title, spec, values[numpy.unravel_index(int(numpy.argmax(lost)), lost.shape)])
        _validate(title, spec, array)
    elif isinstance(values, (list, tuple)) and any(_holds_quantity_array(value) for value in values):
        # rows that are Quantity arrays (or lists of Quantities): numpy would strip their units
        # (a list of Q_(array, "ms") read as µs); each row is converted on its own, then stacked
        rows = [coerce_array(title, spec, value) for value in values]
        if len({row.shape for row in rows}) > 1:
            shapes = ", ".join(str(row.shape) for row in rows)
            raise ScenarioInputError(f"{where} do not form a rectangular array (rows of shapes {shapes})")
        return numpy.stack(rows)
    else:
        try:
            array = numpy.asarray(values)
        except ValueError as error:  # ragged nested lists
            raise ScenarioInputError(f"{where} do not form a rectangular array ({error})") from None
        except Exception:  # e.g. pint refusing a list of Quantities: convert them one by one below
            array = numpy.empty(len(values), dtype=object)
            array[:] = list(values)
        if array.dtype == object:  # Quantities, Fractions, big ints...: each converted like a scalar input
            return _element_by_element(title, spec, list(array.ravel()), array.shape)
        if array.dtype.kind not in "iuf":
            raise ScenarioInputError(f"{where} must be numbers, got dtype {array.dtype}")
        given = array
        with numpy.errstate(over="ignore"):  # a long double past double range: refused below, as given
            array = array.astype(numpy.float64)
        _validate(title, spec, array, given)
    return array + 0.0  # -0.0 becomes 0.0, as in variant()


def _holds_quantity_array(value: Any) -> bool:
    """Whether ``value`` is a Quantity array or a list or tuple holding Quantities (a row of a 2-d sweep)."""
    if is_quantity(value):
        return bool(getattr(value.magnitude, "ndim", 0))
    return isinstance(value, (list, tuple)) and any(is_quantity(item) or _holds_quantity_array(item) for item in value)


def _element_by_element(title: str, spec: InputSpec, values: list[Any], shape: tuple[int, ...]) -> Any:
    """Values numpy holds only as objects (Quantities, Fractions, ints beyond int64), each
    converted and checked like a scalar input."""
    import numpy

    converted = [coerce_number(title, spec, value) for value in values]
    array = numpy.asarray(converted, dtype=numpy.float64).reshape(shape)
    _validate(title, spec, array)
    return array + 0.0


def _validate(title: str, spec: Any, array: Any, given: Any = None) -> None:
    """Vectorised domain check; the first offending value is re-checked for the message, as
    ``given`` holds it (a long double 1e400 is named 1e+400, not the inf it rounded to)."""
    import numpy

    values = array.ravel()
    magnitude = numpy.abs(values)
    bad = ~numpy.isfinite(values) | (magnitude > FLOAT_MAX) | ((magnitude < FLOAT_TINY) & (values != 0))
    if spec.integer:
        bad |= values != numpy.floor(values)
    if spec.minimum is not None:
        bad |= (values <= spec.minimum) if spec.strict else (values < spec.minimum)
    if spec.maximum is not None:
        bad |= (values >= spec.maximum) if spec.strict_maximum else (values > spec.maximum)
    if bad.any():
        first = int(numpy.argmax(bad))
        coerce_number(title, spec, values[first].item() if given is None else given.ravel()[first])
        raise ScenarioInputError(f"{title}: a sweep value of '{spec.name}' is outside {spec.scalar_domain}")
