"""The activation AllReduces of one tensor-parallel training step, against its stated compute time."""

from symbolic.catalog import Hardware, Models, Systems
from symbolic.model import (
    Group, Input, Instance, Output, Q, Question, Scenario, Series, Sweep, WorkloadInput, powers_of_two, unit_constant,
)

ACTIVATION_WIDTH = 2  # bytes per activation value: 16-bit activations (the reference's BYTES_FP16)


class TensorParallelScenario(Scenario):
    """One tensor-parallel step of `workload`: `collectives_per_layer` activation AllReduces per layer.

    Tensor parallelism splits every layer's matrices over t devices, so each layer's output
    must be summed across them: an AllReduce of the layer's activations, A = b·s·h values of
    two bytes for a micro-batch of b sequences of s tokens and width h. A ring AllReduce
    sends 2(t − 1)/t · A per device. The step runs k such collectives per layer over L layers,
    one after another and not overlapped with the stated compute time.

    Megatron-LM's layout needs two AllReduces per layer per pass (attention and MLP), four
    per layer per training step (k = 4); the default k = 2, the reference's, counts one per
    pass.
    """

    assumptions = ("Ring AllReduces of 16-bit activations at the link's bandwidth, one after another; no overlap "
                   "with compute; compute time is stated, not derived.")
    excludes = "Start-up latency per collective, sequence parallelism, and overlap of communication with compute."
    references = (
        "Shoeybi et al., Megatron-LM: training multi-billion parameter language models using model parallelism, "
        "arXiv:1909.08053, 2019 (two AllReduces per layer per pass).",
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), 2009.",
    )
    differs = {
        "compute_time": "must be greater than 0: the reference accepts 0 (the fractions are then 0 and 1, or 0/0 "
                        "when there is no communication either); a step without compute is not a training step.",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Gpt3TensorParallelStepDgxH100.result
>>> r.payload, r.ring_factor, r.collectives_per_step
(<Quantity(201326592, 'byte')>, 1.75, 192)
>>> round(r.communication_time.to("ms").magnitude, 6)
150.323855
"""

    main_outputs = ("result.communication_time", "result.step_time", "result.communication_fraction")
    chart = Sweep(
        instance="Gpt3TensorParallelStepDgxH100",
        input="tp_size",
        values=powers_of_two(6),
        series=(Series("result.communication_time", "activation AllReduces"),
                Series("result.compute_time", "stated compute", dashed=True)),
        xlabel="tensor-parallel width t",
        ylabel="time per step [ms]",
        caption="GPT-3's activation AllReduces over NVLink against the tensor-parallel width: the ring's bytes per "
                "device approach twice the activations, so the exchange saturates just below the 200 ms of "
                "compute.")
    questions = (Question(solve_for="link_bandwidth", where="result.communication_fraction", equals="0.1"),)

    workload = WorkloadInput(requires=("layers", "hidden_dim"),
                             doc="The model, any record with layers L and width h (a transformer, a state-space "
                                 "model, an embodied policy); its context length when `seq_len` is not given.")
    tp_size = Input(integer=True, positive=True, symbol="t", doc="Tensor-parallel width: devices sharing each layer.")
    microbatch = Input(integer=True, positive=True, symbol="b", doc="Sequences per micro-batch.")
    link_bandwidth = Input("GB/s", positive=True, symbol=r"\beta", doc="Per-direction bandwidth between the t devices.")
    compute_time = Input("ms", positive=True, symbol="t_c", doc="Compute time of the step, stated (not derived).")
    seq_len = Input(integer=True, positive=True, default=workload.context_length, symbol="s",
                    doc="Tokens per sequence; the workload's context length when not given.")
    collectives_per_layer = Input(integer=True, nonnegative=True, default=2, symbol="k",
                                  doc="AllReduces per layer per step (2: one per pass; Megatron-LM: 4).")

    L, h = workload.layers, workload.hidden_dim

    result = Group(compute_time, doc="The step's activation AllReduces and how they share the step with compute.")
    with result:
        payload = Output(microbatch * seq_len * h * ACTIVATION_WIDTH * unit_constant("byte"), "byte",
                         doc="Activations of one AllReduce: the layer's output for every token of the micro-batch, in "
                             "16-bit values.")
        ring_factor = Output(2 * (tp_size - 1) / tp_size,
                             doc="Bytes a ring AllReduce sends per device, as a multiple of the payload (0 on one device).")
        traffic_per_device = Output(ring_factor * payload, "byte", doc="Bytes each device sends per AllReduce.")
        collectives_per_step = Output(collectives_per_layer * L, doc="AllReduces of the step: each "
                                                                                   "layer's, for every layer.")
        per_collective_time = Output(traffic_per_device / link_bandwidth, "ms",
                                     doc="Time of one AllReduce at the link's bandwidth.")
        communication_time = Output(collectives_per_step * per_collective_time, "ms",
                                    doc="The step's AllReduces, one after another.")
        step_time = Output(compute_time + communication_time, "ms",
                           doc="Compute, then communication (no overlap).")
        compute_fraction = Output(compute_time / step_time, doc="Share of the step spent computing.")
        communication_fraction = Output(communication_time / step_time,
                                        doc="Share of the step spent in AllReduces.")


_dgx_h100 = Systems.Nodes.DGX_H100
_nvlink = Hardware.Cloud.H100.nvlink.bandwidth_per_direction

Gpt3TensorParallelStepDgxH100 = Instance(
    TensorParallelScenario,
    name="GPT-3 tensor parallel across a DGX H100's eight GPUs, micro-batch 4",
    description="GPT-3's 96 layers split 8 ways over NVLink, four 2048-token sequences per micro-batch, two "
                "AllReduces per layer per step and 200 ms of compute.",
    workload=Models.Language.GPT3,
    tp_size=_dgx_h100.accelerators_per_node,
    microbatch=4,
    link_bandwidth=_nvlink,
    compute_time=Q("200 ms"),
)
# The sequence length and step time are those of the reference's Llama2_70BFleetMfu128 entry (node_tokens 2204,
# node_step_time 180 ms), a class not in this library.
Llama2_70BNodeTensorParallelStep = Instance(
    TensorParallelScenario,
    name="Llama-2-70B tensor parallel across a DGX H100, Megatron's four AllReduces per layer",
    description="Llama-2-70B's 80 layers split 8 ways over NVLink, one sequence of 2204 tokens per micro-batch, "
                "four AllReduces per layer per step and 180 ms of compute.",
    workload=Models.Language.Llama2_70B,
    tp_size=_dgx_h100.accelerators_per_node,
    microbatch=1,
    link_bandwidth=_nvlink,
    compute_time=Q("180 ms"),
    seq_len=2204,
    collectives_per_layer=4,
)
