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
        assert out["op_flops[matmul1]"][row] == scalar.op_flops["matmul1"].magnitude
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
    assert out["op_flops[matmul1]"][0] == pytest.approx(2e20, rel=1e-15)


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


def test_a_failing_requirement_that_reads_an_absent_optional_input_names_the_point():
    # the chat service's KV reserve requirement reads the workload's sliding window, absent for Llama-3-8B:
    # at 940 bytes per KV value one request's cache outgrows the reserve (found by tests/physics/test_fuzz.py)
    chat = Scenarios.Llama3_8BInt4ChatServiceH100
    with pytest.raises(ScenarioInputError, match="kv_reserve must hold.*first at .*kv_bytes_per_value=940"):
        sweep(chat, {"kv_bytes_per_value": 940.0})


# -- units, shapes and naming: the same conversion and checks as variant() ----------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from generated import Q_  # noqa: E402
from symbolic.runtime.analysis import flat_outputs  # noqa: E402

COMPATIBLE = {"µs": ["µs", "ms", "s", "ns"], "byte": ["byte", "bit", "kB", "KiB"], "": ["", "count"]}


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_sweep_values_convert_like_variant_element_by_element(data):
    """A Quantity array (or a list of Quantities) in any compatible unit sweeps to exactly
    what variant() gives for each element: the unit is converted, never stripped."""
    cases = [(STEP, "dispatch", "µs"), (STEP, "bytes_per_value", "byte"),
             (Scenarios.PhoneFullUpdateWorkingSet, "bytes_per_param", "byte")]
    base, name, declared = data.draw(st.sampled_from(cases))
    spelling = data.draw(st.sampled_from(COMPATIBLE[declared]))
    magnitudes = data.draw(st.lists(st.sampled_from([1, 2, 4, 8, 16, 1000]), min_size=1, max_size=4))
    as_list = data.draw(st.booleans())
    values = [Q_(m, spelling) for m in magnitudes] if as_list else Q_(np.array(magnitudes), spelling)
    try:
        expected = [base.variant(**{name: Q_(m, spelling)}) for m in magnitudes]
    except ScenarioInputError:
        with pytest.raises(ScenarioInputError, match=name):
            sweep(base, {name: values})
        return
    out = sweep(base, {name: values})
    for row, scenario in enumerate(expected):
        assert out.inputs[name][row] == pytest.approx(scenario._args[name], rel=1e-12)
        for path, (value, unit) in flat_outputs(scenario).items():
            assert out[path][row] == pytest.approx(value, rel=1e-12, abs=1e-300), path
            assert out.units[path] == unit


def test_the_issue_example_reads_milliseconds_as_milliseconds():
    out = sweep(STEP, {"dispatch": Q_(np.array([0.001, 0.005]), "ms")})
    assert out.inputs["dispatch"].tolist() == pytest.approx([1.0, 5.0])  # µs
    assert out["host.dispatch_time"].tolist() == pytest.approx([5.0, 25.0])  # 5 operations


@pytest.mark.parametrize("values", [Q_(np.array([1, 2]), "flop"), [Q_(1, "ms"), Q_(1, "byte")], Q_(np.array([1]), "")])
def test_a_wrong_dimension_is_refused_element_by_element(values):
    with pytest.raises(ScenarioInputError, match="dispatch"):
        sweep(STEP, {"dispatch": values})


def test_bits_are_read_as_bits():
    out = sweep(Scenarios.PhoneFullUpdateWorkingSet, {"bytes_per_param": Q_(np.array([8, 16]), "bit")})
    assert out.inputs["bytes_per_param"].tolist() == [1.0, 2.0]


@pytest.mark.parametrize("varied", [{"batch_size": [[1, 2], [3]]}, {"batch_size": [1, 2, 3], "hidden_width": [1, 2]},
                                    {"batch_size": [[1, 2]], "hidden_width": [[1], [2], [3]], "input_width": [1, 2, 3]},
                                    {"batch_size": [1, 10**400]}, {"batch_size": [True, False]}, {}, []])
def test_ragged_or_unbroadcastable_shapes_are_typed_errors(varied):
    with pytest.raises(ScenarioInputError):
        sweep(STEP, varied)


