"""TransferScenario: the eight registry entries by hand, renamed group fields, egress, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import InputTypeError, MissingInputError, Q_, ScenarioInputError, Scenarios, TransferScenario
from symbolic.scenarios.distributed.transfer import TransferScenario as Declared

GB = 1e9
HBM, NVLINK, PCIE = 3.35e12, 450e9, 64e9  # H100 memory, NVLink per direction, PCIe Gen5 x16, B/s
NDR = 400e9 / 8  # InfiniBand NDR, 400 Gbps in B/s
GPT3_FP16 = 175e9 * 2  # GPT-3 parameters × 2 byte


def ms(payload: float, bandwidth: float) -> float:
    return payload / bandwidth * 1e3


@pytest.mark.parametrize(("entry", "payload", "times"), [
    ("BufferTransfer10GB", 10 * GB,
     {"HBM": 2.985074626865672, "NVLink": 22.22222222222222, "InfiniBand": 200.0, "PCIe": 156.25}),
    ("Fp32MillionElementTensorAcrossH100Links", 4e6,
     {"HBM": 0.0011940298507462687, "NVLink": 0.008888888888888889, "PCIe": 0.0625}),
    ("TensorParallelExchange1GB", GB, {"NVLink": 2.2222222222222223, "InfiniBand NDR": 20.0}),
    ("Gpt3WeightsColdStart", GPT3_FP16,
     {"object store": 350000, "file system share": 87500, "one Gen5 NVMe": 25000, "eight Gen4 NVMe": 6250,
      "eight PCIe links": 683.59375, "host DRAM": 1750}),
    ("Gpt3RolloutFanout100", 100 * GPT3_FP16, {"file system": 35000, "object store": 350000}),
    ("ModelSwapPcieGen4", 10 * GB, {"PCIe Gen4 x16": 312.5}),
    ("FederatedAdapterUploadMobileUplink", 50 * 2**20, {"low": 419430.4, "high": 41943.04}),
    ("PetabyteCrossRegionMove", 1e15, {"100 Gb/s": 8e7, "10 Gb/s": 8e8}),
])
def test_registry_times_of_the_reference(entry, payload, times):
    """distributed.md §2: every link's time, in the links' order; result.payload is c·S."""
    r = getattr(Scenarios, entry).result
    assert r.payload.to("byte").magnitude == pytest.approx(payload, rel=1e-12)
    assert list(r.times) == list(times) == list(r.bandwidths)
    for link, expected in times.items():
        assert r.times[link].to("ms").magnitude == pytest.approx(expected, rel=1e-9), link
        # the reference's method transfer_time(link), in seconds
        assert getattr(Scenarios, entry).transfer_time(link).to("s").magnitude == pytest.approx(expected / 1e3,
                                                                                               rel=1e-9), link


def test_transfer_time_takes_a_key_of_links():
    """1 GB over NVLink at 450 GB/s: 1e9/4.5e11 s = 2.2222 ms; a name not in `links` is refused, listing them."""
    s = Scenarios.TensorParallelExchange1GB
    assert s.transfer_time("NVLink").to("s").magnitude == pytest.approx(1e9 / NVLINK, rel=1e-12)
    assert s.transfer_time(link="InfiniBand NDR").to("s").magnitude == pytest.approx(1e9 / NDR, rel=1e-12)
    with pytest.raises(ScenarioInputError, match=r"transfer_time: argument 'link' is 'PCIe', which is not a key "
                                                 r"of 'links' \('NVLink', 'InfiniBand NDR'\)"):
        s.transfer_time("PCIe")
    with pytest.raises(InputTypeError, match="argument 'link' got int 0; expected a key of 'links'"):
        s.transfer_time(0)
    reordered = s.variant(links={"InfiniBand NDR": NDR / 1e9, "NVLink": NVLINK / 1e9})  # keys, not positions
    assert reordered.transfer_time("NVLink") == s.transfer_time("NVLink")


def test_buffer_ladder_by_hand():
    """10 GB: 1e10/3.35e12 s = 2.985 ms from HBM; 1e10/4.5e11 = 22.2 ms over NVLink; 1e10/5e10 = 200 ms over NDR;
    1e10/6.4e10 = 156.25 ms over PCIe. The links are echoed as `bandwidths`, unchanged."""
    s = Scenarios.BufferTransfer10GB
    bandwidths = {"HBM": HBM, "NVLink": NVLINK, "InfiniBand": NDR, "PCIe": PCIE}
    for link, bandwidth in bandwidths.items():
        assert s.result.times[link].to("ms").magnitude == pytest.approx(ms(1e10, bandwidth), rel=1e-12)
        assert s.result.bandwidths[link].to("byte/s").magnitude == pytest.approx(bandwidth, rel=1e-12)
    assert s.total_bytes == s.result.payload


def test_storage_tiers_by_hand():
    """350 GB: eight Gen4 NVMe 8 × 7 GB/s = 56 GB/s → 6.25 s; eight PCIe links 8 × 64 GB/s → 0.68359375 s."""
    r = Scenarios.Gpt3WeightsColdStart.result
    assert r.bandwidths["eight Gen4 NVMe"].to("GB/s").magnitude == pytest.approx(56, rel=1e-12)
    assert r.times["eight Gen4 NVMe"].to("ms").magnitude == pytest.approx(ms(GPT3_FP16, 56e9), rel=1e-12)
    assert r.times["eight PCIe links"].to("ms").magnitude == pytest.approx(ms(GPT3_FP16, 8 * PCIE), rel=1e-12)


def test_fan_out_multiplies_the_bytes():
    """100 copies of 350 GB = 3.5e13 B: 35 s at 1 TB/s."""
    s = Scenarios.Gpt3RolloutFanout100
    assert s.copies == 100
    assert s.total_bytes.to("byte").magnitude == pytest.approx(3.5e13, rel=1e-12)
    assert s.result.times["file system"].to("s").magnitude == pytest.approx(3.5e13 / 1e12, rel=1e-12)


def test_egress_cost_and_compute_hours():
    """1 PB × 0.02 dollar/GB = 1e6 GB × 0.02 = 20 000 dollar; at 4 dollar/h that buys 5000 h. job_time is kept."""
    s = Scenarios.PetabyteCrossRegionMove
    assert s.egress_cost.to("dollar").magnitude == pytest.approx(20000.000000000004, rel=1e-9)
    assert s.egress_cost.to("dollar").magnitude == pytest.approx(1e6 * 0.02, rel=1e-12)
    assert s.egress_compute_hours.to("h").magnitude == pytest.approx(5000.000000000001, rel=1e-9)
    assert s.egress_compute_hours.to("h").magnitude == pytest.approx(20000 / 4.0, rel=1e-12)
    assert s.job_time == Q_(20, "h")
    # A bare egress rate is read in the declared dollar/GB (the reference reads the payload in bits instead)
    bare = Scenarios.BufferTransfer10GB.variant(egress_rate=0.01)
    assert bare.egress_cost.to("dollar").magnitude == pytest.approx(10 * 0.01, rel=1e-12)


def test_without_prices_the_egress_outputs_name_the_missing_input():
    s = Scenarios.BufferTransfer10GB
    with pytest.raises(MissingInputError, match="egress_rate"):
        _ = s.egress_cost
    with pytest.raises(MissingInputError, match="compute_price"):
        _ = s.variant(egress_rate=Q_(0.02, "USD/GB")).egress_compute_hours


def test_empty_links_and_zero_payload():
    empty = Scenarios.BufferTransfer10GB.variant(links={})
    assert empty.result.times == {} and empty.result.bandwidths == {}
    assert Scenarios.BufferTransfer10GB.variant(payload=0).result.times["HBM"].magnitude == 0


@pytest.mark.parametrize(("changes", "match"), [
    ({"copies": 0}, "'copies' got 0"),
    ({"copies": 2.5}, "copies"),
    ({"links": {"HBM": 0}}, r"'links' entry \['HBM'\] got 0"),
    ({"links": {"HBM": Q_(-1, "GB/s")}}, "'links'"),
    ({"links": {"HBM": Q_(1, "GB")}}, "'links'"),
    ({"payload": Q_(-1, "GB")}, "'payload' got -1"),
    ({"payload": Q_(1, "s")}, "'payload'"),
    ({"egress_rate": Q_(-1, "USD/GB")}, "'egress_rate' got -1"),
    ({"compute_price": 0}, "'compute_price' got 0"),
    ({"job_time": Q_(-1, "h")}, "'job_time' got -1"),
])
def test_domains(changes, match):
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.BufferTransfer10GB.variant(**changes)


def test_links_need_string_names():
    with pytest.raises(Exception, match="key 1"):
        Scenarios.BufferTransfer10GB.variant(links={1: Q_(1, "GB/s")})


@settings(max_examples=40, deadline=None)
@given(payload=st.just(0.0) | st.floats(1e-6, 1e9), copies=st.integers(1, 1000),
       bandwidths=st.lists(st.floats(1e-6, 1e6), max_size=4), rate=st.floats(0, 10, allow_subnormal=False), price=st.floats(1e-3, 1e3))
def test_evaluator_equals_exact_sympy(payload, copies, bandwidths, rate, price):
    links = {f"link{n}": b for n, b in enumerate(bandwidths)}
    s = TransferScenario(payload=payload, links=links, copies=copies, egress_rate=rate, compute_price=price)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-11)
