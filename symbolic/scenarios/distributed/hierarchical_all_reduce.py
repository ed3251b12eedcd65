"""A hierarchical AllReduce (in-node ReduceScatter, inter-node ring, in-node AllGather) against a flat ring."""

from symbolic.catalog import Constants, Hardware, Models, Systems
from symbolic.model import Group, Input, Instance, Output, Q, Question, Require, Scenario, Series, Sweep, powers_of_two


class HierarchicalAllReduceScenario(Scenario):
    """An AllReduce of `message` over `n_nodes` nodes of `gpus_per_node` devices, in three phases.

    Inside each node a ReduceScatter leaves every device one shard of M/g (it sends
    M·(g − 1)/g bytes over the in-node link); the devices holding the same shard then run a
    ring AllReduce of that shard across the K nodes (one inter-node port per device, with a
    startup latency α per ring round); an AllGather inside the node restores the full
    message. The flat alternative is one ring over all K·g devices on the inter-node link.
    """

    assumptions = ("Bandwidth-optimal ring algorithms in every phase; each device has its own inter-node port; "
                   "the in-node phases have no startup term; phases do not overlap.")
    excludes = "Switch contention and oversubscription, in-network reduction (SHARP), and compute of the reduction."
    references = (
        "Thakur, Rabenseifner and Gropp, Optimization of collective communication operations in MPICH, "
        "IJHPCA 19(1), 2005 (ring ReduceScatter/AllGather: (N - 1)/N of the message each).",
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), "
        "2009 (ring AllReduce 2(N - 1)/N · M/β + 2(N - 1)·α).",
        "Jia et al., Highly scalable deep learning training system with mixed-precision: training ImageNet in "
        "four minutes, 2018 (hierarchical AllReduce).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.HierarchicalAllReduce8x8DgxH100
