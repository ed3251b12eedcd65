"""Hardware fields beyond the roofline (catalog.md §B), the Systems catalog (§C) and the new constants
(§D), every value through ``generated``; links' and memories' derived quantities; precision names."""

from __future__ import annotations

import copy
import pickle

import pytest
from catalog_spec_systems import NODES, SYSTEMS

from generated import Constants, Hardware, HardwareNode, Q_, Systems
from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError


def _node(path: str):
    tier, key = path.split(".")
    return getattr(getattr(Hardware, tier), key)


def _entry(path: str):
    value = None
    for part in path.split(".")[1:]:
        value = getattr(Systems if value is None else value, part)
    return value


def _same(actual, text: str) -> bool:
    expected = Q_(text)
    return (actual.units == expected.units and actual.magnitude == expected.magnitude
            and type(actual.magnitude) is type(expected.magnitude))


@pytest.mark.parametrize("path", list(NODES))
def test_every_node_field_of_section_b(path):
    node, row = _node(path), NODES[path]
    assert _same(node.memory.capacity, row["memory_capacity"]) and _same(node.memory_capacity, row["memory_capacity"])
    labeled = node.memory.labeled_capacity.to("GB").magnitude
    assert labeled == pytest.approx(float(row["labeled"].split()[0]), rel=1e-15)
    assert node.memory.labeled_capacity.to("byte").magnitude == pytest.approx(
        Q_(row["memory_capacity"]).to("GiB").magnitude * 1e9, rel=1e-15)
    for field in ("tdp", "tdp_min", "tdp_max", "dispatch_tax", "unit_cost", "unit_cost_max"):
        if field in row:
            assert _same(getattr(node, field), row[field]), (field, getattr(node, field))
        elif field != "dispatch_tax":
            assert getattr(node, field) is None
    for link in ("interconnect", "nvlink"):
        found = getattr(node, link)
        if link not in row:
            assert found is None
            continue
        spec = row[link]
        assert found.name == spec["name"] and found.direction == spec["direction"]
        assert _same(found.bandwidth, spec["bandwidth"])
        halved = 2 if spec["direction"] == "bidirectional_total" else 1
        assert found.bandwidth_per_direction.to("byte/s").magnitude == pytest.approx(
            Q_(spec["bandwidth"]).to("byte/s").magnitude / halved, rel=1e-15)
        if "per_direction" in spec:
            assert found.bandwidth_per_direction.to("GB/s").magnitude == pytest.approx(
                float(spec["per_direction"].split()[0]), rel=1e-15)
        assert (found.latency is None) if "latency" not in spec else _same(found.latency, spec["latency"])


def test_node_defaults_and_missing_facts():
    assert Hardware.Cloud.GB200_NVL72.accelerator_count == 72 and Hardware.Cloud.H100.accelerator_count is None
    assert HardwareNode(name="x", peak_flops=Q_(1, "TFLOP/s"), memory_bandwidth=1e9).dispatch_tax == Q_(0.01, "ms")
    for path in ("Cloud.Graphcore_GC200", "Cloud.IntelSGX", "Cloud.Untether_speedAI240", "Tiny.STM32F4"):
        assert _node(path).tdp is None


def test_every_node_answers_to_common_precision_names_and_peak():
    h100, a100, h200 = Hardware.Cloud.H100, Hardware.Cloud.A100, Hardware.Cloud.H200
    assert h100.peak_flops_per_second("fp16") == h100.peak_flops_per_second("fp16_dense") == 989e12
    assert a100.peak_flops_per_second("FP16") == 312e12 and a100.peak_flops_per_second("tf32") == 156e12
    assert "fp16" not in h200.precision_names  # only a sparse fp16 rate is listed: never taken for the dense one
    with pytest.raises(ScenarioInputError, match="'fp16', which NVIDIA H200 does not list; precisions it lists: "):
        h200.peak_flops_per_second("fp16")
    for tier in Hardware:
        for _, node in getattr(Hardware, tier).items():
            assert node.peak_flops_per_second("peak") == node.peak_flops.to("flop/s").magnitude
            assert "peak" in node.precision_names
            for name in node.precision_names:
                assert node.peak_flops_per_second(name) > 0
    cerebras = Hardware.Cloud.Cerebras_CS3  # no precision table: still usable at its headline peak
    assert cerebras.precision_names == ("peak",) and cerebras.compute.peak_flops == Q_(125.0, "PFLOPs/s")


@pytest.mark.parametrize("row", SYSTEMS["Nodes"], ids=lambda r: r["registry path"])
def test_every_systems_node(row):
    node = _entry(row["registry path"])
    assert node.name == row["name"] and node.accelerator is _entry_hardware(row["accelerator"])
    assert node.accelerators_per_node == int(row["accelerators_per_node"])
    assert node.nics_per_node == int(row["nics_per_node"])
    assert _same(node.intra_node_bw, row["intra_node_bw"])


