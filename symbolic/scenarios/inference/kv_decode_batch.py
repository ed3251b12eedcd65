"""Batched decode on one accelerator when every sequence also reads its own KV cache."""

from symbolic.catalog import Constants, Hardware, Models
from symbolic.model import (
    Argument, Fits, Input, Instance, Len, ListInput, Max, MaxOver, Node, Output, PerItem, Precision, Question, Scenario, Series,
    Sweep, WorkloadInput, floor, index, powers_of_two,
)

i = index("i", "position")  # a position in `batch_sizes`


class KvDecodeBatchScenario(Scenario):
    """Batched decode when every sequence reads its own KV cache: a step streams the weights once
    and each sequence's cache of `context_tokens`.

    A decode step of B sequences reads the weights W once and B caches of m bytes each, at
    the memory bandwidth β; so the step time grows with the batch, the token rate B/t
    saturates at β/m, and the cache's share of the traffic grows. The largest batch within
    a time-per-token budget, or within the device's memory (its true capacity), follows; a
    step of b sequences whose weights and caches exceed that memory does not run
    (`batch_fits(b)`), and its time, rate and cache share are refused.
    The prompt is priced by the workload's forward FLOPs per token through the weights (2·P_tok,
    at the parameters that work on a token) at
    `prefill_efficiency` of the `peak_precision` rate.
    """

    assumptions = ("Decode is memory-bound: step time is bytes over bandwidth; every sequence holds "
                   "`context_tokens` of cache; prefill costs the forward FLOPs per token through the weights, no attention term.")
    excludes = "Activations, the compute time of decode, paging overhead and the framework's per-layer cost."
    references = (
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023 (weights against KV-cache traffic).",
        "Kwon et al., Efficient memory management for LLM serving with PagedAttention, SOSP 2023 (batch limited "
        "by cache memory).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2XlChatDecodeBatchesH100
>>> s.max_batch_in_memory, [s.max_batch_within(t) for t in (5, 20, 50)]
(263, [43, 203, 522])
>>> [round(s.token_rate(b).to("1/s").magnitude, 1) for b in s.batch_sizes]
[1010.7, 4858.1, 8204.3, 9268.3, 9910.9]
>>> s.step_bytes(8)
<Quantity(5.5165824, 'gigabyte')>
>>> s.batch_fits(263), s.batch_fits(264)
(True, False)
"""

    main_outputs = ("rate_ceiling", "max_batch_in_memory", "prefill_time")
    chart = Sweep(
        instance="Gpt2XlChatDecodeBatchesH100",
        input="context_tokens",
        values=powers_of_two(15),
        series=(Series("rate_ceiling", "token-rate ceiling β/m"),),
        xlabel="context [tokens]",
        ylabel="tokens per second",
        caption="GPT-2 XL on an H100: the ceiling on the decode token rate falls as each sequence's cache grows.")
    questions = (Question(solve_for='context_tokens', where='rate_ceiling', equals='5000'),)
    differs = {
        "kv_per_sequence": "a sliding-window block keeps at most its window (the record's `kv_cache_bytes`): "
                           "Mistral-7B v0.1 from its config at 16,384 tokens of FP16 cache holds 131,072 byte · "
                           "4,096 = 536.9 MB a sequence, not 2,147.5 MB, so on an H100 `rate_ceiling` is 6,240/s, "
                           "not 1,560/s, and `max_batch_in_memory` 133, not 33; the reference multiplies the bytes "
                           "of a token by the context. Models without a window (every catalog entry) are unchanged.",
        "peak_precision": "the default `fp16|bf16|peak` reads the node's dense 16-bit rate (`fp16_dense` on an "
                          "H100, the same 989 TFLOP/s), else its headline peak, so every catalog node works; the "
                          "reference's `fp16_dense` raises KeyError on the 48 nodes without that key. A key the "
                          "user gives is refused when the node does not list it.",
        "max_batch_within": "never negative: when the weights alone exceed the time budget the largest "
                            "batch is 0 (the reference returns a negative count, e.g. −222 for Llama-3-70B "
                            "at FP16 on an H100 within 20 ms).",
        "max_batch_in_memory": "never negative: 0 when the weights alone do not fit (the reference returns "
                               "−165 for Llama-3-70B at FP16 on an H100).",
        "batch_sizes": "read by `batch_token_rates`, the token rate at each; the reference keeps it and no output "
                       "reads it. The per-batch values are also methods of a batch size, `step_time(b)` for any b ≥ 0.",
        "fits": "weights beyond the device's memory do not run: `fits` is False and the step and prefill times "
                "are refused (the reference prices Llama-3-70B at FP16, 141.2 GB, on one 80 GiB H100).",
        "batch_fits": "a batch whose weights and caches exceed the device's memory (b > `max_batch_in_memory`) "
                      "does not run: `step_time(b)`, `token_rate(b)` and `cache_share(b)` are refused (NaN for "
                      "those elements of an array b), where the reference prices any b (GPT-2 XL on an H100: b = "
                      "264 needs 3 + 264·0.3145728 = 86.05 GB > 85.90 GB, the reference gives 25.69 ms).",
        "batches_fit": "a batch size of interest whose caches do not fit beside the weights gets no rate: "
                       "`batch_token_rates` is refused when the largest of `batch_sizes` exceeds "
                       "`max_batch_in_memory`, where the reference prices every entry.",
        "prefill_ops": "the record's forward FLOPs per token, 2·P_tok at the parameters that work on a token; "
                       "the reference reads the stated `inference_flops`, which is the same number for every "
                       "catalog decoder (GPT-2: 2·1.5e9 = 3e9) but per sequence for an encoder (BERT-Base: 2.2e10 "
                       "per 128-token sequence, 100× 2P) and absent for OPT-13B.",
    }

    workload = WorkloadInput("TransformerWorkload", requires=("hidden_dim", "heads"),
                             doc="The model: weight bytes, KV geometry and its forward FLOPs per token.")
    hardware = Node(doc="The accelerator: bandwidth, capacity and the `peak_precision` rate.")
    weight_bytes_per_param = Input("byte", positive=True, symbol="b_w", doc="Storage width of one weight.")
    kv_bytes_per_value = Input("byte", positive=True, symbol="e", doc="Storage width of one cached value.")
    context_tokens = Input(integer=True, positive=True, symbol="S", doc="Tokens cached per sequence.")
    batch_sizes = ListInput(integer=True, positive=True, symbol=r"\mathcal{B}",
                            doc="Batch sizes of interest: `batch_token_rates` gives the token rate at each.")
    prompt_tokens = Input(integer=True, positive=True, symbol="n_p", doc="Tokens of one prompt (prefill).")
    prefill_efficiency = Input(positive=True, at_most=1, symbol=r"\eta", doc="Achieved share of the peak in prefill.")
    peak_precision = Precision(hardware, default="fp16|bf16|peak",
                               doc="Key of the node's `precision_flops` pricing prefill (default: its dense 16-bit "
                                   "rate, else its headline peak).")
    b = Argument(integer=True, nonnegative=True, example=8, symbol="B", doc="Sequences decoding together.")
    tpot = Argument("ms", positive=True, example=20, symbol=r"\tau", doc="A time-per-token budget.")

    weights = Output(workload.size_in_bytes(weight_bytes_per_param), "GB", symbol="W", doc="Bytes of the weights, "
                                                                                           "streamed once per decode "
                                                                                           "step whatever the batch.")
    kv_per_token = Output(workload.kv_cache_bytes_per_token(kv_bytes_per_value), "byte", doc="Cache bytes of one token.")
    kv_per_sequence = Output(workload.kv_cache_bytes(context_tokens, kv_bytes_per_value), "MB", symbol="m",
                             doc="Cache bytes of one sequence of `context_tokens`; a sliding-window block keeps at "
                                 "most its window.")
    bandwidth = Output(hardware.bandwidth, "TB/s", symbol=r"\beta", doc="The accelerator's memory bandwidth.")
    step_bytes = Output(weights + b * kv_per_sequence, "GB",
                        doc="Bytes one decode step of b sequences reads: the weights once, every sequence's cache.")
    step_time = Output(step_bytes / bandwidth, "ms", doc="Time of one decode step of b sequences: memory-bound, all its bytes at the bandwidth.")
    token_rate = Output(b / step_time, "1/s", doc="Tokens generated per second by b sequences.")
    cache_share = Output(b * kv_per_sequence / step_bytes, doc="Share of a step's bytes that are cache reads.")
    rate_ceiling = Output(bandwidth / kv_per_sequence, "1/s",
                          doc="The token rate as the batch grows without bound: each sequence's cache is still read "
                              "once per token, so the bandwidth over one sequence's cache caps it.")
    max_batch_within = Output(Max(0, floor((tpot * bandwidth - weights) / kv_per_sequence)),
                              doc="Largest batch whose decode step fits the time-per-token budget (0 if none).")
    max_batch_in_memory = Output(Max(0, floor((hardware.capacity - weights) / kv_per_sequence)),
                                 doc="Largest batch whose weights and caches fit the device's memory (0 if none).")
    peak_rate = Output(hardware.peak, "TFLOP/s", doc="The accelerator's rate at `peak_precision`.")
    ridge = Output(peak_rate / bandwidth, "flop/byte", doc="Intensity at which the accelerator turns compute-bound.")
    prefill_ops = Output(workload.forward_flops_per_token * prompt_tokens, "flop",
                         doc="FLOPs of one prompt: the forward FLOPs per token through the weights, for every "
                             "token of the prompt.")
    prefill_time = Output(prefill_ops / (peak_rate * prefill_efficiency), "ms",
                          doc="Time of one prompt at `prefill_efficiency` of the peak rate.")
    batch_token_rates = PerItem(batch_sizes[i] * bandwidth / (weights + batch_sizes[i] * kv_per_sequence),
                                (i, 0, Len(batch_sizes) - 1), "1/s", keys=batch_sizes,
                                doc="The token rate at each batch size of interest, as `token_rate(b)` gives it.")
    fits = Fits(weights <= hardware.capacity, "the weights must fit in the accelerator's memory", unit="GB",
                guards=(step_time, prefill_time, batch_token_rates))
    batch_fits = Fits(step_bytes <= hardware.capacity, "the weights and the b sequences' caches must fit in the "
                      "accelerator's memory", unit="GB", guards=(step_time, cache_share))
    largest_batch = Output(MaxOver(batch_sizes[i], (i, 0, Len(batch_sizes) - 1)), symbol=r"B_{\max}",
                           doc="The largest batch size of interest.")
    batches_fit = Fits(weights + largest_batch * kv_per_sequence <= hardware.capacity,
                       "the weights and the caches of the largest batch size of interest must fit in the "
                       "accelerator's memory", unit="GB", guards=(batch_token_rates,))


Gpt2XlChatDecodeBatchesH100 = Instance(
    KvDecodeBatchScenario,
    name="GPT-2 XL chat decode on an H100 at batches 1 to 128, full 1024-token caches",
    description=("GPT-2 XL at FP16 weights and cache on one H100, each sequence holding its full 1024-token "
                 "window, at batches 1, 8, 32, 64 and 128; 512-token prompts prefilled at 40 % of the FP16 peak."),
    workload=Models.Language.GPT2,
    hardware=Hardware.Cloud.H100,
    weight_bytes_per_param=Constants.ByteWidths.FP16,
    kv_bytes_per_value=Constants.ByteWidths.FP16,
    context_tokens=Models.Language.GPT2.context_length,
    batch_sizes=[1, 8, 32, 64, 128],
    prompt_tokens=512,
    prefill_efficiency=0.4,
    peak_precision="fp16_dense",
)
