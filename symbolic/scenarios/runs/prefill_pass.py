"""A prefill pass on t tensor-parallel GPUs: the time to the first token, predicted for measured runs."""

from symbolic.catalog import storage_widths
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.catalog.measurements import description, load_runs, scenario_inputs
from symbolic.model import (
    Choice, Exceeds, Fits, Input, Instance, Max, Node, Output, Precision, Question, Scenario, Series, Sweep, flop,
    WorkloadInput, powers_of_two,
)


class PrefillPassScenario(Scenario):
    """The prompt of `batch` sequences of `input_tokens` tokens through a transformer on `tp` GPUs.

    Each layer is bound by the slower of its FLOPs (GEMMs of two FLOPs per weight per token
    and the attention core over the prompt, at the device's attained matrix rate, which falls
    for GEMMs of few rows) and its memory traffic (its share of the weights, read once, and
    the keys and values it writes to the cache). Tensor parallelism adds two all-reduces of
    the layer's output over NVLink per layer, and every kernel a launch. The first token's
    logits come from the output layer at the last position.
    """

    assumptions = ("Compute and weight traffic of a layer overlap fully (the slower one counts); all-reduces and "
                   "launches do not overlap; ring all-reduces at the attained NVLink bandwidth; the attention core "
                   "over the full square of the prompt (a sliding-window block: each token over at most its window).")
    excludes = ("Tokenization, scheduling and sampling, the embedding lookup, and element-wise kernels (a fused "
                "attention kernel keeps the scores on chip).")
    references = (
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023 (prefill bound by compute, "
        "tensor-parallel all-reduces per layer).",
        "NVIDIA, TensorRT-LLM v0.5 performance notes (time to first token on A100).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Llama7BPrefill2048
>>> s.layer_weights, s.gemm_rows
(202375168, 2048)
"""

    # The solved GEMM efficiency (on the site only) inlines the window's attended positions.
    widest_equation = 70.0
    main_outputs = ("ttft", "layer_compute_time", "layer_traffic_time")
    chart = Sweep(
        instance="Llama7BPrefill2048", input="input_tokens", values=powers_of_two(14)[4:],
        series=(Series("ttft", "time to first token"),),
        xlabel="input tokens", ylabel="time to first token [ms]",
        caption="Llama 7B on one A100: short prompts are bound by reading the weights and by small GEMMs, long "
                "ones by compute, the attention core growing with the square.")
    questions = (Question(solve_for="matmul_efficiency", where="layer_compute_time", equals="1 ms"),)

    hardware = Node(doc="The GPU: its peak matrix rate and memory bandwidth are read.")
    precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="w",
                       doc="Storage precision of the weights and activations.")
    peak_precision = Precision(hardware, default="{precision}|peak",
                               doc="Key of the node's rates the GEMMs run at (default: the storage precision's).")
    workload = WorkloadInput(TransformerWorkload, requires=("hidden_dim", "heads", "vocab_size", "ffn_dim"),
                             doc="The transformer, by its architecture (a catalog model with its layout, or "
                                 "`workload_from_config`): the weights of a block that work on a token, the "
                                 "attention widths, the cache of a token and the vocabulary are read.")
    tp = Input(integer=True, positive=True, default=1, symbol="t", doc="Tensor-parallel GPUs.")
    batch = Input(integer=True, positive=True, default=1, symbol="B", doc="Prompts in the pass.")
    input_tokens = Input(integer=True, positive=True, symbol="n", doc="Tokens per prompt.")
    nvlink_bandwidth = Input("GB/s", positive=True, symbol=r"\beta_{nv}",
                             doc="NVLink bandwidth per direction between the t GPUs.")
    matmul_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{mm}",
                              doc="Share of the peak rate a large GEMM attains on the device.")
    gemm_half_rows = Input(integer=True, nonnegative=True, symbol="M_{1/2}",
                           doc="GEMM rows at which the attained rate is half the large-GEMM rate.")
    memory_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{mem}",
                              doc="Share of the memory bandwidth a streaming kernel attains.")
    nvlink_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{nv}",
                              doc="Share of the NVLink bandwidth a ring collective attains.")
    kernels_per_layer = Input(positive=True, symbol="k_L", doc="Kernels one layer launches per pass.")
    kernel_launch = Input("µs", nonnegative=True, symbol=r"\tau_k", doc="Launch cost of one kernel.")

    L, h, V, t, n = workload.layers, workload.hidden_dim, workload.vocab_size, tp, input_tokens

    layer_weights = Output(workload.attention_parameters_per_layer + workload.active_mlp_parameters_per_layer,
                           symbol="W",
                           doc="Weights of one block that work on a token: its attention projections (narrower "
                               "keys and values with grouped-query attention) and the MLP weights a token goes "
                               "through (a mixture of experts: the routed and shared experts it uses); norms left "
                               "out.")
    gemm_rows = Output(batch * n, symbol="M", doc="Rows of every GEMM of the pass: its tokens.")
    matmul_rate = Output(hardware.peak * matmul_efficiency * gemm_rows / (gemm_rows + gemm_half_rows), "flop/s",
                         symbol="R", doc="Rate the pass's GEMMs attain on one GPU.")
    attended = Output(workload.cached_positions(n), symbol="S_L",
                      doc="Positions a prompt's last token attends to, summed over the blocks (a sliding-window "
                          "block: at most its window).")
    layer_flops = Output((2 * gemm_rows * layer_weights * flop
                          + batch * n * workload.attention_flops_per_position * attended / L) / t,
                         "flop", symbol="F",
                         doc="FLOPs of one layer on one GPU: its GEMMs and the attention core, each token over the "
                             "positions a block attends to (the whole prompt, a sliding-window block at most its "
                             "window), averaged over the blocks.")
    layer_compute_time = Output(layer_flops / matmul_rate, "s", doc="The layer's FLOPs at the GEMM rate.")
    layer_bytes = Output((layer_weights + gemm_rows * workload.kv_values_per_position) * precision / t, "byte",
                         symbol="Q", doc="Bytes one layer moves on one GPU: its weights, and the keys and values it "
                                         "writes for every token.")
    layer_traffic_time = Output(layer_bytes / (hardware.bandwidth * memory_efficiency), "s",
                                doc="The layer's bytes at the attained memory bandwidth.")
    ring_bytes = Output(2 * (t - 1) / t * gemm_rows * h * precision, "byte",
                        doc="Bytes each GPU sends per all-reduce of the layer's output in a ring.")
    layer_tp_time = Output(2 * ring_bytes / (nvlink_bandwidth * nvlink_efficiency), "s",
                           doc="The layer's two all-reduces (attention and MLP) over NVLink.")
    layer_time = Output(Max(layer_compute_time, layer_traffic_time) + layer_tp_time
                        + kernels_per_layer * kernel_launch, "s", doc="One layer of the pass on one GPU.")
    compute_bound_layers = Output(Exceeds(layer_compute_time, layer_traffic_time),
                                  doc="1 when a layer is bound by its FLOPs, 0 when by its memory traffic.")
    head_time = Output(Max(2 * batch * h * V * flop / t / matmul_rate,
                           h * V * precision / t / (hardware.bandwidth * memory_efficiency)), "s",
                       doc="The output layer's logits at the last position of each prompt.")
    ttft = Output(L * layer_time + head_time, "s", doc="Time to the first token: every layer, then the logits.")
    memory_per_gpu = Output((workload.architecture_parameters * precision
                             + batch * workload.kv_cache_bytes(n, precision)) / t, "GiB",
                            doc="What one GPU holds: its share of every weight (a mixture of experts: every expert; "
                                "embeddings, norms and the output layer too) and of the prompts' keys and values.")
    fits = Fits(memory_per_gpu <= hardware.capacity, "the weights and the prompt's keys and values must fit in "
                "the GPUs' memory", unit="GiB", guards=(ttft,))


for _run in load_runs():
    if _run.kind == "prefill":
        globals()[_run.name] = Instance(PrefillPassScenario, name=f"{_run.name} ({_run.source})",
                                        description=description(_run), **scenario_inputs(_run))
