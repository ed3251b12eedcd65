"""TrainingStateFitScenario: all 15 registry entries by hand, adapters, optional inputs, differences, exact sympy."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (
    Hardware,
    InfeasibleError,
    MissingInputError,
    Models,
    Q_,
    ScenarioInputError,
    Scenarios,
    TrainingStateFitScenario,
    TransformerWorkload,
)
from symbolic.analysis.solving import solve
from symbolic.scenarios.training_memory.training_state_fit import TrainingStateFitScenario as Declared

CAPACITY, BANDWIDTH = 80 * 2**30, 3.35e12  # H100: 80 GiB (true bytes), 3.35 TB/s
GPT2 = dict(P=1.5e9, L=48, h=1600, a=25, s=1024)  # catalog: GPT-2 XL


def korthikanti(L, h, a, s, b, width, scores=True):
    """Saved activations of all layers: L·(34·s·b·h + 5·a·s²·b)·width/2 bytes (scores=False: selective)."""
    return L * (34 * s * b * h + (5 * a * s * s * b if scores else 0)) * width / 2


def by_hand(P, v, q, m=None, A=None, B=None, adapters=None, capacity=CAPACITY, bandwidth=BANDWIDTH):
    """The reference's formulas in plain arithmetic (bytes): training_memory.md §5."""
    W = G = P * v
    opt, M = P * q, P * (m or 0)
    trained = 2 * v + (m or 0) + q
    full = W + G + opt + M
    total = full if adapters is None else W + adapters * trained
    out = {"weights": W, "optimizer_state": opt, "master_weights": M, "full_state": full, "total": total,
           "copies": total / W, "checkpoint": W + M + opt, "update_bytes_per_parameter": v + 2 * (m or v) + 2 * q}
    out["update_traffic_GB"] = out["update_bytes_per_parameter"] * P / 1e9
    if capacity is not None:
        out["fits"] = total <= capacity
        out["capacity_share"] = total / capacity
        out["update_time_ms"] = out["update_bytes_per_parameter"] * P / bandwidth * 1e3
    else:
        out["fits"] = False
    if A is not None:
        out["training_total"] = total + A
        if capacity is not None:
            out["resident_batch_limit"] = (capacity - total) / (A / B)
            out["max_resident_batch"] = int((capacity - total) // (A / B))
    return out


gpt2_fp32_none = korthikanti(GPT2["L"], GPT2["h"], GPT2["a"], GPT2["s"], 32, 4)
gpt2_none = korthikanti(GPT2["L"], GPT2["h"], GPT2["a"], GPT2["s"], 32, 2)
gpt2_selective = korthikanti(GPT2["L"], GPT2["h"], GPT2["a"], GPT2["s"], 32, 2, scores=False)
gpt2_selective16 = korthikanti(GPT2["L"], GPT2["h"], GPT2["a"], GPT2["s"], 16, 2, scores=False)
# 8 segments of 6 layers: 8 kept b·s·h inputs at 2 bytes, plus one live segment's selective activations
gpt2_segments = 8 * 32 * 1024 * 1600 * 2 + gpt2_selective / 48 * 6
llama3_selective = korthikanti(32, 4096, 32, 2048, 4, 2, scores=False)
lora = 32 * (16 * (4096 + 4096) + 16 * (4096 + 8 * (4096 // 32)))  # query d×d and value d×(kv·d/h), rank 16
resnet = 25_557_032

# entry: (hand calculation, spec values: total, copies, fits, max_resident_batch, checkpoint, update_time ms)
ENTRIES = {
    "Gpt2Fp32AdamOnH100": (by_hand(1.5e9, 4, 8), (2.4e10, 4.0, True, None, 1.8e10, 12.53731343283582)),
    "Gpt2Fp32AdamBatch32OnH100": (by_hand(1.5e9, 4, 8, A=gpt2_fp32_none, B=32),
                                  (2.4e10, 4.0, True, 3, 1.8e10, 12.53731343283582)),
    "Gpt2MixedPrecisionAdamOnH100": (by_hand(1.5e9, 2, 8, 4, A=gpt2_none, B=32),
                                     (2.4e10, 8.0, True, 6, 2.1e10, 11.641791044776118)),
    "Gpt2MixedPrecisionFlashAttentionOnH100": (by_hand(1.5e9, 2, 8, 4, A=gpt2_selective, B=32),
                                               (2.4e10, 8.0, True, 23, 2.1e10, 11.641791044776118)),
    "Gpt2MixedPrecisionTwoMicroBatchesOnH100": (by_hand(1.5e9, 2, 8, 4, A=gpt2_selective16, B=16),
                                                (2.4e10, 8.0, True, 23, 2.1e10, 11.641791044776118)),
    "Gpt2MixedPrecisionSegmentCheckpointedOnH100": (by_hand(1.5e9, 2, 8, 4, A=gpt2_segments, B=32),
                                                    (2.4e10, 8.0, True, 171, 2.1e10, 11.641791044776118)),
    "Llama2_7BMixedPrecisionAdam": (by_hand(7e9, 2, 8, 4), (1.12e11, 8.0, False, None, 9.8e10, 54.32835820895522)),
    "Llama3_8BFullFineTuneOnH100": (by_hand(8.03e9, 2, 8, 4, A=llama3_selective, B=4),
                                    (1.2848e11, 8.0, False, -5, 1.1242e11, 62.32238805970149)),
    "Llama3_8BLoraOnH100": (by_hand(8.03e9, 2, 8, 4, A=llama3_selective, B=4, adapters=lora),
                            (16_169_051_904, 1.0067902804483189, True, 7, 1.1242e11, 62.32238805970149)),
    "Rank16AdaptersOnHypothetical8B": (by_hand(8e9, 2, 8, 4, adapters=32 * 2 * 16 * 8192, capacity=None),
                                       (16_134_217_728, 1.008388608, False, None, 1.12e11, None)),
    "Rank32AdaptersOnHypothetical8B": (by_hand(8e9, 2, 8, 4, adapters=32 * 2 * 32 * 8192, capacity=None),
                                       (16_268_435_456, 1.016777216, False, None, 1.12e11, None)),
    "ResNet50Fp32SgdMomentum": (by_hand(resnet, 4, 4, capacity=None), (306_684_384, 3.0, False, None, 204_456_256, None)),
    "ResNet50Fp32AdamBatch64": (by_hand(resnet, 4, 8, A=8e9, B=64),
                                (408_912_512, 4.0, True, 683, 306_684_384, 0.2136110137313433)),
    "ResNet50Fp32AdamBatch64HighActivations": (by_hand(resnet, 4, 8, A=12e9, B=64),
                                               (408_912_512, 4.0, True, 455, 306_684_384, 0.2136110137313433)),
    "ResNet50Fp32AdamBatch512": (by_hand(resnet, 4, 8, A=8e9 / 64 * 512, B=512),
                                 (408_912_512, 4.0, True, 683, 306_684_384, 0.2136110137313433)),
}


def test_stated_activations_by_hand_match_the_spec():
    """training_memory.md §5's stated activations, from Korthikanti's counts by hand."""
    assert gpt2_fp32_none == 573_780_787_200 and gpt2_none == 286_890_393_600
    assert gpt2_selective == pytest.approx(85.5638016e9, rel=1e-15)
    assert gpt2_selective16 == pytest.approx(42.7819008e9, rel=1e-15)
    assert gpt2_segments == pytest.approx(11.534336e9, rel=1e-15)
    assert llama3_selective == pytest.approx(36.507222016e9, rel=1e-15)
    assert lora == 6_815_744


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_entries_by_hand_and_as_listed(entry):
    hand, (total, copies, fits, max_batch, checkpoint, update_ms) = ENTRIES[entry]
    s = getattr(Scenarios, entry)
    assert s.total.to("byte").magnitude == pytest.approx(hand["total"], rel=1e-12) == total
    assert s.copies == pytest.approx(hand["copies"], rel=1e-12) == copies
    assert s.fits is hand["fits"] is fits
    assert s.checkpoint.to("byte").magnitude == pytest.approx(hand["checkpoint"], rel=1e-12) == checkpoint
    assert s.full_state.to("byte").magnitude == pytest.approx(hand["full_state"], rel=1e-12)
    assert s.update_traffic.to("GB").magnitude == pytest.approx(hand["update_traffic_GB"], rel=1e-12)
    if update_ms is None:
        with pytest.raises(MissingInputError, match="hardware"):
            _ = s.update_time
    else:
        assert s.update_time.to("ms").magnitude == pytest.approx(hand["update_time_ms"], rel=1e-12)
        assert s.update_time.to("ms").magnitude == pytest.approx(update_ms, rel=1e-9)
        assert s.capacity_share == pytest.approx(hand["capacity_share"], rel=1e-12)
    if max_batch is None and (fits or s.hardware is None):
        with pytest.raises(MissingInputError, match="activations|batch_size|hardware"):
            _ = s.max_resident_batch
    elif not fits:  # the reference lists a negative batch for a state larger than the device: refused here
        assert max_batch is None or hand["max_resident_batch"] == max_batch < 0
        for output in ("headroom", "resident_batch_limit", "max_resident_batch"):
            with pytest.raises(InfeasibleError, match="training state must fit in the device's memory"):
                getattr(s, output)
    else:
        assert s.max_resident_batch == hand["max_resident_batch"] == max_batch
        assert isinstance(s.max_resident_batch, int)
        assert s.resident_batch_limit == pytest.approx(hand["resident_batch_limit"], rel=1e-12)
        assert s.training_total.to("byte").magnitude == pytest.approx(hand["training_total"], rel=1e-12)


def test_other_listed_values():
    """training_memory.md §5 notes: the mixed-precision GPT-2 entries, LoRA and the full fine-tune."""
    mixed = Scenarios.Gpt2MixedPrecisionAdamOnH100
    assert mixed.weights.to("byte").magnitude == 3e9 and mixed.master_weights.to("byte").magnitude == 6e9
    assert mixed.optimizer_state.to("byte").magnitude == 1.2e10
    assert mixed.bytes_per_trained_parameter.to("byte").magnitude == 16 == 2 * 2 + 4 + 8
    assert mixed.capacity_share == pytest.approx(2.4e10 / CAPACITY, rel=1e-15)
    assert mixed.capacity_share == pytest.approx(0.27939677238464355, rel=1e-12)
    assert mixed.update_bytes_per_parameter.to("byte").magnitude == 26.0 == 2 + 2 * 4 + 2 * 8
    assert mixed.update_traffic.to("GB").magnitude == pytest.approx(39.0, rel=1e-12)
    for entry, training_total in (("Gpt2MixedPrecisionAdamOnH100", 310_890_393_600),
                                  ("Gpt2MixedPrecisionFlashAttentionOnH100", 109_563_801_600),
                                  ("Gpt2MixedPrecisionTwoMicroBatchesOnH100", 66_781_900_800),
                                  ("Gpt2MixedPrecisionSegmentCheckpointedOnH100", 35_534_336_000)):
        assert getattr(Scenarios, entry).training_total.to("byte").magnitude == pytest.approx(training_total, rel=1e-12)
    lora_entry = Scenarios.Llama3_8BLoraOnH100
    assert lora_entry.adapter_count == 6_815_744 and isinstance(lora_entry.adapter_count, int)
    assert lora_entry.adapter_state.to("byte").magnitude == 109_051_904 == 6_815_744 * 16
    assert lora_entry.adapter_reduction == pytest.approx(1.2848e11 / 16_169_051_904, rel=1e-12)
    assert lora_entry.adapter_reduction == pytest.approx(7.94604413188975, rel=1e-12)
    assert lora_entry.frozen_share == pytest.approx(1.606e10 / 16_169_051_904, rel=1e-12)
    assert lora_entry.frozen_share == pytest.approx(0.9932555164862188, rel=1e-12)
    assert lora_entry.capacity_share == pytest.approx(0.18823253810405732, rel=1e-12)
    assert lora_entry.resident_batch_limit == pytest.approx(7.640164347255931, rel=1e-12)
    # the full fine-tune does not fit: 8.03e9 parameters × (2 + 2 + 4 + 8) bytes = 128.48 GB on 80 GiB = 85.899 GB;
    # the reference's resident batch of -4.665 sequences is refused, naming both sizes
    full = Scenarios.Llama3_8BFullFineTuneOnH100
    assert full.fits is False and full.fits_need.to("GB").magnitude == pytest.approx(8.03e9 * 16 / 1e9, rel=1e-12)
    with pytest.raises(InfeasibleError, match=r"needs 128\.48 GB and has 85\.8993 GB"):
        _ = full.resident_batch_limit


def test_adapter_outputs_by_hand():
    """Rank 16, k = 2, d_in = d_out = 4096, L = 32: n_a = 32·2·16·8192; each adapter parameter keeps 16 bytes."""
    s = Scenarios.Rank16AdaptersOnHypothetical8B
    n = 32 * 2 * 16 * (4096 + 4096)
    assert s.adapter_count == n == 8_388_608
    assert s.adapter_weights.to("byte").magnitude == s.adapter_gradients.to("byte").magnitude == 2 * n
    assert s.adapter_master.to("byte").magnitude == 4 * n and s.adapter_optimizer_state.to("byte").magnitude == 8 * n
    assert s.adapter_state.to("byte").magnitude == 16 * n
    assert s.adapter_fraction == pytest.approx(n / 8e9, rel=1e-15)
    assert s.adapter_saved.to("byte").magnitude == pytest.approx(16 * 8e9 - (2 * 8e9 + 16 * n), rel=1e-12)
    assert s.adapter_kept_share == pytest.approx((2 * 8e9 + 16 * n) / (16 * 8e9), rel=1e-12)
    assert s.adapter_reduction_ceiling == 8.0 and s.optimizer_values_per_parameter == 4.0
    assert Scenarios.Rank32AdaptersOnHypothetical8B.adapter_count == 2 * n


def test_entries_are_built_from_other_entries_not_copied_numbers():
    """Six entries take their activations from ActivationMemoryScenario entries' outputs, one from another
    entry's per-sequence activations, batch sizes from entries' inputs; the hypothetical model is user-built."""
    registry = Path(__file__).resolve().parents[3].joinpath("generated", "registry.py").read_text(encoding="utf-8")
    registry = ast.unparse(ast.parse(registry))  # as code, whatever its layout (the generated files are formatted)
    for source in ('Scenarios.Gpt2XlBatch32ActivationsFp32.activations["none"]',
                   'Scenarios.Gpt2XlBatch32Activations.activations["none"]',
                   "Scenarios.Gpt2XlBatch32Activations.per_token_activations",
                   "Scenarios.Gpt2XlMicroBatch16Activations.per_token_activations",
                   "Scenarios.Gpt2XlBatch32SegmentCheckpointed.checkpointed_activations",
                   "Scenarios.Llama3_8BBatch4Activations.per_token_activations",
                   "Scenarios.ResNet50Fp32AdamBatch64.activations_per_sequence * 512",
                   "Scenarios.Gpt2XlBatch32Block.batch_size", "2 * Scenarios.Rank16AdaptersOnHypothetical8B.adapter_rank",
                   "TransformerWorkload(name='Hypothetical 8B-parameter transformer', architecture='Transformer', "
                   "parameters=Q_('8e9 param'), layers=32, hidden_dim=4096)"):
        assert ast.unparse(ast.parse(source)) in registry, source
    assert Scenarios.Gpt2Fp32AdamBatch32OnH100.activations == Scenarios.Gpt2XlBatch32ActivationsFp32.activations["none"]
    assert Scenarios.Llama3_8BLoraOnH100.activations == Scenarios.Llama3_8BBatch4Activations.per_token_activations
    workload = Scenarios.Rank16AdaptersOnHypothetical8B.workload
    assert type(workload) is TransformerWorkload and workload.name == "Hypothetical 8B-parameter transformer"
    assert workload.layers == 32 and workload.hidden_dim == 4096 and workload.heads is None


def test_activations_at_and_checkpoint_write_time():
    """The reference's two methods: A·b/B (linear), and the checkpoint over a write bandwidth.
    ResNet-50 at batch 64 states 8e9 B of activations: 512 sequences hold 8e9·512/64 = 6.4e10 B; its checkpoint
    of 306 684 384 B takes 0.153342192 s at 2 GB/s (and the same at 16 Gbit/s)."""
    s = Scenarios.ResNet50Fp32AdamBatch64
    assert s.activations_at(512).to("byte").magnitude == pytest.approx(8e9 * 512 / 64, rel=1e-15) == 6.4e10
    assert s.activations_at(batch_size=0).magnitude == 0
    assert s.activations_per_sequence.to("byte").magnitude == pytest.approx(1.25e8, rel=1e-15)
    assert s.checkpoint_write_time(2).to("s").magnitude == pytest.approx(306_684_384 / 2e9, rel=1e-12)
    assert s.checkpoint_write_time(bandwidth=Q_(16, "Gbit/s")).to("s").magnitude == pytest.approx(
        306_684_384 / 2e9, rel=1e-12)
    with pytest.raises(MissingInputError, match="output 'activations_at' needs input 'activations' and 'batch_size'"):
        Scenarios.Gpt2Fp32AdamOnH100.activations_at(8)
    with pytest.raises(ScenarioInputError, match="checkpoint_write_time: argument 'bandwidth' got 0"):
        s.checkpoint_write_time(0)
    with pytest.raises(ScenarioInputError, match="argument 'bandwidth' got 2 s"):
        s.checkpoint_write_time(Q_(2, "s"))


def test_differences_from_the_reference():
    base = Scenarios.Gpt2Fp32AdamOnH100
    # bare widths are bytes (the reference reads bits: 2 would be 0.25 byte)
    assert base.variant(bytes_per_value=2).weights.to("byte").magnitude == 3e9
    assert base.variant(bytes_per_value=Q_(16, "bit")).weights.to("byte").magnitude == 3e9
    # a bare activation size is bytes
    assert base.variant(activations=8e9, batch_size=64).training_total.to("byte").magnitude == 3.2e10
    # no master copy is m = 0 (the reference's None): the update rewrites the weights, as `m or v` does for 0 too
    assert base.variant(master_bytes_per_parameter=0) == base
    assert base.update_bytes_per_parameter.to("byte").magnitude == 4 + 2 * 4 + 2 * 8
    mixed = Scenarios.Gpt2MixedPrecisionAdamOnH100
    assert mixed.updated_copy.to("byte").magnitude == 4 and base.updated_copy.to("byte").magnitude == 4
    assert mixed.variant(bytes_per_value=1).updated_copy.to("byte").magnitude == 4
    # no device: fits is False; what reads the device names it
    bare = base.variant(hardware=None)
    assert bare.fits is False
    for output in ("capacity_share", "training_capacity_multiple", "update_time"):
        with pytest.raises(MissingInputError, match="hardware"):
            getattr(bare, output)
    # no adapters: the adapter outputs name the missing input; reduction and kept share are 1, nothing saved
    assert base.adapter_count is None and base.adapter_reduction == 1.0 == base.adapter_kept_share
    assert base.adapter_saved.magnitude == 0
    for output in ("adapter_state", "adapter_weights", "adapter_master", "adapter_fraction"):
        with pytest.raises(MissingInputError, match="adapter_parameters"):
            getattr(base, output)
    for output in ("training_total", "training_copies", "resident_batch_limit", "max_resident_batch"):
        with pytest.raises(MissingInputError, match="activations"):
            getattr(base, output)


def test_adapter_inputs():
    rank16 = Scenarios.Rank16AdaptersOnHypothetical8B
    assert rank16.variant(adapter_parameters=1000).adapter_count == 1000  # a stated count wins over the rank
    none_trained = rank16.variant(adapter_parameters=0)  # T = W
    assert none_trained.total == none_trained.weights and none_trained.frozen_share == 1.0
    assert none_trained.adapter_reduction == pytest.approx(16 * 8e9 / (2 * 8e9), rel=1e-15)
    with pytest.raises(ScenarioInputError, match="adapter_rank"):
        rank16.variant(adapter_rank=0)
    with pytest.raises(MissingInputError, match=r"adapted_matrices.*must be given with adapter_rank.*\(adapted_matrices not given\)"):
        rank16.variant(adapted_matrices=None)
    with pytest.raises(MissingInputError, match=r"adapter_in_dim, adapter_out_dim"):
        rank16.variant(adapter_in_dim=None, adapter_out_dim=None)
    with pytest.raises(MissingInputError, match="layers"):  # EfficientNet-B0 states no layers
        rank16.variant(workload=Models.Vision.EfficientNetB0)
    # without a rank the shape inputs are not needed, and a shape alone is ignored as in the reference
    assert rank16.variant(adapter_rank=None, adapted_matrices=None).adapter_count is None


@pytest.mark.parametrize("name, value", [("batch_size", 0), ("activations", -1), ("bytes_per_value", 0),
                                         ("optimizer_bytes_per_parameter", -1), ("master_bytes_per_parameter", -4),
                                         ("adapter_parameters", -1)])
def test_bad_inputs_are_rejected(name, value):
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.Gpt2MixedPrecisionAdamOnH100.variant(**{name: value})


def test_workload_needs_a_parameter_count():
    with pytest.raises(ScenarioInputError, match="parameters"):
        Scenarios.Gpt2Fp32AdamOnH100.variant(workload=Models.Recommendation.DLRM)


def test_questions():
    """Activations that fit beside the state: C − T; the adapter rank whose parameters are 1 % of the model:
    32·2·r·8192 = 8e7 gives r = 152.587890625."""
    left = solve(Scenarios.Gpt2MixedPrecisionAdamOnH100, "activations", "training_capacity_multiple", 1)
    assert left.values == [pytest.approx(CAPACITY - 2.4e10, rel=1e-12)]
    rank = solve(Scenarios.Rank16AdaptersOnHypothetical8B, "adapter_rank", "adapter_fraction", 0.01)
    assert rank.values == [pytest.approx(0.01 * 8e9 / (32 * 2 * 8192), rel=1e-12)] == [152.587890625]
    (closed, condition), = solve("TrainingStateFitScenario", "adapter_rank", "adapter_fraction", 0.01).expressions
    assert "adapter_parameters" in str(condition)  # left to its default L·k·r·(d_in + d_out), which follows r
    numbers = {s: v for s in closed.free_symbols for n, v in (("workload_parameters", 8e9), ("workload_layers", 32),
               ("adapted_matrices", 2), ("adapter_in_dim", 4096), ("adapter_out_dim", 4096)) if s.name == n}
    assert float(closed.subs(numbers)) == pytest.approx(152.587890625, rel=1e-15)
    page = Path(__file__).resolve().parents[3].joinpath("generated", "docs", "scenarios",
                                                         "TrainingStateFitScenario.md").read_text(encoding="utf-8")
    assert re.search(r"At `Gpt2MixedPrecisionAdamOnH100`: `activations` = 6\.18993e\+10 byte", page)
    assert re.search(r"At `Rank16AdaptersOnHypothetical8B`: `adapter_rank` = 152\.588", page)
    # an input taken from another entry links to that entry's section
    assert "| `activations` | [573780787200.0 B](ActivationMemoryScenario.md#gpt2xlbatch32activationsfp32) |" in page
    assert "| `batch_size` | [32](TransformerBlockScenario.md#gpt2xlbatch32block) |" in page


@settings(max_examples=40, deadline=None)
@given(p=st.floats(1e6, 1e12), v=st.floats(0.5, 8), q=st.floats(0, 16, allow_subnormal=False), m=st.floats(0, 8, allow_subnormal=False),
       acts=st.none() | st.floats(1e6, 1e12), b=st.integers(1, 512), rank=st.none() | st.integers(1, 512),
       stated=st.none() | st.integers(0, 10**8), node=st.sampled_from([None, "H100", "A100"]))
def test_evaluator_equals_exact_sympy(p, v, q, m, acts, b, rank, stated, node):
    workload = TransformerWorkload(name="custom", parameters=p, layers=24, hidden_dim=1024, heads=16)
    s = TrainingStateFitScenario(
        workload=workload, hardware=None if node is None else getattr(Hardware.Cloud, node), bytes_per_value=v,
        optimizer_bytes_per_parameter=q, master_bytes_per_parameter=m, activations=acts,
        batch_size=None if acts is None else b, adapter_rank=rank, adapted_matrices=None if rank is None else 4,
        adapter_in_dim=None if rank is None else 1024, adapter_out_dim=None if rank is None else 1024,
        adapter_parameters=stated)
    # the evaluator's numbers, the outputs of a setup that does not fit included (evaluate() gives None there)
    assert_matches_exact(flatten(s._evaluated()), exact_outputs(Declared.model, s._args), rel=1e-9)
    from generated.training_state_fit import evaluate

    with_arguments = {**s._args, "scaled_batch": 2 * b, "checkpoint_bandwidth": 5}
    values = evaluate(**with_arguments)  # the methods: the evaluator with their arguments, against exact sympy
    assert s.checkpoint_write_time(5).magnitude == values["checkpoint_write_time"]
    assert_matches_exact(flatten(values), exact_outputs(Declared.model, with_arguments), rel=1e-9)