>>> s.n_devices
64
>>> round(s.result.speedup_vs_flat_ring, 4)
4.7754
"""

    main_outputs = ("result.total_time", "result.flat_ring_time", "result.speedup_vs_flat_ring")
    chart = Sweep(
        instance="HierarchicalAllReduce8x8DgxH100",
        input="n_nodes",
        values=powers_of_two(10),
        series=(Series("result.total_time", "hierarchical: total"), Series("result.flat_ring_time", "flat ring"),
                Series("result.inter_time", "hierarchical: inter-node ring", dashed=True),
                Series("result.flat_bound_time", "flat bound 2M/β", dashed=True)),
        xlabel="nodes (8 devices each)",
        ylabel="time [s]",
        caption="A 1 GB AllReduce over DGX H100 nodes: the hierarchical scheme moves only M/g per device across "
        "nodes, so it stays several times below one flat ring until the startup latency 2(K - 1)·α dominates.")
    questions = (Question(solve_for="message", where="result.inter_byte_time", equals="result.inter_startup_time"),)

    differs = {
        "message": "must be greater than 0: the reference accepts 0 bytes, and on one node the speedups are then "
                   "0/0.",
        "n_nodes": "n_nodes × gpus_per_node must be at least 2, checked when the instance is built: the reference "
                   "fails with a ZeroDivisionError (0/0) at one node of one device.",
    }

    message = Input("GB", positive=True, symbol="M", doc="Bytes each device contributes (the gradient buffer).")
    n_nodes = Input(integer=True, positive=True, symbol="K", doc="Nodes K.")
    gpus_per_node = Input(integer=True, positive=True, symbol="g", doc="Devices per node g.")
    intra_bandwidth = Input("GB/s", positive=True, symbol=r"\beta_i",
                            doc="In-node link bandwidth per device, one direction.")
    inter_bandwidth = Input("Gbps", positive=True, symbol=r"\beta_o",
                            doc="Inter-node bandwidth per device (one port per device), one direction.")
    inter_alpha = Input("µs", nonnegative=True, symbol=r"\alpha", doc="Startup latency of one inter-node ring round.")
    two_devices = Require(n_nodes * gpus_per_node >= 2,
                          "n_nodes × gpus_per_node must be at least 2: an AllReduce needs at least two devices")

    M, K, g = message, n_nodes, gpus_per_node
    result = Group(doc="The three phases, the flat ring and the speedups.")

    n_devices = Output(K * g, symbol="N", doc="Devices in the AllReduce: every GPU of every node.")
    with result:
        intra_bytes = Output(M * (g - 1) / g, "GB",
                             doc="Bytes each device sends in the in-node ReduceScatter: all of the message but its own "
                                 "shard.")
        reduce_scatter_time = Output(intra_bytes / intra_bandwidth, "s", doc="In-node ReduceScatter time.")
        shard = Output(M / g, "GB", doc="The shard each device reduces across nodes: the message split "
                                                      "over the node's GPUs.")
        inter_byte_time = Output(2 * (K - 1) / K * shard / inter_bandwidth, "s",
                                 doc="Bandwidth term of the inter-node ring: the shard's ring bytes at the inter-node "
                                     "bandwidth.")
        inter_startup_time = Output(2 * (K - 1) * inter_alpha, "s",
                                    doc="Startup term of the inter-node ring: one inter-node latency per ring round.")
        inter_time = Output(inter_byte_time + inter_startup_time, "s",
                            doc="Inter-node ring AllReduce of the shard.")
        all_gather_time = Output(reduce_scatter_time, "s",
                                 doc="In-node AllGather time (the ReduceScatter mirrored).")
        total_time = Output(reduce_scatter_time + inter_time + all_gather_time, "s",
                            doc="The three phases in sequence.")
    N = n_devices
    with result:
        flat_ring_time = Output(2 * (N - 1) / N * M / inter_bandwidth + 2 * (N - 1) * inter_alpha, "s",
                                doc="One ring AllReduce over all N devices on the inter-node link.")
        flat_bound_time = Output(2 * M / inter_bandwidth, "s",
                                 doc="What a flat ring over all devices approaches at large N: twice the message at the "
                                     "inter-node bandwidth (no startup term), the bound the hierarchy beats.")
        speedup_vs_flat_ring = Output(flat_ring_time / total_time,
                                      doc="Flat ring time over hierarchical time.")
        speedup_vs_flat_bound = Output(flat_bound_time / total_time, doc="Flat bound over hierarchical time.")


_dgx = Systems.Nodes.DGX_H100
# The reference's dense-LLM pretraining fleet (DenseLLMPretrainingReference.system) is Training_1K.
_fleet = Systems.Clusters.Training_1K

HierarchicalAllReduce8x8DgxH100 = Instance(
    HierarchicalAllReduceScenario,
    name="A 1 GB AllReduce over 8 DGX H100 nodes: hierarchical against a flat ring",
    description="NVLink inside the node, one NDR port per GPU across nodes: 8.3 ms hierarchical against "
                "40 ms for one flat ring over the 64 GPUs.",
    message=Constants.CollectiveCommunicationProfile.GradientBuffer,
    n_nodes=8,
    gpus_per_node=_dgx.accelerators_per_node,
    intra_bandwidth=Hardware.Cloud.H100.nvlink.bandwidth_per_direction,
    inter_bandwidth=Systems.Fabrics.InfiniBand_NDR.bandwidth,
    inter_alpha=Systems.SwitchFabric.AlphaNdr,
)

HierarchicalAllReduceBucket100MB = HierarchicalAllReduce8x8DgxH100.variant(
    name="A 100 MB gradient bucket over 8 DGX H100 nodes, hierarchical against flat",
    description="A tenth of the message: the startup terms weigh more, the hierarchical scheme still wins 4.9×.",
    message=Q("100 MB"),
)

HierarchicalAllReduceReferenceCluster = HierarchicalAllReduce8x8DgxH100.variant(
    name="GPT-3's fp16 gradients over the 128-node reference cluster, hierarchical against flat",
    description="350 GB over 128 DGX H100 nodes (1024 GPUs): 3.1 s hierarchical against 14 s flat.",
    message=Models.Language.GPT3.size_in_bytes(Constants.ByteWidths.FP16),
    n_nodes=_fleet.count,
    gpus_per_node=_fleet.node.accelerators_per_node,
)
