"""Min, max, ⌈log₂⌉, log and ceilings for the generated evaluators: plain numbers, or numpy arrays element-wise.

The builtins compare scalars (and keep ints exact); numpy arrays make ``min`` raise
because an array has no single truth value, and then numpy's element-wise reduction
is used. numpy is imported only in that case.
"""

from __future__ import annotations

from typing import Any


def minimum(*values: Any) -> Any:
    """The smallest value, element-wise for arrays (ties return the first, as ``min``)."""
    try:
        return min(values)
    except ValueError:
        import numpy

        return numpy.minimum.reduce(numpy.broadcast_arrays(*values))


def maximum(*values: Any) -> Any:
    """The largest value, element-wise for arrays."""
    try:
        return max(values)
    except ValueError:
        import numpy

        return numpy.maximum.reduce(numpy.broadcast_arrays(*values))


def floor_div(numerator: Any, denominator: Any) -> Any:
    """⌊numerator / denominator⌋, exact: a count is an int even when its operands are floats
    (``263.9 // 1.0`` is the float 263.0 in Python); arrays stay arrays."""
    quotient = numerator // denominator
    if type(quotient) is float and quotient - quotient == 0.0:  # finite: int() of it is exact
        return int(quotient)
    return quotient


def choose(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``if_true`` where ``condition`` holds, else ``if_false`` (element-wise for arrays)."""
    try:
        return if_true if condition else if_false
    except ValueError:
        import numpy

        return numpy.where(condition, if_true, if_false)


def ceiling_division(numerator: Any, denominator: Any) -> Any:
    """The smallest whole number at least numerator / denominator, by floor division (exact for
    floats: -(-n // d) never rounds n / d first); an int for scalars, element-wise for arrays."""
    return -floor_div(-numerator, denominator)


def step(value: Any) -> Any:
    """Heaviside step (1/2 at 0, as sympy's): the derivative of Min/Max picks the active branch."""
    try:
        return 1.0 if value > 0 else (0.5 if value == 0 else 0.0)
    except ValueError:
        import numpy

        return numpy.heaviside(value, 0.5)


def ceil_log2(value: Any) -> Any:
    """⌈log₂ n⌉ of a count n ≥ 1, exactly for whole numbers (the bit length of n − 1)."""
    try:
        whole = int(value)
    except TypeError:  # an array
        import numpy

        return numpy.ceil(numpy.log2(value))
    if whole == value:
        return (whole - 1).bit_length()
    return (int(value // 1)).bit_length()  # n in (k, k + 1]: ⌈log₂ n⌉ = ⌈log₂ (k + 1)⌉ = bit length of k


def product(values: Any) -> Any:
    """The product of an iterable of numbers or arrays (1 when empty), like ``sum`` for sums."""
    result: Any = 1
    for value in values:
        result = result * value
    return result


def log(value: Any) -> Any:
    """The natural logarithm, of a number or element-wise of an array."""
    import math

    try:
        return math.log(value)
    except TypeError:
        import numpy

        return numpy.log(value)


def chain_default(derivatives: dict[str, dict[str, Any]], name: str, partials: dict[str, Any]) -> None:
    """Chain rule for an input that was not given and follows its default (an expression of
    other inputs): its derivative entries move to those inputs, d y/d x += d y/d name · d name/d x."""
    for entries in derivatives.values():
        through = entries.pop(name, None)
        if through is None:
            continue
        for other, partial in partials.items():
            entries[other] = entries.get(other, 0) + through * partial


def drop_absent(derivatives: dict[str, dict[str, Any]], inputs: dict[str, Any]) -> None:
    """Remove the derivatives with respect to optional inputs that were not given (an
    ``otherwise=`` output reads them only when they are; absent, there is nothing to vary)."""
    for name, value in inputs.items():
        if value is None:
            for entries in derivatives.values():
                entries.pop(name, None)
