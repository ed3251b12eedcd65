"""Derivations: solve, exact derivatives (generated and symbolic), scaling, comparison.

Each expectation is derived by hand in the docstring; the code must reproduce it.
"""

from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Q_, Scenarios
from symbolic.analysis import derive, solving
from symbolic.runtime.analysis import compare, sensitivity

STEP = Scenarios.MnistTwoLayerTrainingStepOnH100
PHONE = Scenarios.PhoneFullUpdateWorkingSet
EPOCH = Scenarios.MnistEpochCpuVersusH100


def test_compute_memory_crossover_batch():
    """compute_time = b·F₁/P with F₁ = 4ih + 6ho + 2h + (c+2)o flop per example;
    memory_time = [v(2ih + 3ho) + b(v(2i + 10h + 7o) + y)]/B. Equal when
    b* = v(2ih + 3ho) / (F₁·B/P − v(2i + 10h + 7o) − y).
    H100, 784-128-10, v = 4 B, y = 8 B, c = 3: F₁ = 409394, B/P = 3.35e12/6.7e13 = 0.05,
    numerator 4·(200704 + 3840) = 818176, denominator 20469.7 − 11672 − 8 = 8789.7,
    b* = 93.0835...
    """
    model = derive.model_of("MlpTrainingStepScenario")
    solution = solving.solve(model, "batch_size", "compute_time", "memory_time", STEP._args)
    i, h, o, v, y, c = 784, 128, 10, 4, 8, 3
    f1 = 4 * i * h + 6 * h * o + 2 * h + (c + 2) * o
    expected = v * (2 * i * h + 3 * h * o) / (f1 * 3.35e12 / 6.7e13 - v * (2 * i + 10 * h + 7 * o) - y)
    assert solution.values == [pytest.approx(expected, rel=1e-12)]
    assert any("between 93 and 94" in note for note in solution.notes)
    # The symbolic answer is the same formula in every input.
    (expr, _), = solution.expressions
    b = sympy.Symbol("batch_size")
    assert b not in expr.free_symbols


def test_parameters_that_fit_a_phone():
    """total = N·v·(2 + m + a) = 8 GiB  =>  N = 2³³ / (4·9) = 238,609,294.2 parameters."""
    solution = solving.solve(derive.model_of("UpdateWorkingSetScenario"), "parameters", "total", Q_(8, "GiB"),
                            PHONE._args)
    assert solution.values == [pytest.approx(2**33 / 36, rel=1e-12)]
    # a bare number is read in the output's display unit (MB)
    same = solving.solve(derive.model_of("UpdateWorkingSetScenario"), "parameters", "total", 8 * 2**30 / 1e6,
                        PHONE._args)
    assert same.values == pytest.approx(solution.values)


def test_min_gives_a_piecewise_answer():
    """rate[host] = min(p, β·I). Below the peak: β = r/I, with I = 11.8993 flop/B, so for
    r = 0.5 TFLOP/s, β = 42.02 GB/s; above the peak (r = 2 TFLOP/s > p = 1 TFLOP/s) there is
    no bandwidth that reaches it."""
    model = derive.model_of("EpochOverheadScenario")
    low = solving.solve(model, "host_bandwidth", "result.rate[host]", Q_(0.5, "TFLOP/s"), EPOCH._args)
    assert low.values == [pytest.approx(0.5e12 / 11.899321466936811, rel=1e-12)]
    (expr, condition), = low.expressions  # the peak branch does not depend on the bandwidth
    assert "host_peak" in str(condition)
    high = solving.solve(model, "host_bandwidth", "result.rate[host]", Q_(2, "TFLOP/s"), EPOCH._args)
    assert high.values == [] and any("no real solution" in note for note in high.notes)


def test_floor_cannot_be_inverted():
    with pytest.raises(derive.DerivationError, match="floor"):
        solving.solve(derive.model_of("DenseNetworkScenario"), "batch_size", "result.steps_per_epoch", 100,
                     Scenarios.MnistDenseNetwork._args)


def test_unknown_names_suggest():
    with pytest.raises(derive.DerivationError, match="did you mean batch_size"):
        solving.solve(derive.model_of("MlpTrainingStepScenario"), "batchsize", "compute_time", "memory_time")
    with pytest.raises(derive.DerivationError, match="did you mean compute_time"):
        derive.closed_form(derive.model_of("MlpTrainingStepScenario"), "compute_tme")


def test_working_set_elasticities():
    """total = N·v·(2 + m + a): ε_N = ε_v = 1, ε_a = a/(2 + m + a) = 5/9, ε_m = m/(2+m+a) = 2/9."""
    rows = {r.input: r.elasticity for r in sensitivity(PHONE, "total")}
    assert rows["parameters"] == pytest.approx(1) and rows["bytes_per_param"] == pytest.approx(1)
    assert rows["activation_factor"] == pytest.approx(5 / 9)
    assert rows["optimizer_moments"] == pytest.approx(2 / 9)
    assert list(rows)[:2] == ["bytes_per_param", "parameters"]  # ranked by |elasticity|, then name


