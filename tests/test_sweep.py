"""Vectorised sweeps: agree with the scalar path, validate every value, never wrap around."""

from __future__ import annotations

import numpy as np
import pytest

from generated import ScenarioInputError, Scenarios
from symbolic.runtime.sweep import sweep

STEP = Scenarios.MnistTwoLayerTrainingStepOnH100


def test_rows_equal_the_scalar_evaluation():
    batches = np.array([1, 7, 32, 4096])
    out = sweep(STEP, {"batch_size": batches})
    for row, batch in enumerate(batches):
        scalar = STEP.variant(batch_size=int(batch))
        assert out["op_flops.matmul1"][row] == scalar.op_flops["matmul1"].magnitude
        assert out["host.overhead_ratio"][row] == pytest.approx(scalar.host.overhead_ratio, rel=1e-15)
        assert out["compute_time"][row] == pytest.approx(scalar.compute_time.magnitude, rel=1e-15)
    assert out["parameters"].shape == batches.shape  # outputs that do not vary are broadcast


def test_int64_would_wrap_but_the_sweep_does_not():
    """2·b·i·h with b = 10⁶, i = h = 10⁷ is 2·10²⁰ > 2⁶³ ≈ 9.2·10¹⁸: int64 wraps to a wrong value."""
    b, i, h = np.array([10**6]), np.array([10**7]), np.array([10**7])
    with np.errstate(over="ignore"):
        wrapped = 2 * b * i * h
    assert wrapped[0] != 2 * 10**20
    out = sweep(STEP, {"batch_size": b, "input_width": i, "hidden_width": h})
    assert out["op_flops.matmul1"][0] == pytest.approx(2e20, rel=1e-15)


@pytest.mark.parametrize("values", [[1, 0], [1, 2.5], [1, np.nan], [1, np.inf], [-4]])
def test_every_value_is_validated(values):
    with pytest.raises(ScenarioInputError, match="batch_size"):
        sweep(STEP, {"batch_size": np.array(values)})


def test_unknown_or_non_numeric_inputs_are_refused():
    with pytest.raises(ScenarioInputError, match="cannot sweep 'hardware'"):
        sweep(STEP, {"hardware": [1, 2]})
    with pytest.raises(ScenarioInputError, match="must be numbers"):
        sweep(STEP, {"batch_size": np.array(["1", "2"])})


def test_requirements_hold_for_every_swept_value():
    phone = Scenarios.PhoneFullUpdateWorkingSet
    with pytest.raises(ScenarioInputError, match="activation_factor_high must be at least"):
        sweep(phone, {"activation_factor": np.array([1.0, 9.0])})
