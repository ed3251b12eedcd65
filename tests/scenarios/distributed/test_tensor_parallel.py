"""TensorParallelScenario: both registry entries by hand, the bandwidth question, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import MissingInputError, Models, Q_, ScenarioInputError, Scenarios
from generated.tensor_parallel import evaluate
from symbolic.analysis.solving import solve
from symbolic.scenarios.distributed.tensor_parallel import TensorParallelScenario as Declared

NVLINK = 450e9  # byte/s, H100 per direction


@pytest.mark.parametrize(("entry", "b", "s", "h", "layers", "k", "compute_ms", "listed"), [
    # distributed.md §6: payload, traffic, n, per-collective ms, communication ms, step ms, fractions
    ("Gpt3TensorParallelStepDgxH100", 4, 2048, 12288, 96, 2, 200,
     (201326592, 352321536.0, 192, 0.7829367466666667, 150.32385536, 350.32385536000004, 0.5709003167782447,
      0.42909968322175523)),
    ("Llama2_70BNodeTensorParallelStep", 1, 2204, 8192, 80, 4, 180,
     (36110336, 63193088.0, 320, 0.14042908444444444, 44.93730702222222, 224.93730702222223, 0.8002229704929172,
      0.19977702950708276)),
])
def test_registry_entries_by_hand(entry, b, s, h, layers, k, compute_ms, listed):
    """A = b·s·h·2 B; F(8) = 2·7/8 = 1.75; n = k·L; per = 1.75·A/β; comm = n·per; step = compute + comm."""
    r = getattr(Scenarios, entry).result
    payload = b * s * h * 2
    per_ms = 1.75 * payload / NVLINK * 1e3
    comm_ms = k * layers * per_ms
    assert r.payload.to("byte").magnitude == payload == listed[0]
    assert r.ring_factor == 1.75
    assert r.traffic_per_device.to("byte").magnitude == pytest.approx(1.75 * payload, rel=1e-15)
    assert r.traffic_per_device.to("byte").magnitude == pytest.approx(listed[1], rel=1e-12)
    assert r.collectives_per_step == k * layers == listed[2] and type(r.collectives_per_step) is int
    assert r.per_collective_time.to("ms").magnitude == pytest.approx(per_ms, rel=1e-12)
    assert r.per_collective_time.to("ms").magnitude == pytest.approx(listed[3], rel=1e-12)
    assert r.communication_time.to("ms").magnitude == pytest.approx(comm_ms, rel=1e-12)
    assert r.communication_time.to("ms").magnitude == pytest.approx(listed[4], rel=1e-12)
    assert r.compute_time == Q_(compute_ms, "ms")
    assert r.step_time.to("ms").magnitude == pytest.approx(compute_ms + comm_ms, rel=1e-12)
    assert r.step_time.to("ms").magnitude == pytest.approx(listed[5], rel=1e-12)
    assert r.compute_fraction == pytest.approx(compute_ms / (compute_ms + comm_ms), rel=1e-12)
    assert r.compute_fraction == pytest.approx(listed[6], rel=1e-12)
    assert r.communication_fraction == pytest.approx(listed[7], rel=1e-12)


def test_seq_len_defaults_to_the_context_and_is_needed_without_it():
    s = Scenarios.Gpt3TensorParallelStepDgxH100
    assert s.seq_len is None and s.variant(seq_len=2048).result.payload == s.result.payload
    llama = s.variant(workload=Models.Language.Llama2_70B)  # no context_length
    with pytest.raises(MissingInputError, match="context_length"):
        _ = llama.result.payload
    assert llama.variant(seq_len=4).result.payload.to("byte").magnitude == 4 * 4 * 8192 * 2


def test_one_device_and_no_collectives_do_not_communicate():
    s = Scenarios.Gpt3TensorParallelStepDgxH100
    for changes in ({"tp_size": 1}, {"collectives_per_layer": 0}):
        r = s.variant(**changes).result
        assert r.communication_time.magnitude == 0 and r.compute_fraction == 1 and r.communication_fraction == 0


def test_question_bandwidth_for_a_tenth_of_the_step():
    """comm = step/10 ⇔ comm = compute/9: β = 450 GB/s · 150.32385536/(200/9) = 3044.06 GB/s (CLI path:
    the instance's seq_len is its default, the workload's context length)."""
    expected = 450 * 150.32385536 / (200 / 9)
    solution = solve(Scenarios.Gpt3TensorParallelStepDgxH100, "link_bandwidth", "result.communication_fraction", 0.1)
    assert solution.values == [pytest.approx(expected, rel=1e-12)]
    at = Scenarios.Gpt3TensorParallelStepDgxH100.variant(link_bandwidth=expected)
    assert at.result.communication_fraction == pytest.approx(0.1, rel=1e-12)
    # solving for the input the default reads keeps the dependence: s = 2048 · (200/9)/150.32... tokens
    context = solve(Scenarios.Gpt3TensorParallelStepDgxH100, "workload_context_length",
                    "result.communication_fraction", 0.1)
    assert context.values == [pytest.approx(2048 * (200 / 9) / 150.32385536, rel=1e-12)]


@pytest.mark.parametrize(("changes", "match"), [
    ({"tp_size": 0}, "'tp_size' got 0"),
    ({"microbatch": 0}, "'microbatch' got 0"),
    ({"link_bandwidth": 0}, "'link_bandwidth' got 0"),
    ({"compute_time": 0}, "'compute_time' got 0"),
    ({"compute_time": Q_(1, "GB")}, "compute_time"),
    ({"seq_len": 0}, "'seq_len' got 0"),
    ({"collectives_per_layer": -1}, "'collectives_per_layer' got -1"),
])
def test_domains(changes, match):
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.Gpt3TensorParallelStepDgxH100.variant(**changes)


@settings(max_examples=40, deadline=None)
@given(t=st.integers(1, 1024), b=st.integers(1, 4096), beta=st.floats(1e-3, 1e5), tc=st.floats(1e-6, 1e6),
       s=st.integers(1, 10**6), k=st.integers(0, 8), layers=st.integers(1, 200), h=st.integers(1, 10**5))
def test_evaluator_equals_exact_sympy(t, b, beta, tc, s, k, layers, h):
    args = {"tp_size": t, "microbatch": b, "link_bandwidth": beta, "compute_time": tc, "seq_len": s,
            "collectives_per_layer": k, "workload_layers": layers, "workload_hidden_dim": h,
            "workload_context_length": None}
    assert_matches_exact(flatten(evaluate(**args)), exact_outputs(Declared.model, args), rel=1e-11)