def test_epoch_overhead_dominates_the_accelerator():
    """total[acc] = N·O·(d + ℓ) + N·S/rate with N = ⌊E/b⌋, differentiated as its trend E/b.
    Both terms are proportional to N, so ε_E = 1 exactly. ∂/∂d = N·O = 1875·12 µs per µs
    = 22.5 ms/µs; at d = 10 µs of a 338.18 ms total, ε_d = 225/338.18 = 0.665. Overhead
    ∝ 1/b and work ∝ 1/I(b), so ε_b = −(overhead share + ε_I·work share) ≈ −0.999."""
    rows = {r.input: r for r in sensitivity(EPOCH, "result.total_time[accelerator]")}
    assert rows["network_dataset_training_examples"].elasticity == pytest.approx(1.0)
    assert rows["dispatch"].derivative == pytest.approx(22.5)
    assert rows["dispatch"].elasticity == pytest.approx(225 / 338.1839471885267)
    share_overhead = 337.5 / 338.1839471885267
    assert -1 < rows["network_batch_size"].elasticity < -share_overhead
    # operations per layer (4) scale the whole overhead: ∂/∂n_L = N·L·(d + ℓ) = 1875·3·15 µs = 84.375 ms,
    # ε = 84.375·4 / 338.18 = 337.5 / 338.18, just above dispatch's share
    assert rows["ops_per_layer"].elasticity == pytest.approx(share_overhead)
    ranked = [r.input for r in sensitivity(EPOCH, "result.total_time[accelerator]")]
    assert ranked[:4] == ["network_dataset_training_examples", "network_batch_size", "ops_per_layer", "dispatch"]


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 4096), h=st.integers(1, 4096), d=st.floats(0, 50, allow_subnormal=False), peak=st.sampled_from([1e12, 6.7e13]))
def test_generated_gradient_equals_sympy_derivative(b, h, d, peak):
    scenario = STEP.variant(batch_size=b, hidden_width=h, dispatch=d)
    args = dict(scenario._args, hardware_peak=peak)
    gradient = type(scenario)._gradient(**args)
    model = derive.model_of("MlpTrainingStepScenario")
    values = derive.base_values(model, args)
    for output, scale in (("compute_time", 1e6), ("host.overhead_ratio", 1), ("total_bytes", 1)):
        for name in ("batch_size", "hidden_width", "dispatch"):
            exact = derive.substitute(derive.derivative(model, output, name), values)
            unit_scale = 1e-6 if name == "dispatch" else 1  # dispatch is declared in µs
            expected = float(exact) * scale * unit_scale
            got = gradient.get(output, {}).get(name, 0.0)
            assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-15), (output, name)


def test_scaling():
    """FLOPs ∝ b·(…): linear in batch and in hidden width, cubic when all grow together;
    the working set is linear in parameters; dense FLOPs grow with the square of the widths."""
    flops = derive.scaling(derive.model_of("MlpTrainingStepScenario"), "total_flops")
    assert flops.per_input["batch_size"] == 1 and flops.per_input["hidden_width"] == 1
    assert flops.overall == 3 and flops.polynomial
    total = derive.scaling(derive.model_of("UpdateWorkingSetScenario"), "total")
    assert total.per_input["parameters"] == 1
    dense = derive.scaling(derive.model_of("DenseNetworkScenario"), "result.forward_flops")
    assert dense.per_input == {"layer_widths": 2, "batch_size": 1}
    ratio = derive.scaling(derive.model_of("HostDispatchScenario"), "overhead_ratio")
    assert ratio.per_input["device_time"] == -1 and not ratio.polynomial


def test_compare_attributes_power_laws_exactly():
    """op_flops ∝ b, so doubling b gives Δln y = ln 2, all of it from batch_size."""
    changed, changes = compare(Scenarios.MnistDenseNetwork, Scenarios.MnistDenseNetworkLargeBatch)
    assert changed == {"batch_size": (32, 1024)}
    by_output = {c.output: c for c in changes}
    flops = by_output["result.forward_flops"]
    assert flops.relative == pytest.approx(31.0)
    assert flops.attribution == (("batch_size", pytest.approx(math.log(32))),)
    assert "result.parameters" not in by_output  # unchanged outputs are not listed


def test_identically_zero_screen_agrees_with_simplify():
    """The exact-point screen only ever skips ``simplify`` for expressions that are nonzero at
    a point inside their symbols' domain; identities still reach ``simplify``.
    (x + y)² − x² − 2xy − y² is an identity; x/y − 1 is zero only where x = y; with
    k a positive integer, (−1)^(2k) − 1 is an identity that a non-integer point would break."""
    x, y = sympy.symbols("x y", positive=True)
    k = sympy.Symbol("k", integer=True, positive=True)
    cases = {(x + y) ** 2 - x**2 - 2 * x * y - y**2: True, x / y - 1: False, (-1) ** (2 * k) - 1: True,
             sympy.sqrt(x**2) - x: True, sympy.Min(x, y) - x: False, sympy.Float(0.5) * x - x / 2: True}
    for expr, zero in cases.items():
        assert solving._identically_zero(expr) is zero, expr
        assert (sympy.simplify(expr) == 0) is zero, expr
    assert not solving._nonzero_somewhere((x + y) ** 2 - x**2 - 2 * x * y - y**2)
    assert solving._nonzero_somewhere(x / y - 1)
