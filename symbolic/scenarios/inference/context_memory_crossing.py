"""Where a growing context's KV cache and stored scores cross the weights and the device."""

from symbolic.catalog import Constants, Hardware, Models
from symbolic.model import Input, Instance, Node, Output, Question, Scenario, Series, Sweep, WorkloadInput, sqrt


class ContextMemoryCrossingScenario(Scenario):
    """Three memories of `workload` as the context grows on `hardware`: fixed, linear, quadratic.

    The weights are fixed; the KV cache grows linearly with the context; one layer's stored
    attention scores (every head) grow with its square. Each crossing is the context at which
    one memory reaches another: the cache the weights, the scores the device's whole memory
    (its true capacity, 80 GiB = 85.9 GB), and the scores the cache.
    """

    assumptions = ("Full unfused attention scores of one layer, every head stored; one sequence; every block caches "
                   "every token (the crossings solve linear growth, so a sliding-window block is not capped here).")
    excludes = "Activations other than the scores, tiling (FlashAttention stores no score matrix) and batching."
    references = (
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023 (KV-cache size per token).",
        "Dao et al., FlashAttention, NeurIPS 2022 (the quadratic score memory it avoids).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2XlContextMemoryOnH100
>>> s.kv_crossing, s.kv_score_crossing
(9765.625, 6144.0)
>>> round(s.score_crossing, 6)
41448.605747
"""

    main_outputs = ("kv_crossing", "score_crossing", "kv_score_crossing")
    chart = Sweep(
        instance="Gpt2XlContextMemoryOnH100",
        input="bytes_per_value",
        values=(0.5, 1.0, 2.0, 4.0),
        series=(Series("kv_crossing", "KV cache = weights"), Series("score_crossing", "one layer's scores = device memory"),
         Series("kv_score_crossing", "one layer's scores = KV cache")),
        xlabel="bytes per value",
        ylabel="context [tokens]",
        caption="GPT-2 XL on an H100: where the growing memories cross, against the storage width. The cache and "
        "the weights scale together, so their crossing does not move; the scores' crossing with the "
        "device falls as 1/√e.")
    questions = (Question(solve_for='bytes_per_value', where='score_crossing', equals='65536'),)

    workload = WorkloadInput("TransformerWorkload", requires=("hidden_dim", "heads"),
                             doc="The model: parameters, layers, heads and KV geometry.")
    hardware = Node(doc="The device: its memory capacity as stored.")
    bytes_per_value = Input("byte", positive=True, symbol="e", doc="Storage width of weights, cache and scores.")

    weights = Output(workload.size_in_bytes(bytes_per_value), "GB", doc="Bytes of the weights, each stored at the "
                                                                        "width of one value.")
    kv_per_token = Output(workload.kv_cache_bytes_per_token(bytes_per_value), "byte", doc="Cache bytes of one token.")
    score_bytes_per_pair = Output(workload.heads * bytes_per_value, "byte",
                                  doc="Score bytes of one (query, key) pair in one layer, every head.")
    kv_crossing = Output(weights / kv_per_token, doc="Tokens at which the KV cache equals the weights.")
    score_crossing = Output(sqrt(hardware.capacity / score_bytes_per_pair),
                            doc="Tokens at which one layer's stored scores fill the device's memory.")
    kv_score_crossing = Output(kv_per_token / score_bytes_per_pair,
                               doc="Tokens at which one layer's scores equal the whole KV cache.")


Gpt2XlContextMemoryOnH100 = Instance(
    ContextMemoryCrossingScenario,
    name="GPT-2 XL's weights, KV cache and attention scores on an H100, FP16",
    description="GPT-2 XL at 2 bytes per value on one 80 GiB H100: where the growing memories cross.",
    workload=Models.Language.GPT2,
    hardware=Hardware.Cloud.H100,
    bytes_per_value=Constants.ByteWidths.FP16,
)
