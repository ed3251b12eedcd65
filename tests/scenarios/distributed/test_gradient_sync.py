"""GradientSyncScenario: both registry entries by hand, precisions, DLRM's stored size, edges, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import GradientSyncScenario, Models, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.distributed.gradient_sync import GradientSyncScenario as Declared

HDR, ETH = 200e9 / 8, 100e9 / 8  # InfiniBand HDR and 100 GbE in B/s
SYNC = 2 * 175e9 * 2  # 2 × GPT-3 parameters × 2 byte


@pytest.mark.parametrize(("entry", "compute", "steps", "fractions"), [
    ("Gpt3GradientSync", 1.2, (29.2, 57.2), (0.0410958904109589, 0.020979020979020976)),
    ("Gpt3GradientSyncFasterAccelerator", 0.6, (28.6, 56.6), (0.020979020979020976, 0.010600706713780918)),
])
def test_registry_entries_by_hand(entry, compute, steps, fractions):
    """distributed.md §4: B = 2 · 3.5e11 = 7e11 B; 7e11/2.5e10 = 28 s over HDR, 7e11/1.25e10 = 56 s over 100 GbE;
    t = 1.2 s / σ; fraction t/(t + B/β); energy 8 · 7e11 bit · 35 pJ = 196 J per step, × 1e6 steps."""
    r = getattr(Scenarios, entry).result
    assert r.sync_bytes.to("byte").magnitude == pytest.approx(SYNC, rel=1e-12)
    assert r.compute_time.to("s").magnitude == pytest.approx(compute, rel=1e-12)
    assert r.transfer_times["InfiniBand"].to("s").magnitude == pytest.approx(SYNC / HDR, rel=1e-12)
    assert r.transfer_times["Ethernet"].to("s").magnitude == pytest.approx(SYNC / ETH, rel=1e-12)
    for link, step, fraction, bandwidth in zip(("InfiniBand", "Ethernet"), steps, fractions, (HDR, ETH), strict=True):
        assert r.step_times[link].to("s").magnitude == pytest.approx(step, rel=1e-9)
        assert r.step_times[link].to("s").magnitude == pytest.approx(compute + SYNC / bandwidth, rel=1e-12)
        assert r.compute_fractions[link] == pytest.approx(fraction, rel=1e-9)
        assert r.compute_fractions[link] == pytest.approx(compute / (compute + SYNC / bandwidth), rel=1e-12)
    assert r.energy_per_step.to("J").magnitude == pytest.approx(196.0, rel=1e-9)
    assert r.energy_per_step.to("J").magnitude == pytest.approx(8 * SYNC * 35e-12, rel=1e-12)
    assert r.energy_total.to("J").magnitude == pytest.approx(1.96e8, rel=1e-9)
    assert list(r.step_times) == ["InfiniBand", "Ethernet"]


def test_precision_sets_the_gradient_width():
    s = Scenarios.Gpt3GradientSync
    assert s.variant(precision="FP32").result.sync_bytes.to("byte").magnitude == pytest.approx(2 * 175e9 * 4)
    assert s.variant(precision="int4").result.sync_bytes.to("byte").magnitude == pytest.approx(2 * 175e9 * 0.5)
    with pytest.raises(ScenarioInputError, match="'precision' is 'fp16_dense'"):
        s.variant(precision="fp16_dense")


def test_a_workload_without_parameters_is_refused_off_16_bit():
    """DLRM stores only model_size (100 GB, at 16 bits): another gradient width cannot be applied to it (declared
    difference); at fp16 it is AllReduced at that size (tests/physics/test_stated_size.py)."""
    with pytest.raises(ScenarioInputError, match="precision must be fp16 or bf16"):
        Scenarios.Gpt3GradientSync.variant(workload=Models.Recommendation.DLRM, precision="fp32")


def test_edges():
    s = Scenarios.Gpt3GradientSync
    idle = s.variant(compute_time=0)
    assert idle.result.compute_fractions == {"InfiniBand": 0.0, "Ethernet": 0.0}
    assert s.variant(steps=0).result.energy_total.magnitude == 0
    assert s.variant(energy_per_bit=Q_(35, "pJ/byte")).result.energy_per_step.to("J").magnitude == pytest.approx(24.5)
    none = s.variant(links={})
    assert none.result.step_times == {} and none.result.energy_per_step.to("J").magnitude == pytest.approx(196.0)
    # Not given, the energy per bit is 0: nothing counted (the reference returns 0 J)
    plain = GradientSyncScenario(workload=Models.Language.GPT3, links={"x": 1}, compute_time=1)
    assert plain.energy_per_bit.magnitude == 0 and plain.result.energy_total.magnitude == 0


@pytest.mark.parametrize(("changes", "match"), [
    ({"compute_speedup": 0}, "'compute_speedup' got 0"),
    ({"links": {"InfiniBand": 0}}, r"'links' entry \['InfiniBand'\] got 0"),
    ({"compute_time": Q_(-1, "s")}, "'compute_time' got -1"),
    ({"energy_per_bit": Q_(-1, "pJ/bit")}, "'energy_per_bit' got -1"),
    ({"energy_per_bit": Q_(1, "J")}, "'energy_per_bit'"),
    ({"steps": -1}, "'steps' got -1"),
])
def test_domains(changes, match):
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.Gpt3GradientSync.variant(**changes)


@settings(max_examples=40, deadline=None)
@given(bandwidths=st.lists(st.floats(1e-3, 1e4), max_size=3), compute=st.just(0.0) | st.floats(1e-6, 1e4),
       energy=st.floats(0, 1e3, allow_subnormal=False), steps=st.integers(0, 10**7), speedup=st.floats(1e-3, 1e3),
       precision=st.sampled_from(["fp32", "bf16", "int4"]))
def test_evaluator_equals_exact_sympy(bandwidths, compute, energy, steps, speedup, precision):
    links = {f"link{n}": b for n, b in enumerate(bandwidths)}
    s = GradientSyncScenario(workload=Models.Language.GPT2, precision=precision, links=links, compute_time=compute,
                             energy_per_bit=energy, steps=steps, compute_speedup=speedup)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-11)
