"""Serving a transformer at a stated context and batch: time to first token, inter-token latency, memory."""

from symbolic.catalog import Hardware, Models, storage_widths
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.model import (
    Choice, Exceeds, Fits, Group, Input, Instance, Node, Output, Precision, Question, Rational, Scenario, Series, Sweep,
    WorkloadInput, powers_of_two, unit_constant,
)

LAYER_TAX_MS = Rational(1, 100)  # framework cost per layer per decode step, ms (the reference's calibration)
PREFILL_EFFICIENCY = Rational(1, 2)  # the reference serving model's share of peak in prefill (ServingModel.Efficiency)


class ServingScenario(Scenario):
    """Serving `workload` on `hardware` at a stated context and batch.

    The prompt of `seq_len` tokens for each of `batch_size` requests is one prefill: the model's
    forward FLOPs per token through the weights (2·P_tok, the active parameters of a mixture of
    experts) and its attention FLOPs per token over the prompt (4·L·a·d_h·S), at half the
    peak rate, plus one dispatch of the node; that is the time to first token. Each later
    token streams the weights and the batch's KV cache once from memory and pays a framework
    cost per layer; that is the inter-token latency. Weights plus cache against the device's
    memory say whether it fits.
    """

    assumptions = ("Prefill at half the peak rate (the reference serving model's default); decode memory-bound; "
                   "the KV cache stored at the weight width.")
    excludes = "Prompt caching, chunked prefill, speculative decoding, paged-cache overhead and activations."
    references = (
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023.",
        "Kwon et al., Efficient memory management for LLM serving with PagedAttention, SOSP 2023.",
    )
    bounds = {"result.memory_utilization": (0, float("inf"))}  # above 1: by how much it does not fit (`feasible`)
    differs = {
        "result.kv_cache_size": "a sliding-window block keeps at most its window (Mistral-7B v0.1 at 16,384 tokens: "
                                "0.537 GB, not 2.15 GB); the reference caches every token in every block.",
        "workload": "a transformer with `heads` and `hidden_dim`: the reference falls back to 32 heads and a width "
                    "of 4096 when they are unset, which describes another model.",
        "prefill_precision": "by default `fp16|bf16|peak`: the node's dense 16-bit rate where it lists one (an "
                             "H100's `fp16_dense`, a TPU's `bf16`), else its headline peak, and `result.prefill_peak` "
                             "is the rate read; the reference reads a key `fp16` only, else the headline, which is "
                             "the same number on every catalog node but the Untether speedAI240 (its 2 PFLOP/s "
                             "headline is FP8; its BF16 rate, 1 PFLOP/s, prices a 16-bit prefill here). A key the "
                             "user gives that the node does not list is refused naming the listed ones.",
        "result.linear_flops": "a mixture of experts is priced at its active parameters (F_tok = 2·P_a per token, the record's `forward_flops_per_token`); the reference writes 2·P with every expert, so Mixtral-8x7B's "
                               "2,048-token prefill is 2·4.67e10·2048 = 191.3 TFLOP there and 2·1.29e10·2048 = "
                               "52.8 TFLOP here.",
        "result.attention_flops": "the head width is the record's `head_dim` (d_h), which the KV cache also reads; "
                                  "the reference writes ⌊d/a⌋ here whatever `head_dim` says (the same number for "
                                  "every catalog model but PaLM-540B: 256 against ⌊18432/48⌋ = 384).",
        "fits": "weights and cache beyond the device's memory do not run: `fits` (and `result.feasible`) is False "
                "and `result.ttft` and `result.itl` are refused, where the reference prices Llama-3.1-70B at FP16 on "
                "one H100 (141.9 GB on 85.9 GB) at 607.0 ms and 43.15 ms.",
        "result.feasible": "the reference's `constraint_trace` sentence is not reproduced: `feasible` and the sizes "
                           "carry what it says.",
    }
    left_out = {
        "result.prefill_chunk_time": "always None in the reference's ServingScenario (no chunked prefill).",
        "result.decode_stall_bound": "always None in the reference's ServingScenario (no disaggregated decode).",
        "result.constraint_trace": "a sentence restating `feasible` and the sizes; those outputs carry it.",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Llama3_8B_ServingH100.result
>>> r.feasible, round(r.ttft.magnitude, 3), round(r.itl.magnitude, 3)
(True, 70.97, 5.194)
>>> Scenarios.Llama3_70B_ServingH100.fits    # 141.2 GB of weights and 0.67 GB of cache on 85.9 GB
False
"""

    # A quantity whose own form is a record's KV cache with and without a window nests that cases in a
    # product (pdflatex sets it within the line); readers keep it by name.
    widest_equation = 68.0
    main_outputs = ("result.ttft", "result.itl", "result.memory_utilization")
    chart = Sweep(
        instance="Llama3_8B_ServingH100", input="seq_len", values=powers_of_two(17),
        series=(Series("result.ttft", "time to first token"), Series("result.itl", "inter-token latency")),
        xlabel="context [tokens]", ylabel="time [ms]",
        caption="Llama-3.1-8B on an H100: the time to first token grows with the prompt (quadratically once "
                "attention dominates), the inter-token latency with the cache.")
    questions = (Question(solve_for="seq_len", where="result.ttft", equals="1 s"),
                 Question(solve_for="batch_size", where="result.memory_utilization", equals="1"))

    workload = WorkloadInput(TransformerWorkload, requires=("heads", "hidden_dim"),
                             doc="The model: parameters, layers, attention geometry and KV heads.")
    hardware = Node(doc="The accelerator: peak rate, bandwidth, memory and dispatch cost.")
    seq_len = Input(integer=True, positive=True, symbol="S", doc="Tokens of context per request.")
    batch_size = Input(integer=True, positive=True, default=1, symbol="B", doc="Requests served together.")
    precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="b",
                       doc="Storage precision of the weights and the KV cache.")
    prefill_precision = Precision(hardware, default="fp16|bf16|peak",
                                  doc="Key of the node's rates pricing the prefill (default: its dense 16-bit rate, "
                                      "else its headline peak; `result.prefill_peak` is the rate read).")

    result = Group(doc="The serving model's answer, as the reference's ServingResult.")
    with result:
        linear_flops = Output(workload.forward_flops_per_token * seq_len * batch_size, "TFLOP",
                              doc="Prefill FLOPs through the weights: the model's forward FLOPs per token "
                                                "for every prompt token of the batch.")
        attention_flops = Output(workload.attention_flops_per_token(seq_len) * seq_len * batch_size, "TFLOP",
                                 doc="Prefill FLOPs of attention: every prompt token attends over its "
                                                   "prompt, so quadratic in the prompt's length.")
        prompt_cache_hit_ratio = Output(0, doc="Share of the prompt served from a prompt cache (none here).")
        prefill_chunks = Output(1, doc="Chunks the prefill is split into (one here).")
        prefill_peak = Output(hardware.peak, "TFLOP/s",
                              doc="The node's rate the prefill is priced at, read at `prefill_precision`.")
        ttft = Output((linear_flops + attention_flops) / (prefill_peak * PREFILL_EFFICIENCY) + hardware.dispatch_tax,
                      "ms", doc="Time to first token: the prefill at half the peak, plus one dispatch.")
        kv_cache_size = Output(workload.kv_cache_bytes(seq_len, precision) * batch_size, "GB",
                               doc="KV cache of the batch at the full context; a sliding-window block keeps at most its "
                                   "window.")
        model_weights_size = Output(workload.size_in_bytes(precision), "GB", doc="Bytes of the weights at "
                                                                                               "the serving precision.")
        total_memory_required = Output(model_weights_size + kv_cache_size, "GB",
                                       doc="Weights plus cache.")
        itl = Output(total_memory_required / hardware.bandwidth
                     + workload.layers * LAYER_TAX_MS * unit_constant("ms"), "ms",
                     doc="Inter-token latency: weights and cache streamed once, plus 0.01 ms per layer of framework work.")
        memory_utilization = Output(total_memory_required / hardware.capacity,
                                    doc="Weights and cache over the device's memory (its true capacity).")
        feasible = Output(1 - Exceeds(total_memory_required, hardware.capacity), labels=(False, True),
                          doc="True when weights and cache fit the device's memory.")
    fits = Fits(total_memory_required <= hardware.capacity, "the weights and the KV cache must fit in the device's "
                "memory", unit="GB", guards=(ttft, itl))


Llama3_70B_ServingH100 = Instance(
    ServingScenario,
    name="Llama-3.1-70B served on one H100 at 2,048 tokens",
    description="One request of 2,048 tokens of Llama-3.1-70B at FP16 on one H100: it does not fit.",
    workload=Models.Language.Llama3_70B,
    hardware=Hardware.Cloud.H100,
    seq_len=2048,
)
Llama3_8B_ServingH100 = Llama3_70B_ServingH100.variant(
    name="Llama-3.1-8B served on one H100 at 2,048 tokens",
    description="One request of 2,048 tokens of Llama-3.1-8B at FP16 on one H100: 16.1 GB of weights and 0.27 GB "
                "of cache fit its 80 GiB.",
    workload=Models.Language.Llama3_8B,
)
Llama3_70B_Fp8ServingH100 = Llama3_70B_ServingH100.variant(
    name="Llama-3.1-70B served on one H100 at 2,048 tokens, FP8",
    description="One request of 2,048 tokens of Llama-3.1-70B at FP8 on one H100: 70.6 GB of weights and its cache "
                "fit the 85.9 GB the FP16 entry overflows.",
    precision="fp8",
    prefill_precision="fp8",
)
