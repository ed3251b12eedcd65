"""The class API: keywords, Quantities in any unit, variant(), immutability and clear errors."""

from __future__ import annotations

import pytest

from generated import (
    Hardware,
    HardwareNode,
    HostDispatchScenario,
    InputTypeError,
    MissingInputError,
    MlpTrainingStepScenario,
    Q_,
    ScenarioInputError,
    Scenarios,
)

MNIST = Scenarios.MnistTwoLayerTrainingStepOnH100


def test_quantities_in_any_compatible_unit_equal_bare_numbers_in_the_declared_unit():
    a = HostDispatchScenario(ops_per_block=2, dispatch=Q_(0.01, "ms"), launch=Q_(5000, "ns"), device_time=Q_(1, "ms"))
    b = HostDispatchScenario(ops_per_block=2, dispatch=10, launch=5, device_time=1000)
    assert a.host_time.magnitude == pytest.approx(b.host_time.magnitude)
    assert a.overhead_ratio == pytest.approx(b.overhead_ratio)
    assert MNIST.variant(bytes_per_value=Q_(32, "bit")).total_bytes == MNIST.total_bytes


def test_variant_validates_and_keeps_name():
    v = MNIST.variant(batch_size=64)
    assert v.batch_size == 64 and v.name == MNIST.name and MNIST.batch_size == 32
    assert v.op_flops["matmul1"].magnitude == 2 * MNIST.op_flops["matmul1"].magnitude
    with pytest.raises(ScenarioInputError, match="batch_size"):
        MNIST.variant(batch_size=0)
    with pytest.raises(ScenarioInputError, match="did you mean batch_size"):
        MNIST.variant(batchsize=3)


def test_instances_are_immutable():
    with pytest.raises(AttributeError, match="variant"):
        MNIST.batch_size = 3


@pytest.mark.parametrize(
    "changes, error, words",
    [
        ({"batch_size": 2.5}, ScenarioInputError, ["batch_size", "2.5", "integer"]),
        ({"batch_size": "32"}, InputTypeError, ["batch_size", "str"]),
        ({"batch_size": True}, InputTypeError, ["batch_size", "bool"]),
        ({"batch_size": -1}, ScenarioInputError, ["batch_size", "-1", "≥ 1"]),
        ({"bytes_per_value": 0}, ScenarioInputError, ["bytes_per_value", "> 0 byte"]),
        ({"bytes_per_value": Q_(4, "s")}, ScenarioInputError, ["bytes_per_value", "[data]"]),
        ({"dispatch": float("nan")}, ScenarioInputError, ["dispatch", "nan"]),
        ({"dispatch": float("inf")}, ScenarioInputError, ["dispatch", "inf"]),
        ({"dispatch": Q_(3, "byte")}, ScenarioInputError, ["dispatch", "[time]"]),
        ({"precision": "fp4"}, ScenarioInputError, ["precision", "'fp4'", "NVIDIA H100", "fp16_dense", "fp32", "peak"]),
        ({"precision": 16}, InputTypeError, ["precision"]),
        ({"hardware": "H100"}, InputTypeError, ["hardware", "HardwareNode"]),
        ({"hidden": 3}, ScenarioInputError, ["unknown input 'hidden'", "hidden_width"]),
    ],
)
def test_bad_inputs_name_the_input_value_and_expectation(changes, error, words):
    with pytest.raises(error) as caught:
        MNIST.variant(**changes)
    message = str(caught.value)
    assert "MlpTrainingStepScenario" in message
    for word in words:
        assert word in message


def test_missing_required_and_node_without_precisions():
    with pytest.raises(MissingInputError, match="device_time"):
        HostDispatchScenario(ops_per_block=1, dispatch=1, launch=1)
    with pytest.raises(ScenarioInputError, match="lists: peak"):  # no precision table: the headline only
        MNIST.variant(hardware=Hardware.Mobile.iPhone15Pro)


def test_integral_floats_become_exact_ints():
    s = MNIST.variant(batch_size=64.0)
    assert s.batch_size == 64 and isinstance(s.op_flops["matmul1"].magnitude, int)


def test_hardware_node_validation():
    with pytest.raises(ScenarioInputError, match="memory_bandwidth"):
        HardwareNode(name="x", precision_flops={}, memory_bandwidth=Q_(1, "TFLOP/s"))
    with pytest.raises(ScenarioInputError, match="precision_flops\\['fp32'\\]"):
        HardwareNode(name="x", precision_flops={"fp32": Q_(-1, "TFLOP/s")}, memory_bandwidth=Q_(1, "TB/s"))
    node = HardwareNode(name="x", precision_flops={"fp32": 1e12}, memory_bandwidth=1e11, memory_capacity=Q_(8, "GiB"))
    assert node.ridge_point("fp32").to("flop/byte").magnitude == pytest.approx(10)
    assert node.memory_capacity == Q_(8, "GiB")


def test_defaults_and_outputs_listing():
    s = MlpTrainingStepScenario(**{**MNIST.inputs(), "precision": "fp32"})
    assert s.precision == "fp32"
    assert set(s.outputs()) >= {"op_flops", "host", "compute_time"}
    assert MlpTrainingStepScenario.input_names()[0] == "batch_size"
