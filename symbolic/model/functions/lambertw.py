"""``LambertW(x)``: the principal branch W₀ of the Lambert W function, the w ≥ −1 with w·eʷ = x, for
x ≥ −1/e (it solves x = a·e^(b·x) and its kin in closed form); of a pure number. A scenario using it
must have its argument proven at least −1/e by the input domains: the generator refuses it otherwise."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_slower_than_any_power, pure_number
from symbolic.runtime.errors import DeclarationError


def lambert_w(value: Any) -> Any:
    """W₀(value), the w ≥ −1 with w·eʷ = value, to double precision: nan below −1/e and for nan, inf for
    inf; element-wise for arrays. Newton's method on w + ln w = ln x above e (no overflow for any double),
    Halley's on w·eʷ − x below, from a start near the answer (the series at the branch point near −1/e)."""
    import math

    if getattr(value, "ndim", 0):
        import numpy

        return numpy.frompyfunc(lambert_w, 1, 1)(value).astype(float)
    x = float(value)
    if x != x or x == math.inf:
        return x
    if x < -1 / math.e:
        return -1.0 if x > -1 / math.e - 1e-15 else math.nan  # the branch point, within its double's rounding
    if x == 0:
        return 0.0
    if x > math.e:
        w = math.log(x) - math.log(math.log(x))
        for _ in range(100):
            step = (w + math.log(w) - math.log(x)) / (1 + 1 / w)
            w -= step
            if abs(step) <= 4e-16 * w:
                break
        return w
    if x < -0.25:  # near the branch point: w = −1 + p − p²/3 + 11p³/72, p = √(2(e·x + 1))
        p = math.sqrt(max(2 * (math.e * x + 1), 0.0))
        w = -1 + p - p * p / 3 + 11 * p**3 / 72
    else:
        w = math.log1p(x) if x > 0 else x * (1 - x)
    for _ in range(100):
        e = math.exp(w)
        f = w * e - x
        if w == -1 or f == 0:
            break
        step = f / (e * (w + 1) - (w + 2) * f / (2 * w + 2))
        w -= step
        if abs(step) <= 4e-16 * (1 + abs(w)):
            break
    return w


LAMBERT_W_JAVASCRIPT = """
/** W0(x), the principal branch of the Lambert W function (as lambert_w in the Python evaluator). */
function lambert_w(x) {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x < -1 / Math.E) return x > -1 / Math.E - 1e-15 ? -1 : NaN;
  if (x === 0) return 0;
  let w;
  if (x > Math.E) {
    w = Math.log(x) - Math.log(Math.log(x));
    for (let i = 0; i < 100; i += 1) {
      const step = (w + Math.log(w) - Math.log(x)) / (1 + 1 / w);
      w -= step;
      if (Math.abs(step) <= 4e-16 * w) break;
    }
    return w;
  }
  if (x < -0.25) {
    const p = Math.sqrt(Math.max(2 * (Math.E * x + 1), 0));
    w = -1 + p - p * p / 3 + 11 * p ** 3 / 72;
  } else {
    w = x > 0 ? Math.log1p(x) : x * (1 - x);
  }
  for (let i = 0; i < 100; i += 1) {
    const e = Math.exp(w);
    const f = w * e - x;
    if (w === -1 || f === 0) break;
    const step = f / (e * (w + 1) - (w + 2) * f / (2 * w + 2));
    w -= step;
    if (Math.abs(step) <= 4e-16 * (1 + Math.abs(w))) break;
  }
  return w;
}
"""


def _principal(expr: Any) -> Any:
    if len(expr.args) > 1 and expr.args[1] != 0:
        raise DeclarationError(f"{expr}: only the principal branch of LambertW is declared (LambertW(x))")
    return expr.args[0]


def _domain(node: Any, proves: Any) -> str | None:
    """W₀ is real for x ≥ −1/e only: the input domains must prove it."""
    argument = _principal(node)
    if proves(argument + sympy.exp(-1)):  # argument + 1/e >= 0
        return None
    return (f"LambertW({argument}) is real only for an argument of at least −1/e, which the input domains do not "
            "prove: narrow a domain (nonnegative=True, a minimum) or add a Require(...) bounding its argument")


def _sign(node: Any, reduce: Any) -> Any:
    """W₀ has the sign of its argument (W₀(0) = 0, increasing)."""
    inner = reduce(_principal(node))
    if inner.is_positive:
        return sympy.Dummy("lambert_w", positive=True)
    if inner.is_nonnegative:
        return sympy.Dummy("lambert_w", nonnegative=True)
    return None


LAMBERT_W = declare(MathFunction(
    sympy.LambertW, "LambertW",
    python=lambda printer, expr: printer.call("lambert_w", _principal(expr)),
    javascript=lambda printer, expr: printer.call("lambert_w", _principal(expr)),
    dimension=pure_number("Lambert W"), sign=_sign, domain=_domain, growth=grows_slower_than_any_power,
    python_helpers=(lambert_w,), javascript_helpers={"lambert_w": LAMBERT_W_JAVASCRIPT},
    nonfinite=(((float("inf"),), "inf"), ((float("nan"),), "nan")),
))
