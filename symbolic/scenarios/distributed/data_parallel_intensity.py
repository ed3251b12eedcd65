"""Bytes one data-parallel worker sends per FLOP it computes, against the link's bytes per peak FLOP."""

from symbolic.catalog import Hardware, Models, Systems
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.model import (
    Group, Input, Instance, Node, Output, Question, Scenario, Series, Sweep, WorkloadInput, powers_of_two,
    unit_constant,
)

# The reference's constants (catalog Communication.RingAllreduceFactor and Chinchilla.ComputeConstant): a ring
# AllReduce sends 2(N − 1)/N → 2 bytes per gradient byte as the group grows.
LARGE_RING_FACTOR = 2
GRADIENT_WIDTH = 2  # bytes per gradient value: 16-bit gradients, as the reference fixes them


class DataParallelIntensityScenario(Scenario):
    """One data-parallel worker's step: the gradient bytes it sends per FLOP it computes.

    Each step a worker computes 6·P_tok·D FLOPs over its D = n_s·C local tokens (P_tok: the
    parameters that work on a token, the active ones of a mixture of experts) and then takes
    part in a ring AllReduce of its 16-bit gradients, sending about 2·(2P) bytes however
    large the group (the large-group ring factor). The communication intensity, bytes sent
    per FLOP, falls as 1/D; the link's balance, its bandwidth over the accelerator's peak, is
    what the hardware offers. Above the balance the step waits on the network even at peak
    compute; below it the compute at peak outlasts the exchange.
    """

    assumptions = ("A ring AllReduce over a large group (factor 2); 16-bit gradients; 6 FLOPs per parameter per "
                   "token; the accelerator at its headline peak.")
    excludes = "Overlap of compute and communication, start-up latency, the exact factor 2(N − 1)/N of a small group."
    references = (
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), 2009.",
        "Kaplan et al., Scaling laws for neural language models, arXiv:2001.08361, 2020 (6 FLOPs per parameter "
        "per token).",
    )
    differs = {
        "result.intensity": "a Quantity in byte/flop (bytes sent per FLOP); the reference returns the plain float "
                            "of the same magnitude. Bytes and FLOPs are dimensions of their own here, so the unit "
                            "is kept.",
        "result.balance": "a Quantity in byte/flop (link bytes per peak FLOP); the reference returns the plain float "
                          "of the same magnitude.",
        "result.flops_per_step": "6·P_tok·D with the record's training FLOPs per token: a mixture of experts at its "
                                 "active parameters, while its gradients stay at every parameter; the reference "
                                 "writes 6·P·D with every expert (Mixtral-8x7B: 3.6× too many FLOPs).",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Gpt3DataParallelIntensity.result
>>> r.local_tokens
8192
>>> r.bytes_per_step
<Quantity(7e+11, 'byte')>
>>> round(r.intensity.to("byte/flop").magnitude / r.balance.to("byte/flop").magnitude, 6)
1.015625
"""

    main_outputs = ("result.intensity", "result.balance", "result.compute_time_at_peak")
    chart = Sweep(
        instance="Gpt3DataParallelIntensity",
        input="sequences_per_worker",
        values=powers_of_two(8),
        series=(Series("result.intensity", "communication intensity: bytes sent per FLOP"),
                Series("result.balance", "balance: link bytes per peak FLOP", dashed=True)),
        xlabel="sequences per worker",
        ylabel="bytes per FLOP",
        caption="GPT-3 on A100s over 200 Gb/s InfiniBand: the bytes sent per FLOP fall with the local batch and "
                "drop under the link's balance just above four sequences per worker.")
    questions = (Question(solve_for="sequences_per_worker", where="result.intensity", equals="result.balance"),)

    workload = WorkloadInput(TransformerWorkload, requires=("parameters", "context_length"),
                             doc="The model: its weight bytes, training FLOPs per token and context length C "
                                 "are read.")
    sequences_per_worker = Input(integer=True, positive=True, symbol="n_s",
                                 doc="Sequences of C tokens each worker computes per step.")
    link_bandwidth = Input("GB/s", nonnegative=True, symbol=r"\beta",
                           doc="Bandwidth of the worker's link to the data-parallel group.")
    accelerator = Node(doc="The worker's accelerator: its headline peak rate R is read.")

    C, R = workload.context_length, accelerator.peak_flops

    result = Group(doc="Bytes sent and FLOPs computed by one worker per step, and their ratios.")
    with result:
        local_tokens = Output(sequences_per_worker * C, doc="Tokens of the worker's step: its sequences, "
                                                                          "each at full context.")
        bytes_per_step = Output(LARGE_RING_FACTOR * workload.size_in_bytes(GRADIENT_WIDTH * unit_constant("byte")), "byte",
                                doc="Bytes the worker sends per step: a ring AllReduce of its 16-bit "
                                                  "gradients sends about twice their size.")
        flops_per_step = Output(workload.training_flops_per_token * local_tokens, "flop",
                                doc="FLOPs of the worker's step: the model's training FLOPs per token over the step's "
                                    "tokens.")
        intensity = Output(bytes_per_step / flops_per_step, "byte/flop",
                           doc="Communication intensity: bytes sent per FLOP computed, to set against the link's balance.")
        balance = Output(link_bandwidth / R, "byte/flop",
                         doc="The link's bytes per peak FLOP: a step whose intensity exceeds it spends longer exchanging "
                             "than computing at peak.")
        compute_time_at_peak = Output(flops_per_step / R, "s", doc="The step's FLOPs at the accelerator's "
                                                                                 "peak rate (a lower bound on its "
                                                                                 "compute time).")


Gpt3DataParallelIntensity = Instance(
    DataParallelIntensityScenario,
    name="GPT-3 data parallelism on A100s over 200 Gb/s InfiniBand, four sequences per worker",
    description="Each A100 computes 4 × 2048 tokens of GPT-3 per step and AllReduces its 350 GB of FP16 "
                "gradients over an HDR InfiniBand link.",
    workload=Models.Language.GPT3,
    sequences_per_worker=4,
    link_bandwidth=Systems.Fabrics.InfiniBand_HDR.bandwidth,
    accelerator=Hardware.Cloud.A100,
)
