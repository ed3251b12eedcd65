"""Data parallelism inside one node and across nodes: the gradient AllReduce against the local step."""

from symbolic.catalog import Constants, Hardware, Models, Systems, storage_widths
from symbolic.catalog.workloads import STATED_SIZE_WIDTH
from symbolic.model import (
    Choice, Eq, Exceeds, Group, Input, Instance, Output, Question, Require, Scenario, Series, Sweep, WorkloadInput,
    powers_of_two, unit_constant,
)

_profile = Constants.DataParallelScalingProfile


class DataParallelScaleOutScenario(Scenario):
    """`nodes` nodes of `devices_per_node` devices train `workload` data-parallel: the AllReduce against the step.

    Every update each of the N = g·K devices computes `accumulation_steps` local steps, then
    the gradients (G bytes at `precision`) are AllReduced: a ring over the g devices of a
    node on the in-node link, and across nodes a ring over all N devices on each device's
    inter-node link. Nothing overlaps, so the update takes compute plus communication; the
    speedup over one device is N times the compute share, and the training time and its
    price follow from it.
    """

    assumptions = ("Ring AllReduces at the links' bandwidths, exact factor 2(n − 1)/n; the in-node ring, then a flat "
                   "ring over all devices across nodes (both charged, no hierarchy); no overlap with compute.")
    excludes = ("Start-up latency, hierarchical AllReduce (see HierarchicalAllReduceScenario), overlap and the "
                "optimizer step.")
    references = (
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), 2009.",
        "Goyal et al., Accurate, large minibatch SGD: training ImageNet in 1 hour, arXiv:1706.02677, 2017 "
        "(data-parallel scaling and the global batch).",
    )
    differs = {
        "result.cost": "a Quantity in dollars (None without `node_hour_rate`); the reference returns the plain "
                       "float of the same magnitude.",
        "workload": "a workload with only a stated size (DLRM, 100 GB) is taken at a 16-bit precision, where that "
                    "size is its gradient buffer, and refused by name at any other (its parameter count is unknown); "
                    "the reference uses the stated size at any precision.",
        "inter_bandwidth": "with more than one node and no `inter_bandwidth`, building the instance fails naming it "
                           "(the reference fails later, with a TypeError).",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Gpt2DataParallelFourNodes10GbE.result
>>> r.n_devices, r.global_batch
(32, 512)
>>> r.inter_time
<Quantity(4650.0, 'millisecond')>
>>> round(r.speedup, 4)
8.9141
"""

    main_outputs = ("result.speedup", "result.efficiency", "result.training_time")
    chart = Sweep(
        instance="Gpt2DataParallelFourNodes10GbE",
        input="nodes",
        values=powers_of_two(6),
        series=(Series("result.speedup", "speedup over one device"),
                Series("result.n_devices", "devices (ideal speedup)", dashed=True)),
        xlabel="nodes of eight devices",
        ylabel="speedup",
        caption="GPT-2 XL data-parallel over 10 Gb/s Ethernet: past one node the AllReduce over all devices "
                "swamps the 1.8 s step, and the speedup stays near 9 however many nodes join.")
    questions = (Question(solve_for="inter_bandwidth", where="result.efficiency", equals="0.9"),)

    workload = WorkloadInput("Workload", requires=("stored_values",), doc="The model: its parameter count P (gradients P·w), or its stated 16-bit size.")
    precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="w",
                       doc="Storage precision of the gradients.")
    stated_size_is_16_bit = Require(Eq(precision, 2 * unit_constant("byte")), STATED_SIZE_WIDTH, unless=workload.parameters)
    step_time = Input("s", positive=True, symbol="t_s", doc="One local step on one device.")
    training_time = Input("h", nonnegative=True, symbol="T_1", doc="The whole run on one device.")
    per_device_batch = Input(integer=True, positive=True, symbol="b", doc="Examples per device per local step.")
    devices_per_node = Input(integer=True, positive=True, symbol="g", doc="Devices in one node.")
    nodes = Input(integer=True, positive=True, default=1, symbol="K", doc="Nodes.")
    intra_bandwidth = Input("GB/s", positive=True, symbol=r"\beta_i", doc="Per-direction bandwidth inside a node.")
    inter_bandwidth = Input("GB/s", positive=True, default=intra_bandwidth, symbol=r"\beta_o",
                            doc="Each device's bandwidth between nodes; needed with more than one node (at one "
                                "node it is not read).")
    across_nodes_needs_a_link = Require(nodes <= 1, "inter_bandwidth must be given with more than one node",
                                        unless=inter_bandwidth)
    accumulation_steps = Input(integer=True, positive=True, default=1, symbol="a",
                               doc="Local steps accumulated per update.")
    node_hour_rate = Input("dollar/h", nonnegative=True, default=None, symbol=r"\rho",
                           doc="Price of one node per hour, for `cost`; optional.")

    g, K = devices_per_node, nodes
    N = g * K

    result = Group(doc="One update's communication and compute, the speedup, and the run's time and cost.")
    with result:
        n_devices = Output(N, doc="Devices of the whole run: every device of every node.")
        gradient_bytes = Output(workload.stored_values * precision, "byte", doc="Gradient bytes, G.")
        intra_bytes = Output(gradient_bytes * 2 * (g - 1) / g, "byte",
                             doc="Bytes each device sends in the in-node ring AllReduce of the gradients (just under "
                                 "twice their size).")
        inter_bytes = Output(Exceeds(K, 1) * gradient_bytes * 2 * (N - 1) / N, "byte",
                             doc="Bytes each device sends in the ring AllReduce over all devices (0 at one node, where "
                                 "the in-node ring is the whole AllReduce).")
        intra_time = Output(intra_bytes / intra_bandwidth, "ms", doc="The in-node ring.")
        inter_time = Output(inter_bytes / inter_bandwidth, "ms", doc="The ring across nodes.")
        communication_time = Output(intra_time + inter_time, "ms", doc="Both rings, one after the other.")
        compute_time = Output(accumulation_steps * step_time, "ms", doc="Compute time of one update: its "
                                                                                      "accumulated local steps, one "
                                                                                      "after another.")
        update_time = Output(compute_time + communication_time, "ms", doc="Compute, then communication.")
        communication_overhead = Output(communication_time / compute_time,
                                        doc="Communication over compute time.")
        compute_share = Output(compute_time / update_time, doc="Share of the update spent computing.")
        communication_share = Output(communication_time / update_time,
                                     doc="Share of the update spent communicating.")
        speedup = Output(N * compute_time / update_time,
                         doc="Throughput over one device: N devices, each computing a share of the time.")
        efficiency = Output(speedup / N, doc="Speedup per device (the compute share).")
        global_batch = Output(per_device_batch * N * accumulation_steps,
                              doc="Examples per update: every device's micro-batch, over every accumulation step.")
        scaled_training_time = Output(training_time / speedup, "h", field="training_time",
                                      doc="The run at this speedup, T_1/speedup.")
        cost = Output(scaled_training_time * K * node_hour_rate, "dollar", if_missing="none",
                      doc="Node-hours of the run at `node_hour_rate`; None without it.")


_dgx_h100 = Systems.Nodes.DGX_H100

Gpt2DataParallelOneNode = Instance(
    DataParallelScaleOutScenario,
    name="GPT-2 XL data parallel on one DGX H100",
    description="GPT-2 XL's FP16 gradients AllReduced over NVLink among eight H100s, each running a 1.8 s step of "
                "16 examples; a 25 h single-GPU run, nodes at eight GPU-hours' price.",
    workload=Models.Language.GPT2,
    precision="fp16",
    step_time=_profile.SingleGpuStepTime,
    training_time=_profile.SingleGpuTrainingTime,
    per_device_batch=_profile.PerGpuBatch,
    devices_per_node=_dgx_h100.accelerators_per_node,
    intra_bandwidth=Hardware.Cloud.H100.nvlink.bandwidth_per_direction,
    node_hour_rate=_dgx_h100.accelerators_per_node * Constants.Pricing.GpuTrainingPerHour,
)
Gpt2DataParallelFourNodes10GbE = Gpt2DataParallelOneNode.variant(
    name="GPT-2 XL data parallel on four DGX H100s over 10 Gb/s Ethernet",
    description="The same job on four nodes joined by 10 Gb/s Ethernet per GPU: the ring over all 32 GPUs "
                "dominates the update.",
    nodes=4,
    inter_bandwidth=Systems.Fabrics.Ethernet_10G.bandwidth,
)
Gpt2GradientAccumulationOneNode = Gpt2DataParallelOneNode.variant(
    name="GPT-2 XL data parallel on one DGX H100, four accumulated steps per update",
    description="One node accumulating four local steps per AllReduce: a four times larger global batch and a "
                "quarter of the communication per step.",
    accumulation_steps=4,
)
