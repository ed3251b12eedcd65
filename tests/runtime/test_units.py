"""The project's units file: separate data and compute dimensions, vendor spellings, prefixes."""

from __future__ import annotations

import pint
import pytest
import sympy

from generated import Q_
from symbolic.runtime.errors import ScenarioInputError
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


# The registry against what it must read: every quantity the catalog stores, the unit spellings of the
# reference specs (/work/shared/reference/*.md: "30 Hz", "35.0 pJ/bit", "1287 MWh", "552 t", ...), and
# pint's default definitions of the units both registries name (same size, to the last digit).
SPEC_SPELLINGS = ("30 Hz", "0 Hz", "35.0 pJ/bit", "1287 MWh", "552 t", "4.0 dollar/h", "400 Gbps", "1.5 µs",
                  "14.8 d", "3.35 TB/s", "0.1 mJ", "120 kW", "13.5 TiB", "100 Bparam", "10 Tparam", "0.02 USD/GB",
                  "160.0 pJ/B", "2.3 pJ/flop", "16.0 B/param", "1 /s", "25 h", "50 MiB", "192 KiB")
PINT_SHARED = ("Hz", "kHz", "MHz", "GHz", "second", "ms", "µs", "ns", "minute", "hour", "day", "J", "mJ", "W", "kW",
               "Wh", "kWh", "MWh", "gram", "kg", "t", "percent")


def _catalog_quantities():
    import re
    from pathlib import Path

    for path in sorted(Path(__file__).parents[2].glob("symbolic/catalog/*.toml")):
        for text in re.findall(r'"(-?[0-9][0-9.e+-]* [^"]+)"', path.read_text()):
            yield path.name, text


def test_every_catalog_quantity_and_spec_spelling_reads():
    read = [(where, text) for where, text in _catalog_quantities()]
    assert len(read) > 500
    for where, text in [*read, *(("spec", text) for text in SPEC_SPELLINGS)]:
        assert Q_(text).magnitude == Q_(text).magnitude, (where, text)  # parses (and is not NaN)


def test_hertz_is_a_rate_per_second():
    assert Q_(30, "Hz").to("1/s").magnitude == 30
    assert Q_("1.98 GHz").to("1/s").magnitude == pytest.approx(1.98e9, rel=1e-15)
    assert (Q_(30, "Hz") * Q_(2, "s")).to("").magnitude == 60  # 30 frames a second for 2 s: 60 frames


@pytest.mark.parametrize("name", PINT_SHARED)
def test_units_shared_with_pint_have_pints_size(name):
    theirs = pint.UnitRegistry().Quantity(1, name)
    si = {"[time]": "second", "[mass]": "kilogram", "[mass] * [length] ** 2 / [time] ** 2": "joule",
          "[mass] * [length] ** 2 / [time] ** 3": "watt", "1 / [time]": "1 / second", "dimensionless": ""}
    unit = si[str(theirs.dimensionality)]
    assert Q_(1, name).to(unit).magnitude == pytest.approx(theirs.to(unit).magnitude, rel=1e-15)


@pytest.mark.parametrize(("text", "value", "unit"), [
    ("1000/s", 1000, "1/s"), ("1000 /s", 1000, "1/s"), ("1000 1/s", 1000, "1/s"), ("2.5e3 1/h", 2500.0, "1/h"),
    ("3.35 TB/s", 3.35, "TB/s"),
])
def test_a_rate_reads_as_its_unit_is_written(text, value, unit):
    """Inputs declared per second (CompileBreakeven's rates) are written as the unit is: `1000/s`, `1000 1/s`."""
    from symbolic.runtime.units import parse_quantity

    read = parse_quantity(text)
    assert read.magnitude == value and read.units == Q_(1, unit).units


@pytest.mark.parametrize("text", ["2 1s", "3 //s", "4,8", "32 64", "1000/"])
def test_what_is_not_one_number_and_a_unit_is_refused(text):
    from symbolic.runtime.units import parse_quantity

    with pytest.raises(ScenarioInputError, match="cannot read"):
        parse_quantity(text, "rate")
