"""TrainingStateScenario: the GPT-3 TP8 entry by hand, domains, exact sympy agreement."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Models, ScenarioInputError, Scenarios, TrainingStateScenario, TransformerWorkload
from symbolic.scenarios.training_memory.training_state import TrainingStateScenario as Declared


def test_gpt3_tp8_by_hand():
    """P = 1.75e11: W = 2P B = 350 GB, M = 4P B = 700 GB, S = 2W + 3M = 2800 GB; t = 8, d = 128, A = 200 GB."""
    r = Scenarios.Gpt3TrainingStateTp8.result
    P, t, d, A = 1.75e11, 8, 128, 200.0
    W, M = 2 * P / 1e9, 4 * P / 1e9
    S = W + W + M + 2 * M
    expected = {
        "weights": W, "gradients": W, "master_weights": M, "adam_moment": M, "optimizer_moments": 2 * M,
        "persistent_state": S, "activations": A, "tp_weights_per_device": W / t, "tp_gradients_per_device": W / t,
        "tp_master_per_device": M / t, "tp_moments_per_device": 2 * M / t, "tp_activations_per_device": A / t,
        "tp_total_per_device": (S + A) / t, "tp_offloaded_per_device": (S + A - 3 * M) / t,
        "zero_moments_per_device": 2 * M / (t * d), "zero_moments_per_tp_group": 2 * M / d,
        "zero_weights_and_moments_per_device": W / t + 2 * M / (t * d),
    }
    spec = {"persistent_state": 2800.0, "tp_total_per_device": 375.0, "tp_offloaded_per_device": 112.5,
            "zero_moments_per_device": 1.3671875, "zero_moments_per_tp_group": 10.9375,
            "zero_weights_and_moments_per_device": 45.1171875, "tp_moments_per_device": 175.0}
    for name, value in expected.items():
        got = getattr(r, name).to("GB").magnitude
        assert got == pytest.approx(value, rel=1e-12), name
        if name in spec:
            assert got == pytest.approx(spec[name], rel=1e-9), name


def test_state_is_16_bytes_per_parameter_for_any_workload():
    s = Scenarios.Gpt3TrainingStateTp8.variant(workload=Models.Vision.ResNet50, tp_size=1, dp_size=1, activations=0)
    assert s.result.persistent_state.to("byte").magnitude == pytest.approx(16 * 25_557_032, rel=1e-12)


@pytest.mark.parametrize("name, value", [("tp_size", 0), ("dp_size", 0), ("tp_size", -8), ("activations", -1)])
def test_bad_sizes_are_rejected(name, value):
    """The reference divides by zero (tp or dp 0) and accepts negative sizes; ours refuses them."""
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.Gpt3TrainingStateTp8.variant(**{name: value})


def test_workload_without_parameters_is_rejected():
    with pytest.raises(ScenarioInputError, match="parameters"):
        Scenarios.Gpt3TrainingStateTp8.variant(workload=Models.Recommendation.DLRM)


@settings(max_examples=40, deadline=None)
@given(p=st.floats(1e3, 1e13), t=st.integers(1, 1024), d=st.integers(1, 4096), a=st.floats(0, 1e4, allow_subnormal=False))
def test_evaluator_equals_exact_sympy(p, t, d, a):
    workload = TransformerWorkload(name="custom", parameters=p, layers=1)
    s = TrainingStateScenario(workload=workload, tp_size=t, dp_size=d, activations=a)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
    assert s.result.persistent_state.to("byte").magnitude == pytest.approx(16 * p, rel=1e-12)
