"""KernelFusionScenario: the reference entry by hand, both-zero overheads refused, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import KernelFusionScenario, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.kernel_fusion import KernelFusionScenario as Declared


def test_elementwise_pair_by_hand():
    """k = 2, d = 10 µs, ℓ = 5 µs: trips 2k = 4 against 2, launches 2 against 1, traffic 4/2 = 2;
    overhead 2 × (10 + 5) = 30 µs against 15 µs, speedup 2 (runs.md §11)."""
    s = Scenarios.ElementwisePairFusion
    assert (s.unfused_trips, s.fused_trips, s.unfused_launches, s.fused_launches) == (4, 2, 2, 1)
    assert s.traffic_ratio == 2.0 and s.overhead_speedup == 2.0
    assert s.unfused_overhead == Q_(30, "µs") and s.fused_overhead == Q_(15, "µs")
    assert s.unfused_overhead.units == Q_(1, "µs").units
    assert s.dispatch == Q_(10, "µs") and s.launch == Q_(5, "µs")


def test_other_units_and_lengths():
    s = Scenarios.ElementwisePairFusion.variant(chain_length=7, dispatch=Q_(0.01, "ms"))
    assert s.unfused_overhead.to("µs").magnitude == pytest.approx(7 * 15)
    assert s.overhead_speedup == pytest.approx(7) and s.traffic_ratio == pytest.approx(7)
    assert Scenarios.ElementwisePairFusion.variant(launch=0).fused_overhead == Q_(10, "µs")


def test_no_overhead_at_all_is_refused():
    with pytest.raises(ScenarioInputError, match="dispatch and launch must not both be zero"):
        Scenarios.ElementwisePairFusion.variant(dispatch=0, launch=0)
    with pytest.raises(ScenarioInputError, match="chain_length"):
        Scenarios.ElementwisePairFusion.variant(chain_length=0)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 10**6), d=st.floats(0, 1e4, allow_subnormal=False), ell=st.floats(1e-3, 1e4))
def test_evaluator_equals_exact_sympy(k, d, ell):
    s = KernelFusionScenario(chain_length=k, dispatch=d, launch=ell)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
    assert s.overhead_speedup == pytest.approx(k, rel=1e-12)


def test_the_page_declares_every_tightened_domain():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "generated/docs/scenarios/KernelFusionScenario.md").read_text()
    section = page.split("## Differs from the reference library", 1)[1].split("\n## ", 1)[0]
    for name in ("dispatch", "chain_length"):
        assert f"- `{name}`:" in section
