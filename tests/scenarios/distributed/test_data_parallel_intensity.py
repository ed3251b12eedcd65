"""DataParallelIntensityScenario: the registry entry by hand, the balance question, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (Hardware, InputTypeError, MissingInputError, Models, Q_,
                       ScenarioInputError, Scenarios)
from generated.data_parallel_intensity import evaluate
from symbolic.analysis.solving import solve
from symbolic.scenarios.distributed.data_parallel_intensity import DataParallelIntensityScenario as Declared

P, C = 1.75e11, 2048  # GPT-3 (catalog)
HDR, A100_PEAK = 200e9 / 8, 312e12  # byte/s, flop/s


def test_gpt3_on_a100_by_hand():
    """D = 4·2048 = 8192; B = 2·(2·1.75e11) = 7e11 B; F = 6·1.75e11·8192 = 8.6016e15 flop;
    B/F = 8.138e-5 B/flop; β/R = 2.5e10/3.12e14 = 8.0128e-5 B/flop; F/R = 27.569 s (distributed.md §5)."""
    r = Scenarios.Gpt3DataParallelIntensity.result
    assert r.local_tokens == 8192 and type(r.local_tokens) is int
    assert r.bytes_per_step.to("byte").magnitude == pytest.approx(2 * 2 * P, rel=1e-15) == pytest.approx(7e11)
    assert r.flops_per_step.to("flop").magnitude == pytest.approx(6 * P * 8192, rel=1e-15)
    assert r.flops_per_step.to("flop").magnitude == pytest.approx(8.6016e15, rel=1e-12)
    assert r.intensity.to("byte/flop").magnitude == pytest.approx(8.138020833333333e-05, rel=1e-12)
    assert r.intensity.to("byte/flop").magnitude == pytest.approx(7e11 / 8.6016e15, rel=1e-15)
    assert r.balance.to("byte/flop").magnitude == pytest.approx(8.012820512820513e-05, rel=1e-12)
    assert r.balance.to("byte/flop").magnitude == pytest.approx(HDR / A100_PEAK, rel=1e-15)
    assert r.compute_time_at_peak.to("s").magnitude == pytest.approx(27.569230769230767, rel=1e-12)


def test_question_sequences_at_which_intensity_meets_balance():
    """2·2P/(6·P·n·C) = β/R  ⇒  n = 2R/(3·β·C) = 2·3.12e14/(3·2.5e10·2048) = 4.0625."""
    solution = solve(Declared.model, "sequences_per_worker", "result.intensity", "result.balance",
                     args=Scenarios.Gpt3DataParallelIntensity._args)
    assert solution.values == [pytest.approx(2 * A100_PEAK / (3 * HDR * C), rel=1e-12)]
    assert solution.values == [pytest.approx(4.0625, rel=1e-12)]
    s = Scenarios.Gpt3DataParallelIntensity
    assert s.result.intensity > s.result.balance  # at 4 the link is the limit
    assert s.variant(sequences_per_worker=5).result.intensity < s.result.balance


def test_zero_bandwidth_and_a_node_without_precision_keys():
    """A zero link has balance 0; CS-3 (125 PFLOP/s headline) over 200 Gb/s: 2.5e10/1.25e17 = 2e-7 B/flop."""
    s = Scenarios.Gpt3DataParallelIntensity
    assert s.variant(link_bandwidth=0).result.balance.magnitude == 0
    cs3 = s.variant(accelerator=Hardware.Cloud.Cerebras_CS3).result
    assert cs3.balance.to("byte/flop").magnitude == pytest.approx(2e-07, rel=1e-12)


@pytest.mark.parametrize(("changes", "error", "match"), [
    ({"workload": Models.Language.Llama2_70B}, MissingInputError, "context_length is not set"),
    ({"workload": Models.Vision.ResNet50}, InputTypeError, "expected a TransformerWorkload"),
    ({"sequences_per_worker": 0}, ScenarioInputError, "'sequences_per_worker' got 0"),
    ({"sequences_per_worker": 2.5}, ScenarioInputError, "sequences_per_worker"),
    ({"link_bandwidth": -1}, ScenarioInputError, "'link_bandwidth' got -1"),
    ({"link_bandwidth": Q_(8, "s")}, ScenarioInputError, "link_bandwidth"),
])
def test_domains(changes, error, match):
    with pytest.raises(error, match=match):
        Scenarios.Gpt3DataParallelIntensity.variant(**changes)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 10**6), beta=st.just(0.0) | st.floats(1e-3, 1e5), p=st.floats(1e6, 1e13),
       c=st.integers(1, 10**6), peak=st.floats(1e9, 1e18))
def test_evaluator_equals_exact_sympy(n, beta, p, c, peak):
    s = Scenarios.Gpt3DataParallelIntensity.variant(sequences_per_worker=n, link_bandwidth=beta)
    args = {**s._args, "workload_parameters": p, "workload_context_length": c, "accelerator_peak_flops": peak}
    got = flatten(evaluate(**args))
    assert_matches_exact(got, exact_outputs(Declared.model, args), rel=1e-11)
