"""The project's units file: separate data and compute dimensions, vendor spellings, prefixes."""

from __future__ import annotations

import pint
import pytest
import sympy

from generated import Q_
from symbolic.runtime.units import registry


@pytest.mark.parametrize(
    "text, unit, value",
    [
        ("67 TFLOP/s", "flop/s", 67e12),
        ("67 TFLOPs/s", "flop/s", 67e12),
        ("1979 TOPS", "flop/s", 1979e12),
        ("168.0 MFLOPs/s", "flop/s", 168e6),
        ("3.35 TB/s", "byte/s", 3.35e12),
        ("672 MB/s", "byte/s", 672e6),
        ("1 MB", "byte", 1e6),
        ("1 KB", "byte", 1e3),
        ("1 GiB", "byte", 2**30),
        ("192 KiB", "byte", 192 * 1024),
        ("13.5 TiB", "byte", 13.5 * 2**40),
        ("10 µs", "second", 10e-6),
        ("10 us", "second", 10e-6),
        ("10 μs", "second", 10e-6),  # Greek mu as well as the micro sign
        ("1 ms", "second", 1e-3),
        ("160 pJ/byte", "joule/byte", 160e-12),
        ("2.3 pJ/flop", "joule/flop", 2.3e-12),
        ("8 bit", "byte", 1),
        ("1e7 param", "count", 1e7),
    ],
)
def test_spellings(text, unit, value):
    assert Q_(text).to(unit).magnitude == pytest.approx(value, rel=1e-15)


def test_byte_and_flop_are_separate_dimensions():
    with pytest.raises(pint.DimensionalityError):
        Q_(1, "byte") + Q_(1, "flop")
    assert Q_(1, "byte").dimensionality != Q_(1, "flop").dimensionality
    assert not Q_(1, "byte").dimensionless  # a bare number is never silently bits


def test_counts_are_dimensionless():
    assert (Q_(10, "param") * Q_(4, "byte")).to("byte").magnitude == 40
    assert Q_(3, "count").dimensionless


def test_rates_share_one_dimension_and_intensity_is_flop_per_byte():
    assert Q_(1, "TOPS").dimensionality == Q_(1, "TFLOP/s").dimensionality
    assert (Q_(67, "TFLOP/s") / Q_(3.35, "TB/s")).to("flop/byte").magnitude == pytest.approx(20.0)


def test_names():
    ureg = registry()
    for name in ("second", "byte", "flop", "joule"):
        assert ureg.Unit(name) == ureg.Unit(name)  # defined under that name
    assert ureg is registry()  # one shared registry


def test_fast_output_quantities_behave_like_pints_own():
    from symbolic.runtime.units import quantity

    for value, unit in ((6422528, "flop"), (0.5, "µs"), (67.0, "TFLOP/s"), (40.0, "MB")):
        fast, slow = quantity(value, unit), Q_(value, unit)
        assert type(fast) is type(slow) and fast == slow and repr(fast) == repr(slow)
        assert f"{fast:~P}" == f"{slow:~P}" and fast.to_base_units() == slow.to_base_units()
        assert (fast + slow).magnitude == 2 * value and type(fast.magnitude) is type(value)
        assert fast.dimensionality == slow.dimensionality


@pytest.mark.parametrize("unit, scale", [
    ("dollar/h", sympy.Rational(1, 3600)),  # was the double nearest 1/3600: an hour did not cancel it
    ("USD/h", sympy.Rational(1, 3600)),
    ("h", 3600),
    ("µs", sympy.Rational(1, 10**6)),
    ("GiB", 2**30),
    ("TFLOP/s", 10**12),
    ("kWh", 3_600_000_000),  # in g·m²/s²: the registry's base mass unit is the gram
    ("GB/s", 10**9),
    ("J/byte", 1000),
])
def test_unit_scales_are_exact(unit, scale):
    from symbolic.analysis.dimensions import scale_of_unit

    assert scale_of_unit(unit) == scale


def test_scales_of_a_unit_and_its_inverse_cancel_exactly():
    from symbolic.analysis.dimensions import scale_of_unit

    for unit in ("h", "min", "day", "µs", "ms", "GiB", "MB", "TFLOP"):
        assert scale_of_unit(f"dollar/{unit}") * scale_of_unit(unit) == scale_of_unit("dollar"), unit
