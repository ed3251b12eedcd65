"""Min, max, ⌈log₂⌉, log and ceilings for the generated evaluators: plain numbers, or numpy arrays element-wise.

The builtins compare scalars (and keep ints exact); numpy arrays make ``min`` raise
because an array has no single truth value, and then numpy's element-wise reduction
is used. numpy is imported only in that case.

A value beyond double range (inf) or undefined (nan) passes through every helper to the
evaluators' overflow check: ``maximum(0, nan)`` is nan where the builtin ``max`` gives 0, and
⌊inf / d⌋ is inf, so an overflow is reported and never becomes a count of 0. Each function's
declaration (symbolic/model/functions/) lists the non-finite values it must pass on; its test checks them.
"""

from __future__ import annotations

from typing import Any


def minimum(*values: Any) -> Any:
    """The smallest value, element-wise for arrays (ties return the first, as ``min``); nan if any is nan."""
    try:
        smallest = min(values)
    except ValueError:
        import numpy

        return numpy.minimum.reduce(numpy.broadcast_arrays(*values))  # numpy's minimum passes nan on
    for value in values:
        if value != value:  # nan: min() compares it as neither smaller nor larger and may drop it
            return value
    return smallest


def maximum(*values: Any) -> Any:
    """The largest value, element-wise for arrays; nan if any is nan (``max(0, nan)`` is 0)."""
    try:
        largest = max(values)
    except ValueError:
        import numpy

        return numpy.maximum.reduce(numpy.broadcast_arrays(*values))
    for value in values:
        if value != value:
            return value
    return largest


def floor_div(numerator: Any, denominator: Any) -> Any:
    """⌊numerator / denominator⌋, exact: a count is an int even when its operands are floats
    (``263.9 // 1.0`` is the float 263.0 in Python); arrays stay arrays."""
    quotient = numerator // denominator
    if isinstance(quotient, float):
        if quotient - quotient == 0.0:  # finite (a numpy float64 too): int() is exact
            return int(quotient)
        if quotient != quotient:  # inf // d is nan in Python: the quotient itself, ±inf (or nan), is passed on
            return numerator / denominator
    elif getattr(quotient, "dtype", None) is not None and quotient.dtype.kind == "f" and quotient.ndim:
        import numpy

        if not numpy.isfinite(numpy.add.reduce(quotient, axis=None)):  # one pass when every element is finite
            with numpy.errstate(all="ignore"):
                quotient = numpy.where(numpy.isnan(quotient), numpy.true_divide(numerator, denominator), quotient)
    return quotient


def choose(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``if_true`` where ``condition`` holds, else ``if_false`` (element-wise for arrays)."""
    try:
        return if_true if condition else if_false
    except ValueError:
        import numpy

        return numpy.where(condition, if_true, if_false)


def scalar(*conditions: Any) -> bool:
    """True when no condition is an array of more than zero dimensions (bools, numpy bools,
    0-d arrays): a generated selection then picks its branch with a Python conditional, which
    evaluates only the branch taken and keeps ints exact; else it selects element-wise (``select``)."""
    for condition in conditions:
        if type(condition) is not bool and getattr(condition, "ndim", None):
            return False
    return True


def select(conditions: tuple[Any, ...], choices: tuple[Any, ...], default: Any) -> Any:
    """Element-wise, the choice of the first condition that holds, else ``default``: the array
    form of a piecewise expression. A choice (or the default) may be given as a function
    computing it: every branch is computed over the whole array, so a branch's division by zero
    or overflow where it is not taken is ignored; one where it is taken still raises, when the
    caller's ``numpy.errstate`` says so (as a sweep's does)."""
    import numpy

    caller = numpy.geterr()
    with numpy.errstate(all="ignore"):
        default = default() if callable(default) else default
        choices = tuple(choice() if callable(choice) else choice for choice in choices)
        try:
            result = default
            for condition, choice in zip(reversed(conditions), reversed(choices), strict=True):
                result = numpy.where(condition, choice, result)
        except OverflowError:  # a Python int beyond int64: kept exact in an object array
            result = _objects(default)
            for condition, choice in zip(reversed(conditions), reversed(choices), strict=True):
                result = numpy.where(condition, _objects(choice), result)
    if "raise" in (caller["over"], caller["invalid"], caller["divide"]) and result.dtype.kind in "fc" and not (
            numpy.all(numpy.isfinite(result))):
        raise FloatingPointError("a selected branch is beyond double range or undefined (inf or nan)")
    return result


def _objects(value: Any) -> Any:
    import numpy

    return value if getattr(value, "ndim", 0) else numpy.array(value, dtype=object)


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
    """⌈log₂ n⌉ of a count n ≥ 1, exactly for whole numbers (the bit length of n − 1); for
    arrays from the binary exponent (``frexp``), exact too, where ``ceil(log2(n))`` rounds
    ``log2(2**50 + 1)`` down to 50."""
    if getattr(value, "ndim", 0):
        import numpy

        if value.dtype == object:  # Python ints beyond int64: each one exactly
            return numpy.frompyfunc(ceil_log2, 1, 1)(value)
        mantissa, exponent = numpy.frexp(value)  # value = mantissa·2**exponent, mantissa in [1/2, 1)
        found = numpy.where(mantissa == 0.5, exponent - 1, exponent)
        return found if value.dtype.kind in "iub" else numpy.where(numpy.isfinite(value), found, value)
    if value - value != 0:  # inf or nan: passed on
        return value
    whole = int(value)
    if whole == value:
        return (whole - 1).bit_length()
    return (int(value // 1)).bit_length()  # n in (k, k + 1]: ⌈log₂ n⌉ = ⌈log₂ (k + 1)⌉ = bit length of k


def product(values: Any) -> Any:
    """The product of an iterable of numbers or arrays (1 when empty), like ``sum`` for sums."""
    result: Any = 1
    for value in values:
        result = result * value
    return result


def series(term: Any, start: Any, stop: Any, reduce: str) -> Any:
    """The sum ("sum"), product ("product") or maximum ("max") of ``term(k)`` for k = start, ..., stop.
    For numbers a loop; where a limit is an array (a sweep over the count), each element has its own
    range: every k from the smallest start to the largest stop, its term counted only where
    start ≤ k ≤ stop (computed everywhere, its floating-point errors ignored where not counted)."""
    if not (getattr(start, "ndim", 0) or getattr(stop, "ndim", 0)):
        terms = (term(k) for k in range(start, stop + 1))
        return sum(terms) if reduce == "sum" else product(terms) if reduce == "product" else max(terms)
    import numpy

    low, high = numpy.broadcast_arrays(start, stop)
    if reduce == "max" and numpy.any(low > high):
        raise ValueError("max() arg is an empty sequence")  # as the loop over numbers
    neutral = {"sum": 0, "product": 1, "max": -numpy.inf}[reduce]
    total: Any = neutral
    with numpy.errstate(all="ignore"):
        for k in range(int(low.min()), int(high.max()) + 1):
            value = numpy.where((low <= k) & (k <= high), term(k), neutral)
            total = (total + value if reduce == "sum" else total * value if reduce == "product"
                     else numpy.maximum(total, value))
    return total


def log(value: Any) -> Any:
    """The natural logarithm, of a number or element-wise of an array (of Python ints too)."""
    import math

    if not getattr(value, "ndim", 0):
        return math.log(value)
    import numpy

    if value.dtype == object:
        return numpy.frompyfunc(math.log, 1, 1)(value)
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
