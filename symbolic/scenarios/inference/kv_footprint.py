"""A transformer's KV cache for a number of kept tokens, and how many such requests a memory share holds."""

from symbolic.catalog import Constants, Models
from symbolic.model import (
    Input, Instance, Node, Output, Question, Rational, Scenario, Series, Sweep, WorkloadInput, powers_of_two,
)


class KvFootprintScenario(Scenario):
    """`workload`'s KV cache for `tokens` kept tokens; with `hardware` and `kv_share`, how many requests fit.

    Every layer caches one key and one value vector per key-value head for each token
    (multi-head latent attention caches the latent and the rotary key instead), at
    `bytes_per_value` each; `kv_width_factor` scales that width (½ = half the KV heads).
    With a device, `kv_share` of its memory as labeled (its capacity in GiB read as decimal
    GB, the way the reference library divides) is the cache's budget.
    """

    assumptions = "Every kept token of every request is cached at the same width in every layer."
    excludes = "Paging granularity and fragmentation, activations, and the runtime's workspace."
    references = (
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023 (KV-cache size per token).",
        "Ainslie et al., GQA: training generalized multi-query transformer models, EMNLP 2023 (fewer KV heads).",
        "DeepSeek-AI, DeepSeek-V3 technical report, 2024 (multi-head latent attention).",
    )
    differs = {
        "total": "a sliding-window block keeps at most its window (the record's `kv_cache_bytes`): Mistral-7B v0.1 "
                 "from its config keeping 16,384 tokens at FP16 holds 131,072 byte · 4,096 = 0.537 GB, not 2.147 GB, "
                 "so half of an H100's 80 GB holds 74.5 such requests, not 18.6; the reference multiplies the bytes "
                 "of a token by the tokens. `per_token` and `tokens_in_budget` stay the rate of one token in every "
                 "block. Models without a window (every catalog entry) are unchanged.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2XlKvFullWindow
>>> s.per_token
<Quantity(307200.0, 'byte')>
>>> round(s.total.to("GB").magnitude, 12), s.weights
(0.3145728, <Quantity(3.0, 'gigabyte')>)
"""

    main_outputs = ("per_token", "total", "requests")
    chart = Sweep(
        instance="Gpt2XlKvFullWindow",
        input="tokens",
        values=powers_of_two(17),
        series=(Series("total", "KV cache"), Series("weights", "weights at the same width", dashed=True)),
        xlabel="kept tokens",
        ylabel="memory [GB]",
        caption="GPT-2 XL's KV cache at FP16 against the tokens kept: it equals the weights near 9766 tokens.")
    questions = (Question(solve_for='tokens', where='total', equals='weights'),)

    workload = WorkloadInput("TransformerWorkload", requires=("hidden_dim", "heads"),
                             doc="The model: layers and KV geometry (heads, KV heads, head width, or latent widths).")
    tokens = Input(integer=True, positive=True, symbol="T", doc="Tokens kept in the cache (one request).")
    bytes_per_value = Input("byte", positive=True, symbol="e", doc="Storage width of one cached value.")
    hardware = Node(optional=True, doc="Optional device whose memory holds the cache.")
    kv_share = Input(positive=True, at_most=1, default=None, symbol=r"\sigma",
                     doc="Share of the device's memory given to the cache (with `hardware`).")
    kv_width_factor = Input(positive=True, default=1.0, symbol=r"\phi",
                            doc="Scale of the cached width (½: half the KV heads).")

    per_token = Output(workload.kv_cache_bytes_per_token(bytes_per_value) * kv_width_factor, "byte",
                       doc="Cache bytes of one token.")
    total = Output(workload.kv_cache_bytes(tokens, bytes_per_value) * kv_width_factor, "GB",
                   doc="Cache bytes of one request's kept tokens; a sliding-window block keeps at most its window.")
    weights = Output(workload.size_in_bytes(bytes_per_value), "GB", doc="Bytes of the weights at the width of the "
                                                                        "cache's values, to compare the two.")
    kv_budget = Output(hardware.capacity * Rational(10**9, 2**30) * kv_share, "GB",
                       doc="The cache's share of the device's memory as labeled (80 GiB counts as 80 GB).")
    tokens_in_budget = Output(kv_budget / per_token, doc="Tokens the budget caches (fractional).")
    requests = Output(kv_budget / total, doc="Requests of `tokens` kept tokens the budget holds (fractional).")


Gpt2XlKvFullWindow = Instance(
    KvFootprintScenario,
    name="GPT-2 XL's KV cache over its full 1024-token window, FP16",
    description="GPT-2 XL (48 layers, 25 heads of 64) caching its full 1024-token window at 2 bytes per value.",
    workload=Models.Language.GPT2,
    tokens=Models.Language.GPT2.context_length,
    bytes_per_value=Constants.ByteWidths.FP16,
)
Llama2_7BKvAt2048Tokens = Gpt2XlKvFullWindow.variant(
    name="Llama-2-7B's KV cache at 2048 tokens, FP16",
    description="Llama-2-7B (32 layers, 32 heads of 128) caching 2048 tokens at 2 bytes per value.",
    workload=Models.Language.Llama2_7B,
    tokens=2048,
)
