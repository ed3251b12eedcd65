"""TransformerBlockScenario: GPT-2 XL's blocks at batch 1 and 32 by hand, missing fields, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import MissingInputError, Models, Scenarios, TransformerBlockScenario
from symbolic.scenarios.inference.transformer_block import TransformerBlockScenario as Declared

D, L, V, C, S, P = 1600, 48, 50257, 1024, 1024, 1.5e9  # GPT-2 XL (catalog §A.3)


def test_gpt2_xl_block_counts_by_hand():
    """A_b = 4d², M_b = 8d², W_b = 12d² = 30,720,000; exact parameters per the GPT-2 layout (spec §12.4)."""
    s = Scenarios.Gpt2XlBlockFullWindow
    counts = {"width": D, "attention_weights_per_block": 4 * D**2, "mlp_weights_per_block": 8 * D**2,
              "weights_per_block": 12 * D**2, "block_coefficient": 12, "block_weights": 1_474_560_000,
              "attention_weights": 4 * D**2 * L, "mlp_weights": 8 * D**2 * L, "token_table": 80_411_200,
              "block_rule_parameters": 1_554_971_200, "dense_macs": 31_457_280_000, "attention_macs": 3_355_443_200,
              "block_macs": 31_457_280_000 + 3_355_443_200}
    for name, value in counts.items():
        assert getattr(s, name) == value, name
        assert isinstance(getattr(s, name), int), name
    per_block = (3 * D**2 + 3 * D) + (D**2 + D) + (4 * D**2 + 4 * D) + (4 * D**2 + D) + 4 * D
    assert s.exact_parameters == L * per_block + V * D + C * D + 2 * D == 1_557_611_200
    assert s.mlp_share == pytest.approx(2 / 3, rel=1e-15)
    assert s.flops_per_token.to("flop").magnitude == 2_949_120_000
    assert s.output_layer_flops.to("flop").magnitude == 160_822_400
    assert s.attention_share == pytest.approx(0.0963855421686747, rel=1e-12)
    assert s.dense_to_attention == pytest.approx(9.375, rel=1e-15)
    assert s.attention_to_dense == pytest.approx(1 / 9.375, rel=1e-15)
    assert s.crossover == pytest.approx(9600.0, rel=1e-15) and s.crossover_multiple == pytest.approx(6.0, rel=1e-15)
    assert s.prompt_dense_flops.to("flop").magnitude == 2_949_120_000 * S
    assert s.prompt_attention_flops.to("flop").magnitude == 2 * 3_355_443_200 * L
    assert s.prompt_flops.to("flop").magnitude == pytest.approx(3_342_021_427_200, rel=1e-15)
    assert s.training_to_forward == pytest.approx(3.0, rel=1e-15)


@pytest.mark.parametrize(("entry", "batch", "layer_gflop", "step_tflop", "six_p_tflop", "attention_tflop"), [
    ("Gpt2XlBlockFullWindow", 1, 69.6254464, 10.0260642816, 9.216, 0.9663676416),
    ("Gpt2XlBatch32Block", 32, 2228.0142848, 320.8340570112, 294.912, 30.9237645312),
])
def test_step_flops_by_hand(entry, batch, layer_gflop, step_tflop, six_p_tflop, attention_tflop):
    """2·(W_b·S + 2S²d)·B per block; ×L×3 per step; 6·P·B·S; 2·(2S²d)·B·L·3 (spec §12.4)."""
    s = getattr(Scenarios, entry)
    assert s.batch_size == batch
    block_macs = 12 * D**2 * S + 2 * S**2 * D
    assert layer_gflop == pytest.approx(2 * block_macs * batch / 1e9, rel=1e-15)
    assert s.layer_forward_flops.to("GFLOP").magnitude == pytest.approx(layer_gflop, rel=1e-12)
    assert s.training_step_flops.to("TFLOP").magnitude == pytest.approx(step_tflop, rel=1e-12)
    assert s.six_p_step_flops.to("TFLOP").magnitude == pytest.approx(six_p_tflop, rel=1e-12)
    assert s.attention_step_flops.to("TFLOP").magnitude == pytest.approx(attention_tflop, rel=1e-12)


def test_fields_a_workload_leaves_unset_make_only_their_outputs_unavailable():
    s = Scenarios.Gpt2XlBlockFullWindow.variant(workload=Models.Language.BERT_Large)  # no vocab_size, no context
    assert s.weights_per_block == 12 * 1024**2
    for name in ("token_table", "block_rule_parameters", "output_layer_flops", "exact_parameters"):
        with pytest.raises(MissingInputError, match="vocab_size"):
            getattr(s, name)
    small = Scenarios.Gpt2XlBlockFullWindow.variant(workload=Models.Language.GPT2_Small)  # vocabulary, no context
    assert small.token_table == 50257 * 768
    with pytest.raises(MissingInputError, match="context_length"):
        _ = small.exact_parameters


def test_context_at_which_attention_equals_the_dense_work():
    """2S²d = W_b·S at S = W_b/(2d) = 12·1600/2 = 9600 tokens."""
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "context_tokens", "attention_macs", "dense_macs",
                     Scenarios.Gpt2XlBlockFullWindow._args)
    assert solution.values == [pytest.approx(9600, rel=1e-12)]


@settings(max_examples=40, deadline=None)
@given(s=st.integers(1, 10**5), f=st.integers(1, 8), a=st.integers(1, 6), b=st.integers(1, 64),
       model=st.sampled_from(["GPT2", "GPT3", "GPT2_Small", "Llama3_70B"]))
def test_evaluator_equals_exact_sympy(s, f, a, b, model):
    scenario = TransformerBlockScenario(workload=getattr(Models.Language, model), context_tokens=s, ffn_multiple=f,
                                        attention_projections=a, batch_size=b)
    assert_matches_exact(flatten(scenario.evaluate()), exact_outputs(Declared.model, scenario._args))
