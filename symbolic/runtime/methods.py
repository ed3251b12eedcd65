"""Methods of a generated scenario class: parameterised outputs (``s.transfer_time("NVLink")``).

A ``Method`` descriptor reads like an output but returns a bound method; calling it checks
each argument as an input is checked (a number with a unit and domain, a Quantity in any
compatible unit, a numpy array that broadcasts, or a key of a keyed input), runs the
generated evaluator with the arguments added and returns the output, wrapped as the
output's attribute would be. The evaluator is the same function ``evaluate`` of the module:
to it an argument is one more optional keyword (symbolic.model.arguments).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NamedTuple

from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError
from symbolic.runtime.feasibility import _short, refuse_at_arguments, refuse_infeasible
from symbolic.runtime.outputs import Output, _check_finite
from symbolic.runtime.validation import REQUIRED, InputSpec, coerce_number

if TYPE_CHECKING:
    from symbolic.runtime.scenario import ScenarioBase


class ArgumentSpec(NamedTuple):
    """One parameter of a method: ``spec`` checks a number (its name is the keyword people pass);
    ``argument`` is the evaluator's keyword it fills; ``key_of`` names the keyed input whose keys
    it takes (the evaluator then gets the key's position)."""

    spec: InputSpec
    argument: str
    key_of: str = ""
    example: Any = None

    @property
    def keyword(self) -> str:
        return self.spec.name

    @property
    def domain(self) -> str:
        return f"a key of '{self.key_of}'" if self.key_of else self.spec.domain


class Method(Output):
    """A parameterised output: ``scenario.name(*arguments)`` is the output at those arguments."""

    def __init__(self, name: str, unit: str = "", *, arguments: tuple[ArgumentSpec, ...] = (), doc: str = "",
                 **kwargs: Any) -> None:
        super().__init__(name, unit, **kwargs)
        self.arguments = arguments
        self.doc = doc

    def __get__(self, scenario: ScenarioBase | None, owner: type) -> Any:
        if scenario is None:
            return self
        return BoundMethod(scenario, self)

    def signature(self) -> str:
        """``name(a, b=1)`` as people call it."""
        parts = [a.keyword if a.spec.default is REQUIRED else f"{a.keyword}={a.spec.default!r}" for a in self.arguments]
        return f"{self.name}({', '.join(parts)})"

    def call(self, scenario: ScenarioBase, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        title = f"{type(scenario).__name__}.{self.name}"
        keywords = [a.keyword for a in self.arguments]
        if len(args) > len(keywords):
            raise InputTypeError(f"{title} takes {len(keywords)} argument{'s' if len(keywords) != 1 else ''} "
                                 f"({self.signature()}), got {len(args)}")
        given = dict(zip(keywords, args, strict=False))
        for key, value in kwargs.items():
            if key not in keywords:
                raise InputTypeError(f"{title}: unknown argument {key!r}; it takes {self.signature()}")
            if key in given:
                raise InputTypeError(f"{title}: argument {key!r} given twice")
            given[key] = value
        extra: dict[str, Any] = {}
        array = False
        for argument in self.arguments:
            value = given.get(argument.keyword, REQUIRED)
            if value is REQUIRED:
                if argument.spec.default is REQUIRED:
                    raise MissingInputError(f"{title}: argument {argument.keyword!r} was not given; "
                                            f"expected {argument.domain} ({self.signature()})")
                continue  # the evaluator applies the default
            extra[argument.argument], shaped = _checked(title, scenario, argument, value)
            array = array or shaped
        try:
            values = type(scenario)._evaluate(**scenario._args, **extra)
        except (ZeroDivisionError, OverflowError) as error:
            from symbolic.runtime.undefined import where_fits  # only outputs a failing Fits guards undefined?

            found = where_fits(type(scenario), {**scenario._args, **extra}) if type(scenario)._fits else None
            if found is None or found.get(self.name) is None and not self.guard:
                raise ScenarioInputError(f"{title}: these inputs and arguments under- or overflow double "
                                         f"precision ({error}); arguments: {given}") from None
            values = found
        value = values[self.name]
        if self.guard:  # first the instance's Fits, then those its arguments decide
            refuse_infeasible(scenario, self.guard, self.name)
            shown = ", ".join(f"{key}={_short(given[key])}" for key in keywords if key in given)
            value = refuse_at_arguments(scenario, self.guard, f"{self.name}({shown})", values, value, array)
        if not array:
            _check_finite(scenario, {self.name: value}, "")
        elif self.labels and value is not None:  # an array of choices: their labels, element by element
            import numpy

            return numpy.asarray(self.labels, dtype=object)[numpy.asarray(value, dtype=int)]
        return self.read(value, scenario)


class BoundMethod:
    """A method of one instance; ``repr`` and ``__doc__`` say what it computes."""

    __slots__ = ("_scenario", "_method")

    def __init__(self, scenario: ScenarioBase, method: Method) -> None:
        self._scenario = scenario
        self._method = method

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._method.call(self._scenario, args, kwargs)

    @property
    def __doc__(self) -> str:  # type: ignore[override]
        method = self._method
        lines = [f"{method.signature()}: {method.doc}" + (f" [{method.unit}]" if method.unit else "")]
        lines += [f"    {a.keyword}: {a.domain}. {a.spec.doc}" for a in method.arguments]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<method {type(self._scenario).__name__}.{self._method.signature()} of {self._scenario.name!r}>"

    def __eq__(self, other: object) -> bool:
        if type(other) is not BoundMethod:
            return NotImplemented
        return self._method is other._method and self._scenario == other._scenario  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self._method.name, self._scenario))

    def __reduce__(self) -> tuple[Any, ...]:
        return getattr, (self._scenario, self._method.name)


def _checked(title: str, scenario: ScenarioBase, argument: ArgumentSpec, value: Any) -> tuple[Any, bool]:
    """The evaluator's number for one argument, and whether it is an array."""
    where = f"{title}: argument '{argument.keyword}'"
    if argument.key_of:
        keys = list(scenario._given[argument.key_of])
        if not isinstance(value, str):
            raise InputTypeError(f"{where} got {type(value).__name__} {value!r}; expected a key of "
                                 f"'{argument.key_of}' ({', '.join(map(repr, keys))})")
        if value not in keys:
            raise ScenarioInputError(f"{where} is {value!r}, which is not a key of '{argument.key_of}' "
                                     f"({', '.join(map(repr, keys))})")
        return keys.index(value), False
    if _is_array(value):
        from symbolic.runtime.sweep import coerce_array  # numpy only when an array is given

        return coerce_array(title, argument.spec, value), True
    return coerce_number(title, argument.spec, value, where), False


def _is_array(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return True
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return False
    magnitude = getattr(value, "magnitude", value)
    return isinstance(magnitude, numpy.ndarray) and magnitude.ndim > 0
