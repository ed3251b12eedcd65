"""One transformer layer's forward compute under tensor parallelism against its activation exchange per link."""

from symbolic.catalog import Hardware, Models, Systems
from symbolic.model import (
    Group, Input, Instance, Len, ListInput, Node, Output, PerItem, Precision, Question, Scenario, Series, Sweep,
    WorkloadInput, index, powers_of_two, unit_constant,
)

ACTIVATION_WIDTH = 2  # bytes per activation value: 16-bit activations (the reference's BYTES_FP16)

j = index("j", "link")


class TensorParallelLayerScenario(Scenario):
    """One layer's forward pass over `tokens` tokens, split `tp_size` ways, against its AllReduces on each link.

    The layer does 1/L of the model's forward FLOPs per token on each of T tokens, F_tok/L·T
    (F_tok = 2·P_tok: the parameters that work on a token, the active ones of a mixture of experts); t devices
    share them at a fraction η of their peak rate R. Its outputs are summed across the t
    devices by `collectives_per_layer` ring AllReduces of the T·h activations (two bytes
    each), each sending 2(t − 1)/t of them per device. Compute shrinks as 1/t while the
    bytes grow towards twice the activations, so each link has a width beyond which the
    exchange outlasts the compute it serves.
    """

    assumptions = ("Parameters spread evenly over layers; 2 FLOPs per parameter working on a token; ring AllReduces of "
                   "16-bit activations at each link's bandwidth; no overlap.")
    excludes = "Attention-score FLOPs, start-up latency, the backward pass (k = 2 is the forward pass of Megatron-LM)."
    references = (
        "Shoeybi et al., Megatron-LM: training multi-billion parameter language models using model parallelism, "
        "arXiv:1909.08053, 2019 (two AllReduces per layer per forward pass).",
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), 2009.",
    )
    differs = {
        "precision": "the default `fp16|bf16|peak` reads the node's dense 16-bit rate (`fp16_dense` on an H100, "
                     "`bf16` on a TPU), else its headline peak, so every catalog node works; the reference's "
                     "`fp16_dense` raises KeyError on the 48 nodes without that key. A key the user gives is "
                     "refused when the node does not list it.",
        "result.layer_flops": "F_tok/L·T with the record's forward FLOPs per token, 2·P_tok: a mixture of experts "
                              "at its active parameters; the reference writes 2·(P/L)·T with every expert "
                              "(Mixtral-8x7B: 3.6× too many).",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Gpt3TensorParallelLayerTp8.result
>>> r.layer_bytes.to("MB")
<Quantity(176.160768, 'megabyte')>
>>> {link: round(t.to("ms").magnitude, 4) for link, t in r.transfer_times.items()}
{'NVLink': 0.3915, 'InfiniBand NDR': 3.5232}
"""

    main_outputs = ("result.compute_time", "result.layer_bytes")
    chart = Sweep(
        instance="Gpt3TensorParallelLayerTp8",
        input="tp_size",
        values=powers_of_two(7),
        series=(Series("result.compute_time", "forward compute of the layer"),
                Series("result.transfer_times[NVLink]", "AllReduces over NVLink", dashed=True),
                Series("result.transfer_times[InfiniBand NDR]", "AllReduces over InfiniBand NDR", dashed=True)),
        xlabel="tensor-parallel width t",
        ylabel="time per layer [ms]",
        caption="One GPT-3 layer on 2048 tokens, H100s at half their FP16 peak: compute falls as 1/t, the exchange "
                "rises towards twice the activations; InfiniBand overtakes compute near t = 4.75, NVLink near 35.")
    questions = (Question(solve_for="tp_size", where="result.breakeven_bandwidth", equals="400 Gbps"),)

    workload = WorkloadInput(requires=("layers", "hidden_dim"),
                             doc="The model, any record with layers L and width h (a transformer, a state-space "
                                 "model, an embodied policy): its forward FLOPs per token, L and h are read.")
    tp_size = Input(integer=True, positive=True, symbol="t", doc="Tensor-parallel width: devices sharing the layer.")
    tokens = Input(integer=True, positive=True, symbol="T", doc="Tokens through the layer.")
    accelerator = Node(doc="The accelerator: its rate at `precision` is read.")
    precision = Precision(accelerator, default="fp16|bf16|peak",
                          doc="Key of the node's rates pricing the FLOPs (default: its dense 16-bit rate, else its "
                              "headline peak).")
    local_efficiency = Input(positive=True, at_most=1, symbol=r"\eta", doc="Share of the peak rate attained, in (0, 1].")
    links = ListInput("GB/s", keyed=True, positive=True, symbol=r"\beta",
                      doc="Candidate links for the exchange, by name: per-direction bandwidth.")
    collectives_per_layer = Input(integer=True, nonnegative=True, default=2, symbol="k",
                                  doc="AllReduces per layer (2: Megatron-LM's forward pass).")

    F, L, h, R = workload.forward_flops_per_token, workload.layers, workload.hidden_dim, accelerator.peak

    result = Group(doc="The layer's forward compute and its exchange on each link.")
    with result:
        layer_flops = Output(F / L * tokens, "flop",
                             doc="Forward FLOPs of one layer: its share of the model's forward FLOPs per token, for "
                                 "every token.")
        compute_time = Output(layer_flops / tp_size / (R * local_efficiency), "ms",
                              doc="Each device's share of the layer's FLOPs at the attained rate.")
        layer_bytes = Output(collectives_per_layer * tokens * h * ACTIVATION_WIDTH * unit_constant("byte")
                             * 2 * (tp_size - 1) / tp_size, "byte",
                             doc="Bytes each device sends: the layer's AllReduces of its 16-bit activations, each at the "
                                 "ring factor.")
        transfer_times = PerItem(layer_bytes / links[j], (j, 0, Len(links) - 1), "ms", keys=links,
                                 doc="The layer's exchange on each link.")
        breakeven_bandwidth = Output(layer_bytes / compute_time, "GB/s",
                                     doc="The link bandwidth at which the exchange takes as long as the compute; "
                                         "slower links make the layer communication-bound.")


_dgx_h100 = Systems.Nodes.DGX_H100
_gpt3 = Models.Language.GPT3

Gpt3TensorParallelLayerTp8 = Instance(
    TensorParallelLayerScenario,
    name="One GPT-3 layer split 8 ways on H100s: compute against NVLink and InfiniBand",
    description="A GPT-3 layer's forward pass on its 2048-token context across a DGX H100's eight GPUs at half "
                "their FP16 peak, its two AllReduces over NVLink or over InfiniBand NDR.",
    workload=_gpt3,
    tp_size=_dgx_h100.accelerators_per_node,
    tokens=_gpt3.context_length,
    accelerator=Hardware.Cloud.H100,
    precision="fp16_dense",
    local_efficiency=0.5,
    links={"NVLink": Hardware.Cloud.H100.nvlink.bandwidth_per_direction,
           "InfiniBand NDR": Systems.Fabrics.InfiniBand_NDR.bandwidth},
)
