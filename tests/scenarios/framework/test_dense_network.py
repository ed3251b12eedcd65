"""DenseNetworkScenario: registry values, any depth against an independent calculation, exact sympy."""

from __future__ import annotations

import math

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from dense_reference import dense
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import DatasetProfile, Datasets, DenseNetworkScenario, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.framework.dense_network import DenseNetworkScenario as Declared

# REFERENCE §9.4: widths, batch, parameters, forward_flops, intensity, training_step_flops, steps
REGISTRY = [
    ("MnistDenseNetwork", [784, 128, 64, 10], 32, 109386, 7000704, 11.899321466936811, 14540800, 1875),
    ("MnistDenseNetworkWiderHidden", [784, 256, 128, 10], 32, 235146, 15049344, 13.195160102409428, 32227328, 1875),
    ("MnistDenseNetworkDoubledInputSide", [3136, 128, 64, 10], 32, 410442, 26268288, 12.54689894192227, 53075968, 1875),
    ("MnistDenseNetworkLargeBatch", [784, 128, 64, 10], 1024, 109386, 224022528, 42.56853376789409, 465305600, 58),
]


def compare(result, expected: dict) -> None:
    """Every field of ``result`` (a Result) against the hand calculation, Quantities in base units."""
    for name, want in expected.items():
        got = getattr(result, name)
        if isinstance(want, list):
            got = [g.to_base_units().magnitude if hasattr(g, "units") else g for g in got]
            assert got == want, name
            continue
        if hasattr(got, "units"):
            got = got.to_base_units().magnitude
        if want is None or isinstance(want, int):
            assert got == want, name
        else:
            assert math.isclose(got, want, rel_tol=1e-12), name


@pytest.mark.parametrize("key, widths, b, parameters, forward, intensity, training, steps", REGISTRY)
def test_registry_entries(key, widths, b, parameters, forward, intensity, training, steps):
    s = getattr(Scenarios, key)
    r = s.result
    assert s.layer_widths == widths and s.batch_size == b
    assert r.parameters == parameters and isinstance(r.parameters, int)
    assert r.forward_flops == Q_(forward, "flop")
    assert r.intensity.to("flop/byte").magnitude == pytest.approx(intensity, rel=1e-12)
    assert r.training_step_flops.magnitude == training
    assert r.steps_per_epoch == steps
    assert s.architecture == " → ".join(map(str, widths))
    compare(r, dense(widths, b, 4, 8, 60000))


def test_reference_doc_examples():
    assert Scenarios.MnistDenseNetwork.architecture == "784 → 128 → 64 → 10"
    assert Scenarios.MnistDenseNetwork.result.parameters == 109386
    assert Scenarios.MnistDenseNetworkLargeBatch.result.steps_per_epoch == 58


def test_steps_per_epoch_is_none_without_a_count():
    base = Scenarios.MnistDenseNetwork
    assert base.variant(dataset=None).result.steps_per_epoch is None
    assert base.variant(dataset=Datasets.CriteoKaggle).result.steps_per_epoch is None
    assert base.variant(dataset=DatasetProfile(name="mine", training_examples=100)).result.steps_per_epoch == 3
    assert base.variant(dataset=DatasetProfile(name="tiny", training_examples=10)).result.steps_per_epoch == 0


@pytest.mark.parametrize("widths", [[784], [], [784, 0, 10], [784, -3, 10], [784, 2.5, 10], "784,10", [True, 3]])
def test_bad_widths(widths):
    with pytest.raises(ScenarioInputError, match="layer_widths"):
        Scenarios.MnistDenseNetwork.variant(layer_widths=widths)


RANDOM_NETWORKS = dict(
    widths=st.lists(st.integers(1, 5000), min_size=2, max_size=9),
    b=st.integers(1, 4096),
    v=st.sampled_from([0.5, 1, 2, 4]),
    q=st.sampled_from([0, 4, 8, 12]),
    examples=st.none() | st.integers(0, 10**7),
)


def _network(widths, b, v, q, examples):
    dataset = None if examples is None else DatasetProfile(name="random", training_examples=examples)
    return DenseNetworkScenario(layer_widths=widths, batch_size=b, bytes_per_value=v, optimizer_bytes_per_parameter=q,
                                dataset=dataset)


@settings(max_examples=120, deadline=None)
@given(**RANDOM_NETWORKS)
def test_any_depth_against_hand_calculation(widths, b, v, q, examples):
    compare(_network(widths, b, v, q, examples).result, dense(widths, b, v, q, examples))


# Exact sympy costs ~0.4 s an example (the hand calculation a millisecond): fewer examples here
@settings(max_examples=8, deadline=None)
@given(**RANDOM_NETWORKS)
def test_any_depth_against_exact_sympy(widths, b, v, q, examples):
    s = _network(widths, b, v, q, examples)
    exact = exact_outputs(Declared.model, s._args)
    got = flatten(s.evaluate())
    assert_matches_exact({k: v for k, v in got.items() if k != "architecture"}, exact)


def test_one_evaluator_serves_every_depth_and_widths_stay_exact():
    deep = DenseNetworkScenario(layer_widths=[10**6] * 9, batch_size=10**6, bytes_per_value=2,
                                optimizer_bytes_per_parameter=8)
    assert deep.result.layers == 8
    assert deep.result.matmul_flops.magnitude == 8 * 2 * 10**6 * 10**12  # exact int beyond 2**53
    assert isinstance(deep.result.parameters, int)