def _entry_hardware(path: str):
    return _node(path.removeprefix("Hardware."))


@pytest.mark.parametrize("row", SYSTEMS["Fabrics"], ids=lambda r: r["registry path"])
def test_every_fabric(row):
    fabric = _entry(row["registry path"])
    assert fabric.name == row["name"] and fabric.topology == row["topology"]
    assert _same(fabric.bandwidth, row["bandwidth"])
    assert fabric.latency is None if row["latency"] == "—" else _same(fabric.latency, row["latency"])
    assert fabric.oversubscription_ratio == float(row["oversubscription_ratio"])
    assert fabric.bisection_share == Q_(row["bandwidth"]) / float(row["oversubscription_ratio"])


@pytest.mark.parametrize("row", SYSTEMS["Clusters"], ids=lambda r: r["registry path"])
def test_every_cluster(row):
    fleet = _entry(row["registry path"])
    assert fleet.name == row["name"] and fleet.count == int(row["count"])
    assert fleet.node is _entry(row["node"]) and fleet.fabric is _entry(row["fabric"])
    assert fleet.total_accelerators == int(row["total_accelerators"]) == fleet.count * fleet.node.accelerators_per_node
    assert fleet.region is None and fleet.datacenter is None and fleet.mtbf_hours is None


@pytest.mark.parametrize("row", SYSTEMS["Values"], ids=lambda r: r["registry path"])
def test_alphas_energies_and_storage(row):
    found = _entry(row["registry path"])
    if row["registry path"].startswith("Systems.Storage"):
        name, bandwidth = row["value"].split("; bandwidth ")
        assert found.name == name.removeprefix("name ") and _same(found.bandwidth, bandwidth)
    else:
        assert _same(found, row["value"])


def test_tech_storage_and_gbps():
    assert Hardware.Tech.Storage.NvmeGen4.bandwidth == Q_(7.0, "GB/s")
    assert Hardware.Tech.Storage.NvmeGen5.bandwidth == Q_(14.0, "GB/s")
    assert Hardware.Tech.Storage.HostDram.bandwidth == Q_(200.0, "GB/s")
    assert Systems.Fabrics.InfiniBand_NDR.bandwidth.to("byte/s").magnitude == 5e10  # 400 Gbps = 50 GB/s


@pytest.mark.parametrize(("path", "text"), [
    ("Chinchilla.ComputeConstant", "6.0"), ("Chinchilla.RecomputeConstant", "8.0"), ("Chinchilla.DecodeConstant", "2.0"),
    ("Communication.RingAllreduceFactor", "2.0"), ("ActivationBytes.PerTokenPerWidth", "34"),
    ("ActivationBytes.PerScore", "5"), ("ActivationBytes.FullRecomputation", "2"),
    ("Calibration.FrameworkLayerTax", "0.01 ms"), ("Calibration.DispatchTax", "0.01 ms"),
    ("ServingModel.Efficiency", "0.5"), ("ServingModel.FallbackLayers", "1"), ("ServingModel.FallbackHeads", "32"),
    ("ServingModel.FallbackHiddenDim", "4096"),
    ("MixedPrecisionAdam.TrainingStateBytesPerParameter", "16.0 byte/param"),
    ("MixedPrecisionAdam.OptimizerStateBytesPerParameter", "12 byte/param"),
    ("TrainingRunOverheads.Checkpoint", "0.03"), ("TrainingRunOverheads.FailureRecovery", "0.1"),
    ("TrainingRunOverheads.Maintenance", "0.05"), ("TrainingScaleProfiles.LocalComputeEfficiency", "0.45"),
    ("TrainingScaleProfiles.Eff8192Gpu", "0.56"), ("CollectiveCommunicationProfile.GradientBuffer", "1 GB"),
    ("CollectiveCommunicationProfile.TrainingRunSteps", "100000.0"),
    ("DataParallelScalingProfile.SingleGpuStepTime", "1.8 s"),
    ("DataParallelScalingProfile.SingleGpuTrainingTime", "25 h"), ("DataParallelScalingProfile.PerGpuBatch", "16.0"),
    ("EdgeAdaptationTierProfile.FederatedLoraUpdate", "50 MiB"), ("ModelLoading.PcieSwapReferenceModelSize", "10 GB"),
    ("Pricing.GpuTrainingPerHour", "4.0 dollar/h"), ("Pricing.TpuV4PerHour", "4.0 dollar/h"),
    ("Training.MfuHigh", "0.5"), ("KaplanScalingLaws.ComputeExponent", "0.05"),
    ("KaplanScalingLaws.DataExponent", "0.095"), ("KaplanScalingLaws.ParamsExponent", "0.076"),
    ("RuntimeOverheads.PythonDispatch", "10 µs"), ("RuntimeOverheads.KernelLaunch", "5 µs"),
    ("ByteWidths.ADAM_MOMENTS", "8 byte"), ("ByteWidths.ADAM_TOTAL", "12 byte"),
    ("ByteWidths.TRAINING_STATE_MIXED_PRECISION", "16 byte"), ("ByteWidths.INT4", "0.5 byte"),
    ("StorageWidths.fp32", "4 byte"), ("StorageWidths.tf32", "4 byte"), ("StorageWidths.bf16", "2 byte"),
    ("StorageWidths.fp16", "2 byte"), ("StorageWidths.fp8", "1 byte"), ("StorageWidths.int8", "1 byte"),
    ("StorageWidths.int4", "0.5 byte"),
])
def test_every_constant_of_section_d(path, text):
    section, key = path.split(".")
    assert _same(getattr(getattr(Constants, section), key), text)


