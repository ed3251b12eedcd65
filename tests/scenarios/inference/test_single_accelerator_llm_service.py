"""SingleAcceleratorLlmServiceScenario: the reference entry by hand, its limits and bad input, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, Models, Q_, ScenarioInputError, Scenarios, SingleAcceleratorLlmServiceScenario
from symbolic.scenarios.inference.single_accelerator_llm_service import SingleAcceleratorLlmServiceScenario as Declared

P, L, D, H, KV_HEADS, HEAD = 8.03e9, 32, 4096, 32, 8, 128  # Llama-3-8B (catalog)
PEAK, BW, CAP, TAU = 989e12, 3.35e12, 80 * 2**30, 0.01e-3  # H100


def _prefill(tokens):
    return (2 * P * tokens + 4 * L * H * (D // H) * tokens**2) / (PEAK * 0.4) + TAU


def test_llama3_8b_int4_chat_by_hand():
    """n_p 1000, n_d 256, int4 weights (0.5 B), fp16 cache, η 0.4, K = 72 GiB, λ_p 10,000/s, 3 USD/h (§11, §12.7)."""
    s = Scenarios.Llama3_8BInt4ChatServiceH100
    n = 1256
    kv_token = 2 * L * KV_HEADS * HEAD * 2
    weights = P * 0.5
    resident = int(72 * 2**30 // (kv_token * n))
    # a decode step streams the weights once and every resident request's cache (the reference: one request's,
    # tpot 1.5676 ms, decode 0.40132 s, request 0.45441 s, residency rate 1032.11/s)
    tpot = (weights + resident * kv_token * n) / BW + L * 0.01e-3
    request_time = _prefill(n) + 256 * tpot
    rate = min(10000 / 1000, resident / request_time)
    expected = {
        "total_tokens": (n, None, 1256), "ttft": (_prefill(1000) * 1e3, "ms", 41.93186046511628),
        "weights": (weights / 1e9, "GB", 4.015000000000001), "kv_per_token": (kv_token, "byte", 131072),
        "kv_per_request": (kv_token * n, "byte", 164626432), "weight_floor": (weights / BW, "s", 0.0011985074626865674),
        "dispatch_cost": (0.32, "ms", 0.32000000000000006), "tpot": (tpot, "s", 0.024566207942686567),
        "decode_time": (256 * tpot, "s", 6.288949233327761), "kv_capacity_tokens": (589824, None, 589824),
        "resident_requests": (resident, None, 469), "request_time": (request_time, "s", 6.342039221180056),
        "prefill_request_rate": (10.0, "1/s", 10.0), "residency_request_rate": (resident / request_time, "1/s",
                                                                                 73.95097753948195),
        "request_rate": (rate, "1/s", 10.0), "tokens_per_hour": (rate * 3600 * n, None, 45216000.0),
        "cost_per_million_tokens": (3.0 / (rate * 3600 * n / 1e6), "USD", 0.06634819532908705),
        "remaining_memory": ((CAP - weights) / 1e9, "GB", 81.88434592),
    }
    for name, (by_hand, unit, listed) in expected.items():
        got = getattr(s, name)
        got = got.to(unit).magnitude if unit else got
        assert got == pytest.approx(by_hand, rel=1e-12) == pytest.approx(listed, rel=1e-9), name
    assert s.total_tokens == 1256 and s.resident_requests == 469 and s.kv_capacity_tokens == 589824
    assert s.bandwidth == Q_(3.35, "TB/s")


def test_limits_and_bad_input():
    s = Scenarios.Llama3_8BInt4ChatServiceH100
    slow_prefill = s.variant(prefill_rate=Q_(1e7, "1/s"))  # now the cache reserve limits the rate
    assert slow_prefill.request_rate == slow_prefill.residency_request_rate
    with pytest.raises(ScenarioInputError, match="kv_reserve must hold at least one request"):
        s.variant(kv_reserve=Q_(0.1, "GB"))  # the reference divides by zero in cost_per_million_tokens
    assert s.variant(decode_tokens=0).decode_time.magnitude == 0
    for name, bad in (("prefill_efficiency", 0), ("prompt_tokens", 0), ("precision", "fp16_dense"),
                      ("kv_bytes_per_value", 0), ("price", -1)):
        with pytest.raises(ScenarioInputError, match=name):
            s.variant(**{name: bad})


def test_a_setup_that_does_not_fit_is_refused():
    """Issue 24: Llama-3-70B at FP16 (141.2 GB) plus 77.3 GB of reserve on an 80 GiB H100, and a 1 TB reserve."""
    from generated import InfeasibleError

    s = Scenarios.Llama3_8BInt4ChatServiceH100
    assert s.fits is True
    assert s.fits_need.to("GB").magnitude == pytest.approx(8.03e9 * 0.5 / 1e9 + 72 * 2**30 / 1e9, rel=1e-12)
    big = s.variant(workload=Models.Language.Llama3_70B, precision="fp16")
    assert big.fits is False and big.weights.to("GB").magnitude == pytest.approx(141.2, rel=1e-12)
    for name in ("request_rate", "cost_per_million_tokens", "remaining_memory", "tpot", "ttft", "resident_requests"):
        with pytest.raises(InfeasibleError, match=r"needs 218\.509 GB and has 85\.8993 GB.*workload=Llama-3\.1-70B"):
            getattr(big, name)
    assert big.prefill_flops.magnitude > 0  # what the model is stays defined
    huge = s.variant(kv_reserve=Q_(1, "TB"))
    assert huge.fits is False
    with pytest.raises(InfeasibleError, match="resident_requests.*needs 1004.02 GB"):
        _ = huge.resident_requests


def test_the_rate_balance_question():
    """The prefill rate at which the prefill admits as many requests as the reserve completes: n_p · residency rate."""
    from symbolic.analysis.solving import solve

    s = Scenarios.Llama3_8BInt4ChatServiceH100
    answer = solve(s, "prefill_rate", "prefill_request_rate", "residency_request_rate")
    assert answer.values == [pytest.approx(1000 * 73.95097753948195, rel=1e-9)]


@settings(max_examples=40, deadline=None)
@given(n_p=st.integers(1, 8192), n_d=st.integers(0, 4096), eta=st.floats(0.01, 1), reserve=st.floats(10, 80),
       rate=st.floats(1, 1e6), width=st.sampled_from(["fp16", "int8", "int4"]))
def test_evaluator_equals_exact_sympy(n_p, n_d, eta, reserve, rate, width):
    s = SingleAcceleratorLlmServiceScenario(
        workload=Models.Language.Llama3_8B, hardware=Hardware.Cloud.H100, precision=width, kv_bytes_per_value=2,
        prompt_tokens=n_p, decode_tokens=n_d, prefill_efficiency=eta, kv_reserve=reserve, prefill_rate=rate, price=3)
    # the evaluator's numbers, the outputs of a setup that does not fit included (evaluate() gives None there)
    assert_matches_exact(flatten(s._evaluated()), exact_outputs(Declared.model, s._args), rel=1e-9)
