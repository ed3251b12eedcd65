"""ActivationMemoryScenario: every registry entry by hand (Korthikanti et al.), edges, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten, table_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (
    ActivationMemoryScenario,
    MissingInputError,
    Models,
    Q_,
    ScenarioInputError,
    Scenarios,
    TransformerWorkload,
)
from symbolic.scenarios.training_memory.activation_memory import ActivationMemoryScenario as Declared

# (entry, L, h, a, s, b, p, N in MB, K): the spec's §3 registry, inputs written out.
ENTRIES = [
    ("Gpt2XlBatch32Activations", 48, 1600, 25, 1024, 32, 2, 10, None),
    ("Gpt2XlBatch32ActivationsFp32", 48, 1600, 25, 1024, 32, 4, 10, None),
    ("Gpt2XlBatch32SegmentCheckpointed", 48, 1600, 25, 1024, 32, 2, 10, 8),
    ("Gpt2XlMicroBatch16Activations", 48, 1600, 25, 1024, 16, 2, 10, None),
    ("Gpt3ActivationsMicrobatch4", 96, 12288, 96, 2048, 4, 2, 0, None),
    ("Gpt3ActivationsMicrobatch1", 96, 12288, 96, 2048, 1, 2, 0, None),
    ("Llama3_8BBatch4Activations", 32, 4096, 32, 2048, 4, 2, 0, None),
]

# The spec's listed values: per_token (GB), score (GB), full (B), line_items_per_layer (MB).
SPEC = {
    "Gpt2XlBatch32Activations": (85.5638016, 201.326592, 5_033_164_800.0, 5043.1648000000005),
    "Gpt2XlBatch32ActivationsFp32": (171.1276032, 402.653184, 10_066_329_600.0, 10076.329600000001),
    "Gpt2XlBatch32SegmentCheckpointed": (85.5638016, 201.326592, 5_033_164_800.0, 5043.1648000000005),
    "Gpt2XlMicroBatch16Activations": (42.7819008, 100.663296, 2_516_582_400.0, 2526.5824000000002),
    "Gpt3ActivationsMicrobatch4": (328.564998144, 773.0941132800001, 19_327_352_832.0, 9663.676416000002),
    "Gpt3ActivationsMicrobatch1": (82.141249536, 193.27352832000003, 4_831_838_208.0, 2415.9191040000005),
    "Llama3_8BBatch4Activations": (36.507222016, 85.89934592, 2_147_483_648.0, 3221.225472),
}


@pytest.mark.parametrize("key, L, h, a, s, b, p, N, K", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_entry_by_hand(key, L, h, a, s, b, p, N, K):
    e = getattr(Scenarios, key)
    k = p / 2
    selective = L * 34 * s * b * h * k
    score = L * 5 * a * s * s * b * k
    full = L * 2 * s * b * h * k
    assert e.sequence == s
    assert e.activations["selective"].to("byte").magnitude == pytest.approx(selective, rel=1e-12)
    assert e.activations["none"].to("byte").magnitude == pytest.approx(selective + score, rel=1e-12)
    assert e.activations["full"].to("byte").magnitude == pytest.approx(full, rel=1e-12)
    per_token, score_gb, full_b, items = SPEC[key]
    assert e.per_token_activations.to("GB").magnitude == pytest.approx(per_token, rel=1e-9)
    assert e.score_activations.to("GB").magnitude == pytest.approx(score_gb, rel=1e-9)
    assert e.activations["full"].to("byte").magnitude == pytest.approx(full_b, rel=1e-9)
    assert e.per_sequence_activations.to("GB").magnitude == pytest.approx(selective / b / 1e9, rel=1e-12)
    projection, ffn = 4 * b * s * h * p, b * s * 4 * h * p
    per_layer = (projection + ffn + score / L) / 1e6 + N
    assert e.line_items_per_layer.to("MB").magnitude == pytest.approx(per_layer, rel=1e-12)
    assert e.line_items_per_layer.to("MB").magnitude == pytest.approx(items, rel=1e-9)
    assert e.line_items_total.to("GB").magnitude == pytest.approx(per_layer * L / 1e3, rel=1e-12)
    c_t, c_s = 34 * p / 2, 5 * a * s / h * p / 2
    assert e.per_token_bytes_coefficient == pytest.approx(c_t) and e.score_bytes_coefficient == pytest.approx(c_s)
    assert e.score_share == pytest.approx(c_s / (c_t + c_s), rel=1e-12)
    assert e.segment_input.to("MB").magnitude == pytest.approx(b * s * h * p / 1e6, rel=1e-12)
    assert e.forward_equivalents == 3 and e.recompute_forward_equivalents == pytest.approx(4.0)
    assert e.recompute_overhead == 1 / 3 == pytest.approx(0.33333333333333326, rel=1e-9)  # exact, see differs
    if K is None:
        with pytest.raises(MissingInputError, match="checkpoint_segments"):
            _ = e.checkpointed_activations
    else:
        layers_per_segment = L // K
        inputs = K * b * s * h * p
        live = selective / L * layers_per_segment
        assert e.segment_layers == layers_per_segment
        assert e.segment_inputs.to("GB").magnitude == pytest.approx(inputs / 1e9, rel=1e-12)
        assert e.live_segment.to("GB").magnitude == pytest.approx(live / 1e9, rel=1e-12)
        assert e.checkpointed_activations.to("GB").magnitude == pytest.approx((inputs + live) / 1e9, rel=1e-12)


def test_segment_checkpointed_spec_values():
    e = Scenarios.Gpt2XlBatch32SegmentCheckpointed
    assert e.segment_layers == 6
    assert e.segment_inputs.to("GB").magnitude == pytest.approx(0.8388608, rel=1e-9)
    assert e.live_segment.to("GB").magnitude == pytest.approx(10.6954752, rel=1e-9)
    assert e.checkpointed_activations.to("GB").magnitude == pytest.approx(11.534336, rel=1e-9)
    more = e.variant(checkpoint_segments=64)  # K > L: no whole layer per segment, K inputs kept
    assert more.segment_layers == 0 and more.live_segment.to("GB").magnitude == 0


def test_checkpoint_memory_units():
    """k + L/k for L = 48: 49, 16 and 13.857142857142858 at k = 1, 4, 7."""
    e = Scenarios.Gpt2XlBatch32Activations
    for k, units in [(1, 49.0), (4, 16.0), (7, 13.857142857142858)]:
        assert e.variant(checkpoints=k).checkpoint_memory_units == pytest.approx(units, rel=1e-12)


def test_sequence_defaults_to_the_context_window_and_is_required_without_one():
    assert Scenarios.Gpt3ActivationsMicrobatch1.sequence == 2048
    llama2 = Scenarios.Gpt3ActivationsMicrobatch1.variant(workload=Models.Language.Llama2_7B)
    with pytest.raises(MissingInputError, match="seq_len.*context_length"):
        _ = llama2.per_token_activations
    built = ActivationMemoryScenario(workload=Models.Language.Llama2_7B, micro_batch=1)
    for output in ("activations", "sequence", "score_share", "line_items_total"):  # the draft's TypeError here
        with pytest.raises(MissingInputError, match=f"'{output}' needs input 'seq_len'"):
            getattr(built, output)
    assert built.per_token_bytes_coefficient == 34  # what needs no sequence still evaluates


def test_largest_micro_batch_with_full_recomputation_is_solved_exactly():
    """activations[full] = L·2·s·b·h·p/2 = 80 GiB: GPT-2 XL (48 × 1024 × 1600 at 2 B) b = 546.13; GPT-3 reads its
    2,048-token context (the default of seq_len) when solving: 96 × 2048 × 12288 × 2 B per sequence, b = 17.78."""
    from symbolic.analysis.solving import solve

    gib80 = Q_(80, "GiB")
    gpt2 = solve(Scenarios.Gpt2XlBatch32Activations, "micro_batch", "activations[full]", gib80).values
    assert gpt2 == [pytest.approx(80 * 2**30 / (48 * 2 * 1024 * 1600), rel=1e-12)]
    gpt3 = solve(Scenarios.Gpt3ActivationsMicrobatch1, "micro_batch", "activations[full]", gib80).values
    assert gpt3 == [pytest.approx(80 * 2**30 / (96 * 2 * 2048 * 12288), rel=1e-12)]


def test_precision_is_a_data_width():
    """A bare number is bytes (the reference's plain float); a Quantity converts (16 bit = 2 B)."""
    e = Scenarios.Gpt2XlBatch32Activations
    assert e.variant(precision_bytes=Q_(16, "bit")).per_token_activations == e.per_token_activations
    assert e.variant(precision_bytes=4).per_token_activations.to("GB").magnitude == pytest.approx(171.1276032)


@pytest.mark.parametrize("name, value", [("micro_batch", 0), ("seq_len", 0), ("checkpoint_segments", 0),
                                         ("precision_bytes", 0), ("ffn_multiple", 0)])
def test_bad_inputs_are_rejected(name, value):
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.Gpt2XlBatch32Activations.variant(**{name: value})


def test_non_transformers_and_missing_heads_are_rejected():
    with pytest.raises(ScenarioInputError, match="workload"):
        Scenarios.Gpt2XlBatch32Activations.variant(workload=Models.Vision.ResNet50)
    no_heads = TransformerWorkload(name="Hypothetical", parameters=8e9, layers=32, hidden_dim=4096)
    with pytest.raises((MissingInputError, ScenarioInputError), match="heads"):
        Scenarios.Gpt2XlBatch32Activations.variant(workload=no_heads)


@settings(max_examples=40, deadline=None)
@given(L=st.integers(1, 128), h=st.integers(1, 20000), a=st.integers(1, 128), s=st.integers(1, 10**5),
       b=st.integers(1, 512), p=st.sampled_from([0.5, 1, 2, 4]), n=st.floats(0, 100, allow_subnormal=False), f=st.integers(1, 8),
       K=st.none() | st.integers(1, 200), k=st.none() | st.integers(1, 200))
def test_evaluator_equals_exact_sympy(L, h, a, s, b, p, n, f, K, k):
    # a width of whole heads (a record whose width is not a multiple of its heads is refused)
    workload = TransformerWorkload(name="custom", parameters=1e9, layers=L, hidden_dim=a * max(1, h // a), heads=a)
    e = ActivationMemoryScenario(workload=workload, micro_batch=b, seq_len=s, precision_bytes=p,
                                 normalization_per_layer=n, ffn_multiple=f, checkpoint_segments=K, checkpoints=k)
    assert_matches_exact(table_paths(flatten(e.evaluate()), {"activations"}), exact_outputs(Declared.model, e._args))
