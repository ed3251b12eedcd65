"""Min, max and log for the generated evaluators: plain numbers, or numpy arrays element-wise.

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


def step(value: Any) -> Any:
    """Heaviside step (1/2 at 0, as sympy's): the derivative of Min/Max picks the active branch."""
    try:
        return 1.0 if value > 0 else (0.5 if value == 0 else 0.0)
    except ValueError:
        import numpy

        return numpy.heaviside(value, 0.5)


def log(value: Any) -> Any:
    """Natural logarithm (in derivatives of powers with an input in the exponent, m^-α)."""
    import math

    try:
        return math.log(value)
    except TypeError:
        import numpy

        return numpy.log(value)