def test_sweep_keys_are_named_as_everywhere_else():
    out = sweep(Scenarios.MnistEpochCpuVersusH100, {"dispatch": [1.0, 2.0]})
    assert set(out) == set(flat_outputs(Scenarios.MnistEpochCpuVersusH100))
    assert "result.total_time[accelerator]" in out and out.units["result.total_time[accelerator]"] == "ms"
    assert out.quantity("result.total_time[accelerator]").units == Q_(1, "ms").units
    assert "dispatch [µs]" in repr(out)


def test_a_failed_requirement_names_the_first_swept_point_and_a_class_is_refused_clearly():
    import mlsysym
    from generated import Scenarios
    from symbolic.runtime.errors import ScenarioInputError

    one_gpu = Scenarios.HierarchicalAllReduce8x8DgxH100.variant(gpus_per_node=1)
    with pytest.raises(ScenarioInputError, match=r"at least two devices; fails for some swept values, first at "
                                                 r"n_nodes=1, gpus_per_node=1$"):
        mlsysym.sweep(one_gpu, {"n_nodes": [2, 1, 3]})
    cls = type(one_gpu)
    for call in (lambda: mlsysym.sweep(cls, {"n_nodes": [2]}), lambda: mlsysym.sensitivity(cls, "result.total_time"),
                 lambda: mlsysym.compare(cls, cls), lambda: mlsysym.sweep("HierarchicalAllReduce8x8DgxH100", {})):
        with pytest.raises(ScenarioInputError, match="needs a scenario instance .*got (the class Hierarchical|str)"):
            call()


def test_rows_of_quantity_arrays_keep_their_units():
    """numpy.asarray of a list of Quantity arrays strips the units (a warning, then ms read as
    the declared µs, 1000x too small); each row is converted on its own, then stacked."""
    rows = [Q_(np.array([1, 2]), "ms"), Q_([3, 4], "s")]
    out = sweep(STEP, {"dispatch": rows})
    assert out.inputs["dispatch"].tolist() == [[1000.0, 2000.0], [3e6, 4e6]]  # µs
    assert out["host.dispatch_time"].tolist() == [[5000.0, 10000.0], [1.5e7, 2e7]]  # 5 operations each
    assert sweep(STEP, {"dispatch": [[Q_(1, "ms"), 2]]}).inputs["dispatch"].tolist() == [[1000.0, 2.0]]
    with pytest.raises(ScenarioInputError, match=r"dispatch' do not form a rectangular array \(rows of shapes"):
        sweep(STEP, {"dispatch": [Q_([1, 2], "ms"), Q_([1], "ms")]})
    with pytest.raises(ScenarioInputError, match="dispatch"):
        sweep(STEP, {"dispatch": [Q_([1, 2], "ms"), Q_([1, 2], "m")]})


@pytest.mark.parametrize("values", [b"12", bytearray(b"12"), memoryview(b"12"), "12"])
def test_bytes_are_not_read_as_their_codes(values):
    """numpy reads b"12" as the uint8 codes 49 and 50: batch sizes nobody gave."""
    with pytest.raises(ScenarioInputError, match=r"batch_size' must be numbers, got (bytes|bytearray|memoryview|str)"):
        sweep(STEP, {"batch_size": values})


def test_masked_entries_are_refused_not_swept():
    """numpy.asarray drops a mask: the value under a masked (missing) entry would be swept."""
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    for values in (masked, Q_(masked, "ms")):
        with pytest.raises(ScenarioInputError, match=r"dispatch' have masked \(missing\) entries, the first at \[1\]"):
            sweep(STEP, {"dispatch": values})
    assert sweep(STEP, {"dispatch": np.ma.masked_array([1.0, 2.0])}).inputs["dispatch"].tolist() == [1.0, 2.0]


def test_a_quantity_of_ints_beyond_int64_converts_like_a_scalar_input():
    out = sweep(STEP, {"batch_size": Q_(2**70, "")})
    assert out.inputs["batch_size"].item() == float(2**70)
    out = sweep(STEP, {"batch_size": Q_([2**70, 2], "")})
    assert out.inputs["batch_size"].tolist() == [float(2**70), 2.0]


def test_a_long_double_past_double_range_is_named_as_given():
    with pytest.raises(ScenarioInputError, match=r"dispatch' got 1e\+400"):
        sweep(STEP, {"dispatch": np.array([np.longdouble("1e400")])})
