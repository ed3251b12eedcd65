"""IronLawScenario: both reference entries by hand, stated against derived terms, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import IronLawScenario, MissingInputError, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.iron_law import IronLawScenario as Declared


def _ms(quantity):
    return quantity.to("ms").magnitude


def test_memory_bound_example_by_hand():
    """V = 2 GB at 100 GB/s: 20 ms; W = 1 GFLOP at 100 GFLOP/s: 10 ms; o = 5 ms; s_m = 2 (runs.md §8).
    S = 35, overlapped 20 + 5 = 25; after: 10 + 10 + 5 = 25, overlapped 15, naive 35/2 = 17.5; 1 − 25/35."""
    s = Scenarios.IronLawMemoryBoundExample
    assert _ms(s.memory_time) == pytest.approx(20.0) and _ms(s.compute_time) == pytest.approx(10.0)
    assert s.upgraded_bandwidth.to("GB/s").magnitude == pytest.approx(200.0)
    r = s.result
    expected = {"memory_time": 20, "compute_time": 10, "overhead": 5, "sequential_time": 35, "overlapped_time": 25,
                "upgraded_memory_time": 10, "upgraded_compute_time": 10, "upgraded_sequential_time": 25,
                "upgraded_overlapped_time": 15, "naive_upgraded_time": 17.5}
    for name, value in expected.items():
        assert _ms(getattr(r, name)) == pytest.approx(value, rel=1e-12), name
    assert r.sequential_reduction == pytest.approx(0.2857142857142857, rel=1e-12)


def test_compute_heavy_example_by_hand():
    """Stated 2 s and 8 s, o = 1 s, s_c = 2: S = 11 s, overlapped 9 s; after 2 + 4 + 1 = 7 s, overlapped 5 s,
    naive 5.5 s, reduction 1 − 7/11 = 0.36363636363636365; no bandwidth, so no upgraded_bandwidth."""
    s = Scenarios.IronLawComputeHeavyExample
    r = s.result
    expected = {"memory_time": 2, "compute_time": 8, "overhead": 1, "sequential_time": 11, "overlapped_time": 9,
                "upgraded_memory_time": 2, "upgraded_compute_time": 4, "upgraded_sequential_time": 7,
                "upgraded_overlapped_time": 5, "naive_upgraded_time": 5.5}
    for name, value in expected.items():
        assert getattr(r, name).to("s").magnitude == pytest.approx(value, rel=1e-12), name
    assert r.sequential_reduction == pytest.approx(0.36363636363636365, rel=1e-12)
    with pytest.raises(MissingInputError, match="'upgraded_bandwidth' needs input 'bandwidth'"):
        _ = s.upgraded_bandwidth


def test_a_stated_term_wins_and_a_missing_one_is_named():
    base = Scenarios.IronLawMemoryBoundExample
    assert _ms(base.variant(memory_time_stated=Q_(0.5, "s")).memory_time) == pytest.approx(500)
    no_memory = base.variant(data_volume=None)
    assert _ms(no_memory.compute_time) == pytest.approx(10)
    with pytest.raises(MissingInputError, match=r"needs input 'memory_time_stated' \(or 'bandwidth' and 'data_volume'\)"):
        _ = no_memory.result.sequential_time
    for name, bad in (("memory_speedup", 0), ("bandwidth", 0), ("data_volume", 0), ("overhead", -1)):
        with pytest.raises(ScenarioInputError, match=name):
            base.variant(**{name: bad})


@settings(max_examples=60, deadline=None)
@given(o=st.floats(0, 1e4, allow_subnormal=False), v=st.floats(1e-6, 1e4), bw=st.floats(1e-3, 1e4), m=st.none() | st.floats(1e-6, 1e6),
       w=st.floats(1e-6, 1e6), rate=st.floats(1e-3, 1e6), sm=st.floats(1e-3, 1e3), sc=st.floats(1e-3, 1e3))
def test_evaluator_equals_exact_sympy(o, v, bw, m, w, rate, sm, sc):
    s = IronLawScenario(overhead=o, data_volume=v, bandwidth=bw, memory_time_stated=m, operations=w,
                        effective_rate=rate, memory_speedup=sm, compute_speedup=sc)
    # the reduction is 1 - t_new/t_old: within a few ulp of 1 of an exact 0 when nothing speeds up
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9,
                         absolute={"result.sequential_reduction": 1e-12})


def test_cli_shows_a_missing_optional_output_as_such(capsys):
    from symbolic.cli import main

    assert main(["show", "IronLawComputeHeavyExample"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("upgraded_bandwidth"))
    assert "needs an input not given" in line and "None" not in line


def test_the_page_declares_every_tightened_domain():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "generated/docs/scenarios/IronLawScenario.md").read_text()
    section = page.split("## Differs from the reference library", 1)[1].split("\n## ", 1)[0]
    for name in ("memory_time_stated", "compute_time_stated", "data_volume", "operations", "bandwidth"):
        assert f"- `{name}`:" in section