def test_currency_is_its_own_dimension():
    price = Constants.Pricing.GpuTrainingPerHour
    assert price.to("dollar/s").magnitude == pytest.approx(4.0 / 3600)
    with pytest.raises(Exception, match="Cannot convert"):
        price.to("1/h")


def test_systems_records_are_immutable_and_validated():
    fleet = Systems.Clusters.Training_1K
    with pytest.raises(AttributeError, match="immutable"):
        fleet.count = 1  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        Hardware.Cloud.H100.name = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(fleet)) == fleet and copy.deepcopy(fleet) == fleet
    node = pickle.loads(pickle.dumps(Hardware.Cloud.H100))
    assert node.peak_flops_per_second("fp16") == 989e12 and node.nvlink.bandwidth_per_direction == Q_(450, "GB/s")
    fleet_type, node_type = type(fleet), type(fleet.node)
    with pytest.raises(InputTypeError, match="field 'node' got .*expected a Node"):
        fleet_type(name="f", node=Hardware.Cloud.H100, count=2, fabric=Systems.Fabrics.InfiniBand_NDR)
    with pytest.raises(ScenarioInputError, match="field 'count' got 0; expected an integer ≥ 1"):
        fleet_type(name="f", node=fleet.node, count=0, fabric=Systems.Fabrics.InfiniBand_NDR)
    mine = fleet_type(name="f", node=node_type(name="n", accelerator=Hardware.Cloud.B200, accelerators_per_node=4,
                                                 intra_node_bw=Q_(900, "GB/s")), count=3,
                      fabric=Systems.Fabrics.RoCE_400G)
    assert mine.total_accelerators == 12 and mine.node.nics_per_node == 1 == mine.node.resolved("nics_per_node")  # unset: the fallback
    link_type = type(Hardware.Cloud.H100.nvlink)
    with pytest.raises(ScenarioInputError, match="field 'direction' got 'both'; expected one of 'per_direction'"):
        link_type(name="l", bandwidth=Q_(1, "GB/s"), direction="both")
    with pytest.raises(MissingInputError, match="give 'peak_flops' or at least one"):
        HardwareNode(name="x", memory_bandwidth=1e9)
    with pytest.raises(ScenarioInputError, match="field 'tdp'|input 'tdp'"):
        HardwareNode(name="x", peak_flops=1e12, memory_bandwidth=1e9, tdp=Q_(-1, "W"))


def test_datasets_are_immutable_and_pickle():
    from generated import Datasets

    mnist = Datasets.MNIST
    for attempt in (lambda: setattr(mnist, "training_examples", -5), lambda: delattr(mnist, "name")):
        with pytest.raises(AttributeError, match="immutable"):
            attempt()
    details = mnist.details
    details["num_classes"] = 3  # a copy: the profile keeps its own
    assert mnist.num_classes == 10 and mnist.training_examples == 60000
    assert pickle.loads(pickle.dumps(mnist)).training_examples == 60000


def test_a_node_without_a_precision_table_runs_a_scenario_at_its_peak():
    from generated import Scenarios

    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    on_phone = step.variant(hardware=Hardware.Mobile.iPhone15Pro, precision="peak")
    assert on_phone.peak_rate == Q_(35, "TOPS")
    mine = HardwareNode(name="Mine", peak_flops=Q_(100, "TFLOP/s"), memory_bandwidth=Q_(1, "TB/s"))
    assert step.variant(hardware=mine, precision="peak").peak_rate == Q_(100, "TFLOP/s")
    assert step.variant(precision="FP16").peak_rate == Q_(989, "TFLOP/s")  # H100's fp16_dense
