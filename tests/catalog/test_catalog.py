"""The catalog: every node of REFERENCE §8.5, datasets, constants, attribute lookup."""

from __future__ import annotations

import pytest

from generated import Constants, Datasets, Hardware, Q_
from symbolic.catalog import hardware_records

TIER_SIZES = {"Cloud": 31, "Workstation": 3, "Mobile": 4, "Edge": 8, "Tiny": 6}


def test_all_52_nodes_by_tier():
    assert {tier: len(getattr(Hardware, tier)) for tier in Hardware} == TIER_SIZES
    assert len(hardware_records()) == 52


def test_lookup_and_published_values():
    h100 = Hardware.Cloud.H100
    assert h100.name == "NVIDIA H100"
    assert h100.precisions == ("tf32", "fp16_dense", "fp16_sparse", "fp8", "int8", "tf32_sparse", "int8_sparse", "fp32")
    assert h100.precision_flops["fp32"] == Q_(67.0, "TFLOP/s")
    assert h100.precision_flops["int8"] == Q_(1979, "TOPS")
    assert h100.memory_bandwidth == Q_(3.35, "TB/s")
    assert h100.memory_capacity == Q_(80, "GiB")
    assert h100.bandwidth_bytes_per_second == 3.35e12
    assert Hardware.Tiny.STM32F4.memory_capacity.to("byte").magnitude == 192 * 1024
    with pytest.raises(AttributeError, match="did you mean H100"):
        _ = Hardware.Cloud.H10


@pytest.mark.parametrize("record", hardware_records(), ids=lambda r: r.path)
def test_generated_catalog_matches_data_files(record):
    node = getattr(getattr(Hardware, record.tier), record.key)
    assert node.name == record.name
    assert node.precisions == tuple(record.precision_flops)
    for key, published in record.precision_flops.items():
        assert node.peak_flops_per_second(key) == Q_(published.text).to("flop/s").magnitude
    assert node.bandwidth_bytes_per_second == pytest.approx(Q_(record.memory_bandwidth.text).to("byte/s").magnitude)


def test_datasets_and_constants():
    assert Datasets.MNIST.training_examples == 60000
    assert Datasets.MNIST.image_width * Datasets.MNIST.image_height == 784
    assert Datasets.CriteoKaggle.training_examples is None
    assert Constants.RuntimeOverheads.PythonDispatch == Q_(10, "µs")
    assert Constants.RuntimeOverheads.KernelLaunch == Q_(5, "µs")
    assert Constants.ByteWidths.FP32 == Q_(4, "byte")
    assert Constants.ByteWidths.INT4 == Q_(0.5, "byte")
    assert Constants.Energy.DramPerByte == Q_(160.0, "pJ/byte")
