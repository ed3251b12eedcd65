"""The distributed group's methods with an argument, called as the reference's users call them.

Each registry entry of distributed.md that has a method is rebuilt from the spec's inputs with the
reference's keywords, and every method it lists is called with the spec's argument; the expected
values are the spec's (worked out by hand in the comments).
"""

from __future__ import annotations

import pytest

from generated import (
    AllReduceScheduleScenario,
    Hardware,
    PipelineScheduleScenario,
    Q_,
    Scenarios,
    TransferScenario,
)

HBM, NVLINK, PCIE = Q_(3.35, "TB/s"), Q_(450, "GB/s"), Q_(64, "GB/s")  # an H100's memory, NVLink, PCIe
NDR = Q_(400, "Gbit/s")


@pytest.mark.parametrize(("payload", "copies", "links", "expected_ms"), [
    # BufferTransfer10GB: 1e10 B over 3.35e12, 4.5e11, 5e10, 6.4e10 B/s
    (Q_(10, "GB"), 1, {"HBM": HBM, "NVLink": NVLINK, "InfiniBand": NDR, "PCIe": PCIE},
     {"HBM": 2.985074626865672, "NVLink": 22.22222222222222, "InfiniBand": 200.0, "PCIe": 156.25}),
    # Fp32MillionElementTensorAcrossH100Links: 4e6 B
    (Q_(4e6, "byte"), 1, {"HBM": HBM, "NVLink": NVLINK, "PCIe": PCIE},
     {"HBM": 0.0011940298507462687, "NVLink": 0.008888888888888889, "PCIe": 0.0625}),
    # TensorParallelExchange1GB: 1e9 B over 4.5e11 and 5e10 B/s
    (Q_(1, "GB"), 1, {"NVLink": NVLINK, "InfiniBand NDR": NDR}, {"NVLink": 2.2222222222222223, "InfiniBand NDR": 20.0}),
    # Gpt3RolloutFanout100: 100 × 3.5e11 B over 1e12 and 1e11 B/s
    (Q_(3.5e11, "byte"), 100, {"file system": Q_(1, "TB/s"), "object store": Q_(100, "GB/s")},
     {"file system": 35000, "object store": 350000}),
    # ModelSwapPcieGen4: 1e10 B over 3.2e10 B/s
    (Q_(10, "GB"), 1, {"PCIe Gen4 x16": Q_(32, "GB/s")}, {"PCIe Gen4 x16": 312.5}),
    # FederatedAdapterUploadMobileUplink: 50 MiB = 52428800 B = 419430400 bit over 1e6 and 1e7 bit/s
    (Q_(50, "MiB"), 1, {"low": Q_(1, "Mbit/s"), "high": Q_(10, "Mbit/s")}, {"low": 419430.4, "high": 41943.04}),
    # PetabyteCrossRegionMove: 1e15 B = 8e15 bit over 1e11 and 1e10 bit/s
    (Q_(1, "PB"), 1, {"100 Gb/s": Q_(100, "Gbit/s"), "10 Gb/s": Q_(10, "Gbit/s")},
     {"100 Gb/s": 8e7, "10 Gb/s": 8e8}),
])
def test_transfer_time_of_each_link(payload, copies, links, expected_ms):
    s = TransferScenario(name="rebuilt", description="", payload=payload, copies=copies, links=links)
    for link, ms in expected_ms.items():
        time = s.transfer_time(link)
        assert time.units == Q_(1, "second").units  # the reference's unit
        assert time.magnitude == pytest.approx(ms / 1e3, rel=1e-9), link


@pytest.mark.parametrize(("stages", "microbatches", "expected"), [
    (4, 4, 27.0),  # GPipeFourStageWalkthrough: 3·0.9/0.1
    (8, 32, 62.99999999999999),  # Pipeline8Stage32Micro: 7·0.9/0.1
])
def test_microbatches_for_bubble(stages, microbatches, expected):
    s = PipelineScheduleScenario(name="rebuilt", description="", stages=stages, microbatches=microbatches)
    assert s.microbatches_for_bubble(0.1) == pytest.approx(expected, rel=1e-12)
    assert s.microbatches_for_bubble(target=0.1) == s.microbatches_for_bubble(0.1)


def test_saved_time_and_device_hours():
    """Llama2_70BGradientRing64Ndr: 1.4e11 B at 5e10 B/s, α 1.5 µs, 64 ranks, 1e5 steps, half saved:
    ring 2·63/64 · 2.8 s + 126 · 1.5e-6 s = 5.512689 s; saved 2.7563445 s; × 1e5 × 64 / 3600 = 4900.168 h."""
    s = AllReduceScheduleScenario(name="rebuilt", description="", message=Q_(1.4e11, "byte"), group_sizes=[64],
                                  alpha=Q_(1.5, "µs"), bandwidth=NDR, run_steps=100000, time_saved_fraction=0.5)
    assert s.saved_time(64).to("s").magnitude == pytest.approx(2.7563445, rel=1e-9)
    assert s.saved_device_hours(64).to("h").magnitude == pytest.approx(4900.168000000001, rel=1e-9)
    assert s == Scenarios.Llama2_70BGradientRing64Ndr
    for entry in ("DdpBucketRingNdr", "GradientBufferAllReduceNdr", "RingVsTreeSmallBuffer"):  # f_s = 0: nothing saved
        r = getattr(Scenarios, entry)
        assert all(r.saved_time(n).magnitude == 0 == r.saved_device_hours(n).magnitude for n in r.group_sizes)


def test_registry_entries_are_the_rebuilt_ones():
    assert TransferScenario(payload=Q_(1, "GB"), links={"NVLink": Hardware.Cloud.H100.nvlink.bandwidth_per_direction,
                                                        "InfiniBand NDR": NDR}) == Scenarios.TensorParallelExchange1GB
    assert PipelineScheduleScenario(stages=4, microbatches=4) == Scenarios.GPipeFourStageWalkthrough
