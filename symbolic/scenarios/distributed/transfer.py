"""Moving a payload over each of several links, bandwidth only: the time ladder and egress cost."""

from symbolic.catalog import Constants, Hardware, Models, Systems
from symbolic.model import (
    Argument, Echo, Group, Input, Instance, Len, ListInput, Output, PerItem, Q, Question, Scenario, Series, Sweep, decades, index,
)

k = index("k", "link")


class TransferScenario(Scenario):
    """`copies` copies of `payload` over each link of `links`: time per link, and what egress costs.

    Each link moves the whole c·S bytes alone at its bandwidth (no startup latency, no
    sharing); the ladder of times shows how many orders of magnitude separate memory,
    device links, networks and storage. Egress is priced per byte moved and compared with an
    hourly compute price.
    """

    assumptions = "Bandwidth-only transfers (no latency term); each link carries the whole payload alone."
    excludes = "Protocol overhead, contention, compression and parallel streams across links."
    references = (
        "Hennessy and Patterson, Computer Architecture: A Quantitative Approach, 6th ed., 2017 "
        "(the memory and storage hierarchy).",
    )
    differs = {
        "copies": "an integer of at least 1: the reference accepts 0 (every time 0 ms) and negative copies "
                  "(negative times).",
        "links": "every bandwidth must be greater than 0: the reference divides by a zero bandwidth "
                 "(ZeroDivisionError) and returns negative times for a negative one.",
        "egress_rate": "a price per byte (dollar/GB; a bare number is read in dollar/GB): the reference multiplies "
                       "a bare rate by the payload in bits, so 0.01 on 8 GB gives 6.4e8 dollar.",
        "job_time": "read by `result.job_multiple`, each link's time over the job's; the reference keeps it on the "
                    "instance and no output reads it.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.TensorParallelExchange1GB
>>> s.result.times["NVLink"]
<Quantity(2.22222222, 'millisecond')>
>>> s.transfer_time("InfiniBand NDR")
<Quantity(0.02, 'second')>
>>> Scenarios.PetabyteCrossRegionMove.egress_cost
<Quantity(20000.0, 'dollar')>
"""

    main_outputs = ("total_bytes", "egress_compute_hours")
    chart = Sweep(
        instance="BufferTransfer10GB",
        input="payload",
        values=decades(-3, 3, 2),
        series=(Series("result.times[HBM]", "HBM"), Series("result.times[NVLink]", "NVLink"),
                Series("result.times[InfiniBand]", "InfiniBand NDR"), Series("result.times[PCIe]", "PCIe")),
        xlabel="payload [GB]",
        ylabel="time [ms]",
        caption="Transfer time against payload on an H100's links: each tier is a constant factor slower.")
    questions = (Question(solve_for="payload", where="result.times[NVLink]", equals="1 ms"),)

    payload = Input("GB", nonnegative=True, symbol="S", doc="Bytes of one copy.")
    links = ListInput("GB/s", keyed=True, positive=True, min_length=0, symbol=r"\beta",
                      doc="Bandwidth of each named link, one direction.")
    copies = Input(integer=True, positive=True, default=1, symbol="c", doc="Copies sent (fan-out).")
    egress_rate = Input("dollar/GB", nonnegative=True, default=None, symbol="e", doc="Price per byte leaving.")
    compute_price = Input("dollar/h", positive=True, default=None, symbol="p", doc="Hourly price of compute.")
    job_time = Input("h", nonnegative=True, default=None, symbol="t_j",
                     doc="Duration of the job the transfer feeds; optional, read by `result.job_multiple`.")

    link = Argument(key_of=links, symbol="k", doc="The name of one link, a key of `links`.")

    total_bytes = Output(copies * payload, "GB", doc="Bytes moved: every copy of the payload.")
    transfer_time = Output(total_bytes / links[link], "s", doc="Time to move every copy over the one link named, alone on it.")
    result = Group(Echo(total_bytes, field="payload"), Echo(links, field="bandwidths"),
                   doc="The bytes moved, the links and the time over each.")
    with result:
        times = PerItem(total_bytes / links[k], (k, 0, Len(links) - 1), "ms", keys=links,
                        doc="Time to move all the copies over each link alone.")
        job_multiple = PerItem(total_bytes / links[k] / job_time, (k, 0, Len(links) - 1), keys=links,
                               doc="Time over each link as a multiple of the job's: above 1 the move outlasts the job.")
    egress_cost = Output(total_bytes * egress_rate, "dollar", doc="Egress charge for every byte moved, at the "
                                                                  "provider's rate.")
    egress_compute_hours = Output(egress_cost / compute_price, "h", doc="Compute hours the egress charge buys.")


_h100 = Hardware.Cloud.H100
_hbm, _nvlink, _pcie = _h100.memory.bandwidth, _h100.nvlink.bandwidth_per_direction, _h100.interconnect.bandwidth
_ndr = Systems.Fabrics.InfiniBand_NDR.bandwidth
_gpt3_fp16 = Models.Language.GPT3.size_in_bytes(Constants.ByteWidths.FP16)
_storage = Hardware.Tech.Storage

BufferTransfer10GB = Instance(
    TransferScenario,
    name="A 10 GB buffer over an H100's memory, NVLink, InfiniBand NDR and PCIe",
    description="The same 10 GB at each tier: 3 ms from HBM, 22 ms over NVLink, 156 ms over PCIe, 200 ms over NDR.",
    payload=Q("10 GB"),
    links={"HBM": _hbm, "NVLink": _nvlink, "InfiniBand": _ndr, "PCIe": _pcie},
)

Fp32MillionElementTensorAcrossH100Links = Instance(
    TransferScenario,
    name="A million-element fp32 tensor (4 MB) over an H100's HBM, NVLink and PCIe",
    description="4 MB: about a microsecond from HBM, 9 µs over NVLink, 62.5 µs over PCIe.",
    payload=1000 * 1000 * Constants.ByteWidths.FP32,
    links={"HBM": _hbm, "NVLink": _nvlink, "PCIe": _pcie},
)

TensorParallelExchange1GB = Instance(
    TransferScenario,
    name="A 1 GB tensor-parallel exchange over NVLink and over InfiniBand NDR",
    description="Why tensor parallelism stays inside the node: 2.2 ms over NVLink, 20 ms over NDR.",
    payload=Q("1 GB"),
    links={"NVLink": _nvlink, "InfiniBand NDR": _ndr},
)

Gpt3WeightsColdStart = Instance(
    TransferScenario,
    name="Loading GPT-3's fp16 weights (350 GB) from six storage tiers",
    description="A cold start: 350 s from a 1 GB/s object store, 0.68 s over eight PCIe links.",
    payload=_gpt3_fp16,
    links={
        "object store": Q("1 GB/s"),
        "file system share": Systems.Storage.PfsPerNodeShare.bandwidth,
        "one Gen5 NVMe": _storage.NvmeGen5.bandwidth,
        "eight Gen4 NVMe": Systems.Nodes.DGX_H100.accelerators_per_node * _storage.NvmeGen4.bandwidth,
        "eight PCIe links": Systems.Nodes.DGX_H100.accelerators_per_node * _pcie,
        "host DRAM": _storage.HostDram.bandwidth,
    },
)

Gpt3RolloutFanout100 = Instance(
    TransferScenario,
    name="GPT-3's fp16 weights to 100 replicas from a file system and an object store",
    description="100 copies of 350 GB (35 TB): 35 s at 1 TB/s, 350 s at 100 GB/s.",
    payload=_gpt3_fp16,
    copies=100,
    links={"file system": Systems.Storage.PfsOneTbPerSecond.bandwidth, "object store": Q("100 GB/s")},
)

ModelSwapPcieGen4 = Instance(
    TransferScenario,
    name="Swapping a 10 GB model over PCIe Gen4 x16",
    description="A model swap on an A100 host link: 312.5 ms.",
    payload=Constants.ModelLoading.PcieSwapReferenceModelSize,
    links={"PCIe Gen4 x16": Hardware.Cloud.A100.interconnect.bandwidth},
)

FederatedAdapterUploadMobileUplink = Instance(
    TransferScenario,
    name="A 50 MiB federated LoRA update over a 1 and a 10 Mbit/s mobile uplink",
    description="Seven minutes at 1 Mbit/s, 42 s at 10 Mbit/s.",
    payload=Constants.EdgeAdaptationTierProfile.FederatedLoraUpdate,
    links={"low": Q("1 Mbit/s"), "high": Q("10 Mbit/s")},
)

PetabyteCrossRegionMove = Instance(
    TransferScenario,
    name="A petabyte across regions at 100 and 10 Gb/s, and its egress bill",
    description="1 PB takes 22 hours at 100 Gb/s and 9 days at 10 Gb/s; at 0.02 dollar/GB the egress "
                "(20 000 dollar) buys 5000 accelerator-hours.",
    payload=Q("1 PB"),
    links={"100 Gb/s": Systems.Fabrics.Ethernet_100G.bandwidth, "10 Gb/s": Systems.Fabrics.Ethernet_10G.bandwidth},
    egress_rate=Q("0.02 USD/GB"),
    compute_price=Constants.Pricing.TpuV4PerHour,
    job_time=Q("20 h"),
)
