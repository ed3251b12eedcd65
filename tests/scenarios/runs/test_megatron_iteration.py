"""MegatronIterationScenario: memory per GPU and FLOPs by hand from Korthikanti et al. and Narayanan et al.,
the pieces of the iteration time by hand, and the evaluator against exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import MegatronIterationScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.megatron_iteration import MegatronIterationScenario as Declared

GIB = 2**30


def test_175b_memory_per_gpu_by_hand():
    """GPT-3 175B, t 8 x p 8, 3 chunks per GPU: 12 layers per GPU of 12·h² weights at 18 bytes over 8 GPUs;
    no recomputation keeps s·b·h·(10 + 24/t + 5·a·s/(h·t)) = 25,165,824 x 23 bytes per layer for
    p·(1 + (p - 1)/(p·v)) = 31/3 micro-batches in flight."""
    s = Scenarios.Megatron175BNoRecompute
    h, s_, a, t = 12288, 2048, 96, 8
    assert s.microbatches == 64 and s.layers_per_stage == 12
    assert s.params_optimizer_per_gpu.to("byte").magnitude == pytest.approx(12 * h * h * 12 / t * 18, rel=1e-12)
    assert s.params_optimizer_per_gpu.to("GiB").magnitude == pytest.approx(45.5625, rel=1e-12)
    per_layer = s_ * h * (10 + 24 / t + 5 * a * s_ / (h * t))
    assert per_layer == 25165824 * 23
    assert s.in_flight == pytest.approx(31 / 3, rel=1e-12)
    assert s.activations_per_gpu.to("byte").magnitude == pytest.approx(per_layer * 12 * 31 / 3, rel=1e-12)
    assert s.activations_per_gpu.to("GiB").magnitude == pytest.approx(66.84375, rel=1e-12)


def test_seq_sel_and_full_keep_less():
    """Sequence parallelism with selective recomputation keeps 34·s·b·h/t per layer; full keeps the input."""
    sel = Scenarios.Megatron530BSeqSelective
    assert sel.stored_per_layer.to("byte").magnitude == pytest.approx(2048 * 20480 * 34 / 8, rel=1e-12)
    assert sel.activations_per_gpu.to("GiB").magnitude == pytest.approx(23.076171875, rel=1e-12)
    full = Scenarios.Megatron530BFullRecompute
    assert full.stored_per_layer.to("byte").magnitude == pytest.approx(2 * 2048 * 20480, rel=1e-12)
    one_t = Scenarios.Megatron1TNoRecompute  # no interleaving: p micro-batches in flight
    assert one_t.in_flight == 64
    assert one_t.activations_per_gpu.to("GiB").magnitude == pytest.approx(131.25, rel=1e-12)


def test_no_recomputation_does_not_fit_an_80_gib_gpu():
    """22B without recomputation: 45.5625 + 59.25 GiB = 1.31 x 80 GiB, as Korthikanti et al.'s Figure 1 shows;
    its iteration time does not exist. Selective recomputation with sequence parallelism fits."""
    from symbolic.runtime.errors import InfeasibleError

    s = Scenarios.Megatron22BNoRecompute
    assert not s.fits and s.fits_need.to("GiB").magnitude == pytest.approx(45.5625 + 59.25, rel=1e-12)
    assert s.fits_need.to("GiB").magnitude / 80 == pytest.approx(1.3101, abs=1e-4)
    with pytest.raises(InfeasibleError, match="must fit in its memory"):
        _ = s.iteration_time
    assert Scenarios.Megatron22BSeqSelective.fits and Scenarios.Megatron1TFullRecompute.fits


def test_flops_match_narayanans_count():
    """Narayanan et al.: full recomputation costs 96·B·s·l·h²·(1 + s/(6h)) FLOPs in the layers per iteration;
    without recomputation the layers cost 3/4 of that, and the output layer 6·B·s·h·V, as in their full count
    (their 72·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) scales the output layer by 3/4 too, which it never recomputes)."""
    s = Scenarios.Megatron175BFullRecompute
    B, s_, L, h, V, t = 64, 2048, 96, 12288, 51200, 8
    layers = s.microbatches * s.layers_per_stage * 8 * s.layer_training_flops.to("flop").magnitude * t
    assert layers == pytest.approx(96 * B * s_ * L * h * h * (1 + s_ / (6 * h)), rel=1e-12)
    assert s.model_flops.to("flop").magnitude == pytest.approx(
        72 * B * s_ * L * h * h * (1 + s_ / (6 * h)) + 96 * B * s_ * L * h * h * V / (16 * L * h), rel=1e-12)
    selective = Scenarios.Megatron175BSeqSelective
    assert selective.recompute_flops.to("flop").magnitude == pytest.approx(4 * 1 * s_**2 * h / t, rel=1e-12)


def test_iteration_time_pieces_by_hand():
    """22B on one DGX A100, full recomputation: the pieces of one layer and micro-batch, by hand."""
    s = Scenarios.Megatron22BFullRecompute
    b, s_, h, a, t = 4, 2048, 6144, 64, 8
    rate = 312e12 * 0.80 * (b * s_) / (b * s_ + 161)
    flops = 4 * (24 * b * s_ * h * h + 4 * b * s_ * s_ * h) / t  # forward x 3 + recomputed forward
    assert s.layer_compute_time.to("s").magnitude == pytest.approx(flops / rate, rel=1e-12)
    ring = 2 * 7 / 8 * b * s_ * h * 2  # bytes per all-reduce per GPU
    assert s.collectives_per_layer == 6
    assert s.layer_tp_time.to("s").magnitude == pytest.approx(6 * ring / (300e9 * 0.70), rel=1e-12)
    stored = s_ * b * h * (10 + 24 / t) + 5 * a * s_ * s_ * b / t
    phi = Scenarios.Megatron22BFullRecompute.activation_traffic
    assert s.layer_traffic_time.to("s").magnitude == pytest.approx(phi * stored / (2039e9 * 0.85), rel=1e-12)
    assert s.layer_launch_time.to("s").magnitude == pytest.approx(12 * 5e-6 * 4, rel=1e-12)
    assert s.p2p_time.magnitude == 0 and s.bubble == 0 and s.dp_time.magnitude == 0
    head = 6 * b * s_ * h * 51200 / t / rate
    layer = sum(x.to("s").magnitude for x in (s.layer_compute_time, s.layer_traffic_time, s.layer_tp_time,
                                              s.layer_launch_time))
    optimizer = 48 * 12 * h * h / t * 30 / (2039e9 * 0.85)
    assert s.iteration_time.to("s").magnitude == pytest.approx(48 * layer + head + optimizer, rel=1e-12)


def test_pipeline_bubble_and_p2p():
    """530B: 35 stages, 3 chunks, 280 micro-batches: bubble 34/(3·280); boundary activations b·s·h·2/t bytes
    twice per chunk over 25 GB/s at 0.85."""
    s = Scenarios.Megatron530BSeqSelective
    assert s.bubble == pytest.approx(34 / (3 * 280), rel=1e-12)
    assert s.p2p_time.to("s").magnitude == pytest.approx(2 * 3 * 2048 * 20480 * 2 / 8 / (25e9 * 0.85), rel=1e-12)
    assert s.collectives_per_layer == 5  # sequence parallelism: the backward pass all-gathers once more
    more = s.variant(dp=2, global_batch=560)
    grads = 3 * 12 * 20480**2 / 8 * 2
    assert more.dp_time.to("s").magnitude == pytest.approx(2 * 1 / 2 * grads / (25e9 * 0.85), rel=1e-12)


def test_bad_layouts_are_refused():
    for name, bad in (("tp", 0), ("sequence_parallel", 2), ("matmul_efficiency", 1.5), ("gated_mlp", -1)):
        with pytest.raises(ScenarioInputError, match=name):
            Scenarios.Megatron22BFullRecompute.variant(**{name: bad})
    with pytest.raises(ScenarioInputError, match="recompute"):
        Scenarios.Megatron22BFullRecompute.variant(recompute="some")


@settings(max_examples=25, deadline=None)
@given(tp=st.sampled_from([1, 2, 8]), pp=st.sampled_from([1, 4]), mode=st.sampled_from(["none", "selective", "full"]),
       sp=st.integers(0, 1), b=st.integers(1, 4), v=st.sampled_from([1, 2]))
def test_evaluator_equals_exact_sympy(tp, pp, mode, sp, b, v):
    s = Scenarios.Megatron175BSeqSelective.variant(tp=tp, pp=pp, recompute=mode, sequence_parallel=sp,
                                                   micro_batch=b, global_batch=64 * b, interleave=v if pp > 1 else 1)
    assert isinstance(s, MegatronIterationScenario)
    got = flatten(s.evaluate())
    exact = {name: value for name, value in exact_outputs(Declared.model, s._args).items()
             if not name.startswith("pipeline.")}  # the contained pipeline schedule is a hidden step
    assert set(got) == set(exact)
    absent = {name for name, value in got.items() if value is None}  # a layout that does not fit has no time
    assert not absent or (not got["fits"] and "iteration_time" in absent)
    assert_matches_exact({k: v for k, v in got.items() if k not in absent},
                         {k: v for k, v in exact.items() if k not in absent}, rel=1e-9)
