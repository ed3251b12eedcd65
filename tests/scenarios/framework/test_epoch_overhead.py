"""EpochOverheadScenario: the registry entry, both roofline branches, composition, clear errors."""

from __future__ import annotations

import math

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten, table_paths
from dense_reference import epoch
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (
    DatasetProfile,
    DenseNetworkScenario,
    EpochOverheadScenario,
    Hardware,
    MissingInputError,
    ScenarioInputError,
    Scenarios,
)
from symbolic.catalog import hardware_records
from symbolic.scenarios.framework.epoch_overhead import EpochOverheadScenario as Declared

ENTRY = Scenarios.MnistEpochCpuVersusH100
FP32_NODES = [r.path for r in hardware_records() if "fp32" in r.precision_flops]


def node(path: str):
    tier, key = path.split(".")
    return getattr(getattr(Hardware, tier), key)


def test_registry_entry_reference_values():
    """REFERENCE §9.5."""
    r = ENTRY.result
    assert r.steps == 1875 and r.ops_per_step == 12 and r.step_flops.magnitude == 14540800
    expected = {
        "rate_batch1": (24733638435.657177, 1657153775189.0308, "flop/s"),
        "rate": (594966073346.8406, 39862726914238.32, "flop/s"),
        "ridge": (20.0, 20.0, "flop/byte"),
        "work_time": (45.82446163128736, 0.6839471885266771, "ms"),
        "overhead_time": (225.0, 337.5, "ms"),
        "total_time": (270.82446163128736, 338.1839471885267, "ms"),
    }
    for field, (host, accelerator, unit) in expected.items():
        values = getattr(r, field)
        assert values["host"].to(unit).magnitude == pytest.approx(host, rel=1e-9), field
        assert values["accelerator"].to(unit).magnitude == pytest.approx(accelerator, rel=1e-9), field
    assert r.batching_speedup["host"] == pytest.approx(24.05493534219007, rel=1e-9)
    assert r.work_speedup == pytest.approx(67.0, rel=1e-12)
    assert r.overhead_share_accelerator == pytest.approx(0.9979775882497893, rel=1e-9)
    assert r.movement_to_arithmetic_energy == pytest.approx(5.846149932548397, rel=1e-9)
    assert r.movement_to_arithmetic_energy_batch1 == pytest.approx(140.62875862820056, rel=1e-9)
    assert ENTRY.flop_energy.to("pJ/flop").magnitude == pytest.approx(2.3)


def test_composition_matches_the_network_at_both_batches():
    """The epoch's rates come from the network itself at its batch and at batch 1."""
    network = ENTRY.network
    single = network.variant(batch_size=1)
    bw = Hardware.Cloud.ReferenceCPU.bandwidth_bytes_per_second
    assert ENTRY.result.rate["host"].magnitude == pytest.approx(bw * network.result.intensity.magnitude, rel=1e-12)
    assert ENTRY.result.rate_batch1["host"].magnitude == pytest.approx(bw * single.result.intensity.magnitude,
                                                                        rel=1e-12)


@pytest.mark.parametrize(
    "widths, batch, bound",
    [([784, 128, 64, 10], 32, "memory"), ([4096, 4096, 4096], 4096, "compute")],
)
def test_both_roofline_branches(widths, batch, bound):
    network = DenseNetworkScenario(layer_widths=widths, batch_size=batch, bytes_per_value=4,
                                   optimizer_bytes_per_parameter=8,
                                   dataset=DatasetProfile(name="d", training_examples=10 * batch))
    s = ENTRY.variant(network=network)
    for machine in ("host", "accelerator"):
        peak = s.result.peak[machine].magnitude
        rate = s.result.rate[machine].magnitude
        assert (rate == peak) == (bound == "compute"), machine


RANDOM_EPOCHS = dict(
    widths=st.lists(st.integers(1, 8192), min_size=2, max_size=9),
    b=st.integers(1, 8192),
    host=st.sampled_from(FP32_NODES), accelerator=st.sampled_from(FP32_NODES),
    d=st.floats(0, 100, allow_subnormal=False), ell=st.floats(0, 100, allow_subnormal=False),
)


