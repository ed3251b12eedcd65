"""Rounding of the generated evaluators: unit factors are folded without double rounding.

``benchmarks/rounding.py`` reports the same measurement in ``make bench``; these tests hold
the bounds the folding reaches (the folding before it, ``(1/q)*x`` and steps read at their
display values through another unit factor, missed each of them).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
from conftest import float_errors

from generated import Scenarios
from generated.mlp_training_step import evaluate as mlp_evaluate
from symbolic.scenarios.discover import discover

GENERATED = Path(__file__).resolve().parents[2] / "generated"
WITHIN_ONE_ULP = 0.985  # measured 0.9906 (12 of 1,283 beyond 1 ulp); the folding before: 0.9766 (30)


def test_registry_float_outputs_within_one_ulp():
    """Of the float outputs with a rational exact value (not a power law's pow), at least 98.5%
    are within 1 ulp of exact sympy evaluation, none beyond 3."""
    models = {module.model.name: module.model for module in discover()}
    errors = [ulps for key in Scenarios for _, ulps, rational in
              float_errors(getattr(Scenarios, key), models[type(getattr(Scenarios, key)).__name__]) if rational]
    assert len(errors) > 1000
    assert sum(e <= 1 for e in errors) / len(errors) >= WITHIN_ONE_ULP
    assert max(errors) <= 3


def test_unit_factor_rounds_once():
    """The training step's peak rate (TFLOP/s), compute time and memory time (µs) each need one
    operation on exact numbers, so each is the correctly rounded exact value, for any hardware:
    compute_time is 1e6·total_flops/hardware_peak, not total_flops/peak_rate/1e6 of a rounded peak."""
    generator = np.random.default_rng(11)
    peaks = generator.uniform(1e12, 2e15, 500)
    bandwidths = generator.uniform(1e10, 8e12, 500)
    args = dict(Scenarios.MnistTwoLayerTrainingStepOnH100._args)
    for peak, bandwidth in zip(peaks.tolist(), bandwidths.tolist(), strict=True):
        result = mlp_evaluate(**{**args, "hardware_peak": peak, "hardware_bandwidth": bandwidth})
        flops, moved = result["total_flops"], result["total_bytes"]
        assert isinstance(flops, int) and isinstance(moved, int)
        assert result["peak_rate"] == float(Fraction(peak) / 10**12)
        assert result["compute_time"] == float(10**6 * flops / Fraction(peak))
        assert result["memory_time"] == float(10**6 * moved / Fraction(bandwidth))


def test_no_rounded_reciprocal_is_printed():
    """No evaluator, Python or JavaScript, multiplies by a rounded reciprocal such as ``(1/1000000)``."""
    found = [f"{path.name}: {match}" for path in sorted([*GENERATED.glob("*.py"), *GENERATED.glob("js/*.mjs")])
             for match in re.findall(r"\(-?\d+/\d+\)\*", path.read_text(encoding="utf-8"))]
    assert found == []
