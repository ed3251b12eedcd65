"""One decode step: streaming the weights against the model's forward FLOPs per token (a roofline)."""

from symbolic.catalog import Hardware, Models, Systems, storage_widths
from symbolic.model import (
    Choice, Exceeds, Fits, Group, Input, Instance, Min, Node, Output, Precision, Question, Scenario, Series, Sweep,
    WorkloadInput, powers_of_two,
)

class DecodeScenario(Scenario):
    """One decode step of `workload` on `hardware`: the weights streamed once against its FLOPs per token.

    Generating a token reads every weight once (shared by the `batch_size` requests of the
    step) and does one multiply-add per weight that works on the token, per request: every
    weight of a dense model, the active ones of a mixture of experts. With `tp_size`-way tensor
    parallelism each device holds and reads 1/t of the weights and does 1/t of the work.
    The step is bound by the slower of the two: the weights at the memory bandwidth or the
    FLOPs at the peak rate (`peak_precision`'s, or the node's headline peak). A device's share
    of the weights must fit in its memory (`fits`); where it does not, the step does not run
    and its times are refused.
    """

    assumptions = ("Weights stream once per step (every expert's); each weight that works on a token does one "
                   "multiply-add per request.")
    excludes = "KV-cache reads, activations, communication between tensor-parallel devices and launch overhead."
    references = (
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023 (decode is memory-bound at small batch).",
        "Williams, Waterman and Patterson, Roofline, CACM 52(4), 2009.",
    )
    differs = {
        "fits": "a device's share of the weights beyond its memory does not run: `fits` is False and the step "
                "times (and what reads them) are refused, where the reference prices Llama-3.1-70B's 141.2 GB of "
                "FP16 weights on one 80 GiB H100 at 42.15 ms a token; split across two (70.6 GB each) it runs.",
        "result.flops_per_step": "a mixture of experts is priced at its active parameters (F_tok = 2·P_a per token, the record's `forward_flops_per_token`); the reference writes 2·P with every expert, so Mixtral-8x7B's "
                                 "decode step at batch 1 is 2·4.67e10 = 9.34e10 flop there and 2·1.29e10 = 2.58e10 "
                                 "here (DeepSeek-V3 18× fewer: 3.7e10 of 6.71e11 parameters work on a token).",
    }
    left_out = {
        "result.constraint_trace": "always None in the reference's DecodeScenario.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Llama2_70B_DecodeTwoH100
>>> s.result.bottleneck
'Memory'
>>> round(s.result.bound_ratio, 6)
295.223881
>>> Scenarios.Llama3_70B_DecodeH100.fits    # 141.2 GB of FP16 weights on one 80 GiB H100
False
"""

    main_outputs = ("result.compute_time", "result.memory_time", "result.bound_ratio")
    chart = Sweep(
        instance="Llama2_70B_DecodeTwoH100",
        input="batch_size",
        values=powers_of_two(10),
        series=(Series("result.memory_time", "memory: weights at bandwidth"), Series("result.compute_time", "compute: 2P·B at peak")),
        xlabel="batch size",
        ylabel="time per decode step [ms]",
        caption="Llama-2-70B decode at FP16 across two H100s (70 GB of weights each): the weight stream is fixed, "
        "the FLOPs grow with the batch; they cross near batch 295.")
    questions = (Question(solve_for='batch_size', where='result.compute_time', equals='result.memory_time'),)

    workload = WorkloadInput(requires=("parameters",),
                             doc="The model: its weight bytes (every parameter) and forward FLOPs per token (the "
                                 "parameters that work on a token) are read.")
    hardware = Node(doc="The accelerator: memory bandwidth and the peak rate.")
    precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="b",
                       doc="Weight storage precision.")
    batch_size = Input(integer=True, positive=True, default=1, symbol="B", doc="Requests sharing each weight read.")
    peak_precision = Precision(hardware, default="peak",
                               doc="Key of the node's rates pricing the FLOPs; `peak` (default) is its headline peak.")
    tp_size = Input(integer=True, positive=True, default=1, symbol="t",
                    doc="Tensor-parallel width: each device holds and reads 1/t of the weights.")

    result = Group(doc="The decode bound of one step on one device.")
    with result:
        weight_bytes = Output(workload.size_in_bytes(precision) / tp_size, "byte",
                              doc="Weight bytes one device streams per step: its tensor-parallel share of "
                                                "the model.")
        flops_per_step = Output(workload.forward_flops_per_token * batch_size / tp_size, "flop",
                                doc="FLOPs one device does per step: its share of the model's forward FLOPs "
                                                  "per token, for every sequence of the batch.")
        compute_time = Output(flops_per_step / hardware.peak, "ms", doc="The FLOPs at the peak rate.")
        memory_time = Output(weight_bytes / hardware.bandwidth, "ms", doc="The weights at the bandwidth.")
        memory_share = Output(memory_time / (memory_time + compute_time),
                              doc="Memory time over the sum of both times.")
        bound_ratio = Output(memory_time / compute_time, doc="Memory over compute time (> 1: memory-bound).")
        intensity = Output(flops_per_step / weight_bytes, "flop/byte",
                           doc="FLOPs per weight byte: set by the batch, the precision and the share of "
                                             "parameters that work on a token (the tensor-parallel width cancels), so "
                                             "batching is what moves decode off the bandwidth roof.")
        attainable_flops = Output(Min(hardware.peak, hardware.bandwidth * intensity), "flop/s",
                                  doc="The roofline rate at this intensity.")
        peak_fraction = Output(attainable_flops / hardware.peak, doc="The roofline rate over the peak.")
        bottleneck = Output(Exceeds(memory_time, compute_time), labels=("Compute", "Memory"),
                            doc="`Memory` when the weight stream takes longer than the FLOPs, "
                            "else `Compute` (a tie included).")
    fits = Fits(weight_bytes <= hardware.capacity, "each device's share of the weights must fit in its memory",
                unit="GB", guards=(compute_time, memory_time))


_llama3_70b, _llama2_70b, _gpt2 = Models.Language.Llama3_70B, Models.Language.Llama2_70B, Models.Language.GPT2

Llama3_70B_DecodeH100 = Instance(
    DecodeScenario,
    name="Llama-3.1-70B decode on one H100, FP16 weights, batch 1",
    description="One generated token of Llama-3.1-70B (70.6B parameters at 2 bytes) on one H100.",
    workload=_llama3_70b,
    hardware=Hardware.Cloud.H100,
)
Llama2_70B_DecodeH100 = Llama3_70B_DecodeH100.variant(
    name="Llama-2-70B decode on one H100, FP16 weights, batch 1",
    description="One generated token of Llama-2-70B (70B parameters at 2 bytes) on one H100.",
    workload=_llama2_70b,
)
Llama3_70B_DecodeH100Batch64 = Instance(
    DecodeScenario,
    name="Llama-3.1-70B decode on one H100, FP16 weights, batch 64",
    description="64 requests share each read of Llama-3.1-70B's FP16 weights on one H100.",
    workload=_llama3_70b,
    hardware=Hardware.Cloud.H100,
    batch_size=64,
)
Llama3_70B_Int8DecodeH100 = Instance(
    DecodeScenario,
    name="Llama-3.1-70B decode on one H100, INT8 weights, FP8 rate",
    description="Llama-3.1-70B with 1-byte weights on one H100, FLOPs priced at its FP8 rate.",
    workload=_llama3_70b,
    hardware=Hardware.Cloud.H100,
    precision="int8",
    peak_precision="fp8",
)
Llama2_70BDecodeFloorTp8 = Instance(
    DecodeScenario,
    name="Llama-2-70B decode floor across a DGX H100's eight GPUs",
    description="Llama-2-70B's FP16 weights split 8 ways by tensor parallelism (one DGX H100), batch 1.",
    workload=_llama2_70b,
    hardware=Hardware.Cloud.H100,
    tp_size=Systems.Nodes.DGX_H100.accelerators_per_node,
)
Llama2_70B_DecodeTwoH100 = Llama2_70B_DecodeH100.variant(
    name="Llama-2-70B decode across two H100s, FP16 weights",
    description="Llama-2-70B's FP16 weights split across two H100s by tensor parallelism, batch 1.",
    tp_size=2,
)
Gpt2XlDecodeH100 = Llama2_70B_DecodeH100.variant(
    name="GPT-2 XL decode on one H100, FP16 weights, batch 1",
    description="One generated token of GPT-2 XL (1.5B parameters at 2 bytes) on one H100.",
    workload=_gpt2,
)
Gpt2XlFp16DecodeOnH100 = Instance(
    DecodeScenario,
    name="GPT-2 XL FP16 decode on an H100",
    description="GPT-2 XL's 3 GB of FP16 weights streamed once per generated token on one H100.",
    workload=_gpt2,
    hardware=Hardware.Cloud.H100,
    precision="fp16",
)
# The flagship as it runs: 70B in FP16 (141.2 GB) cannot sit on one 80 GiB H100, so the entries a first
# look lands on are ones that fit: FP8 weights on one device, or FP16 split over two.
Llama3_70B_Fp8DecodeH100 = Instance(
    DecodeScenario,
    name="Llama-3.1-70B decode on one H100, FP8 weights, batch 1",
    description="Llama-3.1-70B with 1-byte FP8 weights (70.6 GB, inside the H100's 85.9 GB), FLOPs at its FP8 rate.",
    workload=_llama3_70b,
    hardware=Hardware.Cloud.H100,
    precision="fp8",
    peak_precision="fp8",
)
Llama3_70B_DecodeTwoH100 = Llama3_70B_DecodeH100.variant(
    name="Llama-3.1-70B decode across two H100s, FP16 weights, batch 1",
    description="Llama-3.1-70B's FP16 weights split across two H100s by tensor parallelism (70.6 GB each), batch 1.",
    tp_size=2,
)
