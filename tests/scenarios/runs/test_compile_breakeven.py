"""CompileBreakevenScenario: the reference entry by hand, the optional experiment, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import CompileBreakevenScenario, MissingInputError, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.compile_breakeven import CompileBreakevenScenario as Declared


def test_resnet50_by_hand():
    """e = 1450/s, c = 2150/s, t_c = 30 s, x = 10000, k = 10 (runs.md §12):
    1/e = 0.68966 ms, 1/c = 0.46512 ms, saving 700/(1450·2150) s; break-even 30·1450·2150/700 = 133607.14;
    experiment 10000/1450 = 6.8966 s eager, 10·30 + 10000/2150 = 304.65 s compiled."""
    s = Scenarios.ResNet50CompileBreakeven
    e, c, t_c, x, k = 1450, 2150, 30, 10000, 10
    assert s.eager_item_time.to("ms").magnitude == pytest.approx(1000 / e, rel=1e-12)
    assert s.compiled_item_time.to("ms").magnitude == pytest.approx(1000 / c, rel=1e-12)
    assert s.saving_per_item.to("ms").magnitude == pytest.approx(0.22453889334402555, rel=1e-9)
    assert s.breakeven_items == pytest.approx(t_c * e * c / (c - e), rel=1e-12)
    assert s.breakeven_items == pytest.approx(133607.14285714293, rel=1e-9)
    assert s.speedup == pytest.approx(1.4827586206896552, rel=1e-12)
    assert s.experiment_eager.to("s").magnitude == pytest.approx(6.896551724137931, rel=1e-12)
    assert s.experiment_compiled_running.to("s").magnitude == pytest.approx(x / c, rel=1e-12)
    assert s.experiment_compiled_total.to("s").magnitude == pytest.approx(k * t_c + x / c, rel=1e-12)
    assert s.experiment_compiled_total.to("s").magnitude == pytest.approx(304.6511627906977, rel=1e-12)
    assert s.experiment_slowdown == pytest.approx(44.174418604651166, rel=1e-12)
    assert s.eager_item_time.units == Q_(1, "ms").units and s.experiment_eager.units == Q_(1, "s").units


def test_rates_in_other_units_and_the_optional_experiment():
    base = Scenarios.ResNet50CompileBreakeven
    per_minute = base.variant(eager_rate=Q_(1450 * 60, "1/minute"), compile_time=Q_(0.5, "minute"))
    assert per_minute.breakeven_items == pytest.approx(base.breakeven_items, rel=1e-12)
    no_recompiles = base.variant(recompiles=None)
    assert no_recompiles.experiment_eager.to("s").magnitude == pytest.approx(10000 / 1450)
    with pytest.raises(MissingInputError, match="'experiment_slowdown' needs input 'recompiles'"):
        _ = no_recompiles.experiment_slowdown
    with pytest.raises(MissingInputError, match="'experiment_eager' needs input 'experiment_items'"):
        _ = base.variant(experiment_items=None, recompiles=None).experiment_eager
    # recompiles without an experiment is read by no output: refused, naming both (issue 24)
    with pytest.raises(ScenarioInputError, match="'recompiles' must be given with 'experiment_items'"):
        base.variant(experiment_items=None)
    assert base.variant(recompiles=0).experiment_slowdown == pytest.approx(1450 / 2150, rel=1e-12)


def test_a_compile_that_never_pays_has_no_breakeven():
    """The reference returns −96666.67 for 1450 against 1000 per second and divides by zero when equal; here
    every other output is there and `breakeven_items` says why it is not (tests/physics/test_fits_undefined.py)."""
    base = Scenarios.ResNet50CompileBreakeven
    for slower in (1000, 1450):
        s = base.variant(compiled_rate=slower)
        assert s.compile_pays_off is False
        with pytest.raises(ScenarioInputError, match="compiled path faster than eager"):
            _ = s.breakeven_items
    with pytest.raises(ScenarioInputError, match="experiment_items"):
        base.variant(experiment_items=0)


@settings(max_examples=60, deadline=None)
@given(e=st.floats(1e-3, 1e6), gain=st.floats(1e-6, 1e3), t_c=st.floats(0, 1e4, allow_subnormal=False),
       x=st.none() | st.integers(1, 10**9), k=st.none() | st.integers(0, 100))
def test_evaluator_equals_exact_sympy(e, gain, t_c, x, k):
    s = CompileBreakevenScenario(eager_rate=e, compiled_rate=e * (1 + gain), compile_time=t_c,
                                 experiment_items=x, recompiles=None if x is None else k)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)