@settings(max_examples=100, deadline=None)
@given(**RANDOM_EPOCHS)
def test_random_networks_and_nodes_against_hand_calculation(widths, b, host, accelerator, d, ell):
    check_random_epoch(widths, b, host, accelerator, d, ell, exactly=False)


# Exact sympy costs ~0.7 s an example (the hand calculation a millisecond): fewer examples here
@settings(max_examples=8, deadline=None)
@given(**RANDOM_EPOCHS)
def test_random_networks_and_nodes_against_exact_sympy(widths, b, host, accelerator, d, ell):
    check_random_epoch(widths, b, host, accelerator, d, ell, exactly=True)


def check_random_epoch(widths, b, host, accelerator, d, ell, exactly):
    examples = b * 7 + 3
    network = DenseNetworkScenario(layer_widths=widths, batch_size=b, bytes_per_value=4,
                                   optimizer_bytes_per_parameter=8,
                                   dataset=DatasetProfile(name="d", training_examples=examples))
    s = EpochOverheadScenario(network=network, host=node(host), accelerator=node(accelerator), dispatch=d,
                              launch=ell, dram_energy_per_byte=160, flop_energy=2.3)
    peaks = {"host": node(host).peak_flops_per_second("fp32"), "accelerator": node(accelerator).peak_flops_per_second("fp32")}
    bws = {"host": node(host).bandwidth_bytes_per_second, "accelerator": node(accelerator).bandwidth_bytes_per_second}
    expected = epoch(widths, b, 4, 8, examples, peaks, bws, d, ell, 160, 2.3)
    result = s.evaluate()["result"]
    if exactly:
        exact = exact_outputs(Declared.model, s._args)
        tables = {"peak", "bandwidth", "ridge", "rate_batch1", "rate", "batching_speedup", "work_time", "per_op_cost",
                  "overhead_time", "total_time"}
        got = table_paths(flatten(s.evaluate()), tables)
        assert set(got) == {name for name in exact if not name.startswith(("batched.", "single."))}
        assert_matches_exact(got, {name: exact[name] for name in got})
        return
    for name, want in expected.items():
        got = result[name]
        if isinstance(want, dict):
            for machine in want:
                assert math.isclose(got[machine], want[machine], rel_tol=1e-12, abs_tol=1e-12), (name, machine)
        else:
            assert got == want if isinstance(want, int) else math.isclose(got, want, rel_tol=1e-12), name


def test_precision_missing_on_either_node_lists_what_it_has():
    with pytest.raises(ScenarioInputError, match="Reference Desktop CPU does not list; precisions it lists: fp32"):
        ENTRY.variant(precision="tf32")
    with pytest.raises(ScenarioInputError, match="iPhone 15 Pro .* lists: peak"):
        ENTRY.variant(accelerator=Hardware.Mobile.iPhone15Pro)


def test_network_needs_a_dataset_of_at_least_one_batch():
    with pytest.raises(MissingInputError, match="at least batch_size training examples.*not given"):
        ENTRY.variant(network=ENTRY.network.variant(dataset=None))
    small = ENTRY.network.variant(dataset=DatasetProfile(name="small", training_examples=31))
    with pytest.raises(ScenarioInputError, match="at least batch_size training examples"):
        ENTRY.variant(network=small)
    with pytest.raises(ScenarioInputError, match="network"):
        ENTRY.variant(network=ENTRY.network.result)


def test_measured_operation_counts_and_step_overhead_by_hand():
    """The MNIST epoch (1875 steps of the 3-layer network): 10 operations per layer instead of the
    reference's 4 make 30 per step; a fixed 100 µs per step adds 1875 x 100 µs = 187.5 ms to each
    machine's overhead, and 18 more operations per step add 1875 x 18 x d on the host."""
    base = Scenarios.MnistEpochCpuVersusH100
    measured = base.variant(ops_per_layer=10, step_overhead=100)
    assert base.result.ops_per_step == 12 and measured.result.ops_per_step == 30
    dispatch = base.dispatch.to("ms").magnitude
    added = measured.result.overhead_time["host"] - base.result.overhead_time["host"]
    assert added.to("ms").magnitude == pytest.approx(187.5 + 1875 * 18 * dispatch)
