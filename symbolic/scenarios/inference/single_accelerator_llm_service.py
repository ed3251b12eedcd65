"""An LLM chat service on one accelerator: latency, KV residency, request rate and the cost of a token."""

from symbolic.catalog import Constants, Hardware, Models, storage_widths
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.model import (
    Choice, Exceeds, Fits, Input, Instance, Min, Node, Output, Precision, Q, Question, Rational, Require, Scenario, Series, Sweep,
    WorkloadInput, floor, powers_of_two, unit_constant,
)

LAYER_TAX_MS = Rational(1, 100)  # framework cost per layer per decode step, ms (the reference's calibration)


class SingleAcceleratorLlmServiceScenario(Scenario):
    """An LLM chat service on one accelerator: latency, KV residency, request rate and token cost.

    A request is a prompt of `prompt_tokens` and an answer of `decode_tokens`. Its prefill is
    priced like the serving model's (the model's forward FLOPs per token, 2·P_tok at the
    parameters that work on a token, plus attention over the prompt, at
    `prefill_efficiency` of the peak, plus one dispatch); each decode step serves every request
    resident in the cache reserve, streaming the weights once and each request's KV cache, plus
    0.01 ms per layer. The weights and the reserve must fit in the accelerator's memory (`fits`). The cache reserve holds
    a number of whole requests; by Little's law they sustain a request rate, and so does the
    prefill rate; the smaller is the service's rate, and the accelerator's hourly price over
    the tokens it serves in an hour is the price of a million tokens.
    """

    assumptions = ("Every request resident in the cache reserve decodes in each step (the reserve full), so a "
                   "step streams the weights once and every resident request's cache; resident requests overlap "
                   "perfectly; prefill of the whole request prices its time in the system, as in the reference.")
    excludes = "Compute limits of the batched step, queueing delay, paged-cache fragmentation and activations."
    references = (
        "Little, A proof for the queuing formula L = λW, Operations Research 9(3), 1961.",
        "Kwon et al., Efficient memory management for LLM serving with PagedAttention, SOSP 2023.",
    )
    differs = {
        "kv_per_request": "a sliding-window block keeps at most its window (the record's `kv_cache_bytes`): a "
                          "request of 8,192 tokens of Mistral-7B v0.1 from its config holds 131,072 byte · 4,096 = "
                          "536.9 MB of FP16 cache, not 1,073.7 MB, so 72 GiB keeps 144 requests resident, not 72 "
                          "(and `kv_reserve` need hold only the capped request); the reference multiplies the "
                          "bytes of a token by the request's tokens. Models without a window (every catalog entry) "
                          "are unchanged.",
        "prefill_flops": "a mixture of experts is priced at its active parameters (F_tok = 2·P_a per token, the record's `forward_flops_per_token`); the reference writes 2·P with every expert, so Mixtral-8x7B's "
                         "1,000-token prompt is 2·4.67e10·1000 = 93.4 TFLOP through the weights there and "
                         "2·1.29e10·1000 = 25.8 TFLOP here; attention reads the record's `head_dim` (⌊d/a⌋ there).",
        "request_flops": "at active parameters and the record's `head_dim`, as `prefill_flops`.",
        "dispatch_cost": "exactly L · 0.01 ms; the reference computes it as a difference of two times and carries "
                         "float noise (0.32000000000000006 ms for the registry entry).",
        "kv_capacity_tokens": "rounded half up, ⌊K/kv + 1/2⌋; the reference's Python round goes half to even, which "
                              "differs only on an exact tie.",
        "resident_requests": "⌊K / kv_per_request⌋, the whole requests whose cache fits; the reference rounds the "
                             "token capacity first, so a reserve less than half a token short of m requests counts "
                             "m there (the same 469 for the registry entry).",
        "kv_reserve": "must hold at least one whole request's cache: the reference then serves no request and "
                      "divides by zero in `cost_per_million_tokens`.",
        "prefill_precision": "by default `{precision}|peak`: the node's rate at the weights' precision where it "
                             "lists one, else its headline peak (int4 on an H100), as the reference looks it up; "
                             "`prefill_peak` is the rate read. The names resolve through the node's aliases, so "
                             "`bf16` weights on an H100 read its dense 16-bit rate where the reference, finding no "
                             "`bf16` key, takes the headline (the same 989 TFLOP/s). A key the user gives that the "
                             "node does not list is refused.",
        "tpot": "a decode step reads the cache of every resident request (⌊K / kv_per_request⌋ of them), not one: "
                "the reference streams one request's cache, 1.5676 ms for the registry entry, where its 469 "
                "resident requests' 77.2 GB take (4.015 + 469·0.16463) GB / 3.35 TB/s + 0.32 ms = 24.566 ms.",
        "fits": "weights plus KV reserve beyond the accelerator's memory is an infeasible setup: `fits` is False and "
                "the outputs of a running service are refused; the reference prices it (Llama-3-70B at FP16 on an "
                "80 GiB H100: 10 requests/s and −55 GB left).",
        "ttft_target": "read by `meets_ttft_target` (and `tpot_target` by `meets_tpot_target`): the reference keeps "
                       "both targets on the instance and reads them nowhere.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Llama3_8BInt4ChatServiceH100
>>> s.resident_requests, s.request_rate
(469, <Quantity(10.0, '1 / second')>)
>>> round(s.cost_per_million_tokens.magnitude, 6)
0.066348
"""

    # The solved prefill rate (its derivation, on the site only) inlines the capped cache twice.
    widest_equation = 82.0
    main_outputs = ("tpot", "request_rate", "cost_per_million_tokens")
    chart = Sweep(
        instance="Llama3_8BInt4ChatServiceH100", input="prefill_rate", values=powers_of_two(20),
        series=(Series("cost_per_million_tokens", "price of a million tokens"),),
        xlabel="prefill rate [prompt tokens/s]", ylabel="USD per million tokens",
        caption="Llama-3-8B at INT4 on an H100: the price of a million tokens falls with the prefill rate until the "
                "requests the cache reserve holds become the limit.")
    questions = (Question(solve_for="prefill_rate", where="prefill_request_rate", equals="residency_request_rate"),)

    workload = WorkloadInput(TransformerWorkload, requires=("heads", "hidden_dim"),
                             doc="The model: parameters, layers, attention geometry and KV heads.")
    hardware = Node(doc="The accelerator: peak rate, bandwidth, memory and dispatch cost.")
    precision = Choice(storage_widths(), "byte", case_insensitive=True, symbol="b", doc="Weight storage precision.")
    kv_bytes_per_value = Input("byte", positive=True, symbol="e", doc="Storage width of one cached value.")
    prompt_tokens = Input(integer=True, positive=True, symbol="n_p", doc="Tokens of one prompt.")
    decode_tokens = Input(integer=True, nonnegative=True, symbol="n_d", doc="Tokens generated per request.")
    prefill_efficiency = Input(positive=True, at_most=1, symbol=r"\eta", doc="Share of the peak the prefill attains.")
    kv_reserve = Input("GB", positive=True, symbol="K", doc="Memory set aside for KV caches.")
    prefill_rate = Input("1/s", positive=True, symbol=r"\lambda_p", doc="Prompt tokens the service prefills per second.")
    price = Input("USD/h", positive=True, symbol="c", doc="Price of one accelerator-hour.")
    ttft_target = Input("ms", positive=True, default=None, doc="Time-to-first-token target; optional.")
    tpot_target = Input("ms", positive=True, default=None, doc="Time-per-output-token target; optional.")
    prefill_precision = Precision(hardware, default="{precision}|peak",
                                  doc="Key of the node's rates pricing the prefill (default: its rate at the "
                                      "weights' precision, else its headline peak; `prefill_peak` is the rate read).")
    holds_a_request = Require(kv_reserve >= workload.kv_cache_bytes(prompt_tokens + decode_tokens, kv_bytes_per_value),
                              "kv_reserve must hold at least one request's KV cache")

    total_tokens = Output(prompt_tokens + decode_tokens, symbol="N", doc="Tokens of one request, prompt and answer.")
    prefill_flops = Output((workload.forward_flops_per_token + workload.attention_flops_per_token(prompt_tokens))
                           * prompt_tokens, "TFLOP",
                           doc="FLOPs of the prompt's prefill: through the weights and attention over the prompt, "
                               "for every prompt token (so quadratic in the prompt's length).")
    prefill_peak = Output(hardware.peak, "TFLOP/s", symbol="R",
                          doc="The node's rate the prefill is priced at, read at `prefill_precision`.")
    ttft = Output(prefill_flops / (prefill_peak * prefill_efficiency) + hardware.dispatch_tax, "ms",
                  doc="Time to first token: the prompt's prefill plus one dispatch.")
    weights = Output(workload.size_in_bytes(precision), "GB", symbol="W", doc="Bytes of the weights at the serving "
                                                                              "precision, resident on the one "
                                                                              "accelerator.")
    bandwidth = Output(hardware.bandwidth, "TB/s", symbol=r"\beta", doc="The accelerator's memory bandwidth.")
    kv_per_token = Output(workload.kv_cache_bytes_per_token(kv_bytes_per_value), "byte", doc="Cache bytes of a token.")
    kv_per_request = Output(workload.kv_cache_bytes(total_tokens, kv_bytes_per_value), "byte",
                            doc="Cache bytes of a whole request; a sliding-window block keeps at most its window.")
    weight_floor = Output(weights / bandwidth, "s", doc="Streaming the weights once.")
    dispatch_cost = Output(workload.layers * LAYER_TAX_MS * unit_constant("ms"), "ms",
                           doc="Framework cost of one decode step, 0.01 ms per layer.")
    resident_requests = Output(floor(kv_reserve / kv_per_request),
                               doc="Whole requests whose cache fits the reserve, ⌊K / kv_per_request⌋.")
    tpot = Output((weights + resident_requests * kv_per_request) / bandwidth + dispatch_cost, "s",
                  doc="Time per output token: one decode step of every resident request, streaming the weights "
                      "once and each request's cache, plus the framework cost.")
    decode_time = Output(decode_tokens * tpot, "s", doc="Time to generate the answer.")
    kv_capacity_tokens = Output(floor(kv_reserve / kv_per_token + Rational(1, 2)),
                                doc="Tokens of cache the reserve holds (rounded).")
    request_flops = Output((workload.forward_flops_per_token + workload.attention_flops_per_token(total_tokens))
                           * total_tokens, "TFLOP",
                           doc="FLOPs of a prefill of all the request's tokens, as if the whole request were one "
                               "prompt: the compute its time is priced at.")
    request_time = Output(request_flops / (prefill_peak * prefill_efficiency) + hardware.dispatch_tax + decode_time,
                          "s",
                          doc="Time a request spends in the system: a prefill of all its N tokens (as the reference "
                              "prices it) plus its decode.")
    prefill_request_rate = Output(prefill_rate / prompt_tokens, "1/s", doc="Requests the prefill rate admits.")
    residency_request_rate = Output(resident_requests / request_time, "1/s",
                                    doc="Requests the resident ones complete per second (Little's law).")
    request_rate = Output(Min(prefill_request_rate, residency_request_rate), "1/s",
                          doc="The smaller of the two request rates.")
    tokens_per_hour = Output(request_rate * unit_constant("h") * total_tokens, doc="Tokens served per hour.")
    cost_per_million_tokens = Output(price * unit_constant("h") / (tokens_per_hour / 10**6), "USD",
                                     doc="An accelerator-hour's price over the millions of tokens it serves.")
    remaining_memory = Output(hardware.capacity - weights, "GB", doc="Device memory left beside the weights.")
    meets_ttft_target = Output(1 - Exceeds(ttft, ttft_target), labels=(False, True), if_missing="none",
                               doc="Whether the time to first token is within its target (None without one).")
    meets_tpot_target = Output(1 - Exceeds(tpot, tpot_target), labels=(False, True), if_missing="none",
                               doc="Whether the time per output token is within its target (None without one).")
    fits = Fits(weights + kv_reserve <= hardware.capacity, "the weights and the KV reserve must fit in the "
                "accelerator's memory", unit="GB",
                guards=(ttft, tpot, kv_capacity_tokens, resident_requests, remaining_memory))


Llama3_8BInt4ChatServiceH100 = Instance(
    SingleAcceleratorLlmServiceScenario,
    name="Llama-3-8B chat at INT4 on one H100",
    description="Llama-3-8B with INT4 weights and FP16 cache on an H100: 1,000-token prompts, 256-token answers, "
                "72 GiB of cache reserve, 10,000 prompt tokens/s of prefill, 3 dollars per hour.",
    workload=Models.Language.Llama3_8B,
    hardware=Hardware.Cloud.H100,
    precision="int4",
    kv_bytes_per_value=Constants.ByteWidths.FP16,
    prompt_tokens=1000,
    decode_tokens=256,
    prefill_efficiency=0.4,
    kv_reserve=Q("72 GiB"),
    prefill_rate=Q("10000 / s"),
    price=Q("3.0 USD/h"),
    ttft_target=Q("200 ms"),
    tpot_target=Q("20 ms"),
)
