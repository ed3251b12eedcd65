"""A Megatron-style training iteration on t x p x d GPUs: time and memory per GPU, predicted for measured runs."""

from symbolic.catalog import storage_widths
from symbolic.catalog.measurements import description, load_runs, scenario_inputs
from symbolic.model import (
    Choice, Exceeds, Fits, Input, Instance, Min, Node, Output, Precision, Question, Require, Scenario, Series, Sub,
    Sweep, flop, floor, unit_constant,
)
from symbolic.scenarios.distributed.pipeline_schedule import PipelineScheduleScenario

byte = unit_constant("byte")


class MegatronIterationScenario(Scenario):
    """One training iteration of a GPT-style transformer, tensor (t), pipeline (p) and data (d) parallel.

    Each GPU runs its stage's L/p layers for m = B/(b·d) micro-batches. A layer's work per
    micro-batch is its GEMMs (two FLOPs per weight per token) and the attention core
    (4·b·s²·h), a third of it forward and two thirds backward, plus what the recomputation
    mode runs again (the whole forward, the attention core, or nothing); the GEMMs run at the
    device's attained matrix rate, which falls for GEMMs of few rows. Element-wise kernels
    move a fitted multiple of the layer's stored activations through memory, each kernel
    costs a launch, and the tensor-parallel all-reduces (or reduce-scatter/all-gather pairs
    with sequence parallelism, one pair more in the backward pass) cross NVLink. A stage
    also sends each micro-batch's boundary activations to the next over the fabric and the
    last stage runs the output layer. The (interleaved) 1F1B schedule stretches the m
    micro-batches by its bubble; the data-parallel gradient all-reduce and the Adam update
    follow. Memory per GPU is the stage's weights, gradients and Adam state, and the
    activations its first stage holds for the micro-batches in flight (Korthikanti et al.).
    """

    assumptions = ("Every stage holds L/p layers of one shape; compute, memory traffic and communication of a layer "
                   "do not overlap; the last stage's output layer paces the pipeline; ring collectives at the "
                   "attained link bandwidth; the weights per GPU count the transformer layers (as Korthikanti et "
                   "al.'s Figure 1 does), 18 bytes per parameter for FP16 weights, FP32 gradients and Adam state.")
    excludes = ("The embedding table's memory and its gradient all-reduce, communication overlapped with compute, "
                "stage imbalance beyond the output layer, data loading, and allocator fragmentation.")
    references = (
        "Korthikanti et al., Reducing activation recomputation in large transformer models, MLSys 2023 "
        "(activation bytes per layer; sequence parallelism; selective recomputation; Tables 3 and 5, Figure 1).",
        "Narayanan et al., Efficient large-scale language model training on GPU clusters using Megatron-LM, "
        "SC 2021 (FLOPs per iteration; the interleaved 1F1B schedule and its bubble (p - 1)/(v·m)).",
        "Shoeybi et al., Megatron-LM: training multi-billion parameter language models using model parallelism, "
        "arXiv:1909.08053, 2019 (two all-reduces per layer per pass).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Megatron175BFullRecompute
>>> s.microbatches, s.layers_per_stage, s.collectives_per_layer
(64.0, 12.0, 6)
>>> round(s.params_optimizer_per_gpu.to("GiB").magnitude, 4)
45.5625
"""

    main_outputs = ("iteration_time", "params_optimizer_per_gpu", "activations_per_gpu")
    chart = Sweep(
        instance="Megatron175BSeqSelective", input="micro_batch", values=(1, 2, 4, 8),
        series=(Series("iteration_time", "iteration time"),),
        xlabel="micro-batch [sequences]", ylabel="iteration time [s]",
        caption="GPT-3 175B on 64 A100s (t 8 x p 8, seq+sel): larger micro-batches mean fewer of them, so a longer "
                "pipeline bubble, against GEMMs of more rows.")
    questions = (Question(solve_for="layers", where="params_optimizer_per_gpu", equals="60 GiB"),)

    hardware = Node(doc="The GPU: its peak matrix rate, memory bandwidth and capacity are read.")
    precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="w",
                       doc="Storage precision of weights and activations (FP16 mixed precision: 2 bytes).")
    peak_precision = Precision(hardware, default="{precision}|peak",
                               doc="Key of the node's rates the GEMMs run at (default: the storage precision's).")
    vocab_size = Input(integer=True, positive=True, symbol="V", doc="Vocabulary of the output layer.")
    seq_len = Input(integer=True, positive=True, symbol="s", doc="Tokens per sequence.")
    layers = Input(integer=True, positive=True, symbol="L", doc="Transformer layers.")
    hidden_dim = Input(integer=True, positive=True, symbol="h", doc="Model width.")
    heads = Input(integer=True, positive=True, symbol="a", doc="Attention heads.")
    kv_heads = Input(integer=True, positive=True, default=heads, symbol="a_{kv}",
                     doc="Key/value heads (grouped-query attention; the heads by default).")
    ffn_dim = Input(integer=True, positive=True, default=4 * hidden_dim, symbol="f", doc="MLP inner width.")
    gated_mlp = Input(integer=True, nonnegative=True, at_most=1, default=0, symbol="g",
                      doc="1 for a gated MLP (SwiGLU: three FFN matrices), else 0.")
    tp = Input(integer=True, positive=True, symbol="t", doc="Tensor-parallel size: GPUs sharing each layer.")
    pp = Input(integer=True, positive=True, symbol="p", doc="Pipeline stages.")
    dp = Input(integer=True, positive=True, default=1, symbol="d", doc="Data-parallel replicas.")
    global_batch = Input(integer=True, positive=True, symbol="B", doc="Sequences per iteration.")
    micro_batch = Input(integer=True, positive=True, symbol="b", doc="Sequences per micro-batch.")
    interleave = Input(integer=True, positive=True, default=1, symbol="v",
                       doc="Model chunks per GPU of the interleaved schedule (1: plain 1F1B).")
    recompute = Choice({"none": 1, "selective": 2, "full": 3}, symbol="r",
                       doc="Activation recomputation: none, selective (the attention core) or full (each layer's "
                           "forward pass).")
    sequence_parallel = Input(integer=True, nonnegative=True, at_most=1, default=0, symbol=r"\sigma",
                              doc="1 with sequence parallelism (norms and dropout split over the t GPUs), else 0.")
    nvlink_bandwidth = Input("GB/s", positive=True, symbol=r"\beta_{nv}",
                             doc="NVLink bandwidth per direction between the t GPUs of a node.")
    fabric_bandwidth = Input("GB/s", positive=True, symbol=r"\beta_{f}",
                             doc="Inter-node bandwidth per GPU (one NIC each), for pipeline and data parallelism.")
    matmul_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{mm}",
                              doc="Share of the peak rate a large GEMM attains on the device.")
    gemm_half_rows = Input(integer=True, nonnegative=True, symbol="M_{1/2}",
                           doc="GEMM rows at which the attained rate is half the large-GEMM rate.")
    memory_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{mem}",
                              doc="Share of the memory bandwidth a streaming kernel attains.")
    nvlink_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{nv}",
                              doc="Share of the NVLink bandwidth a ring collective attains.")
    fabric_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_{f}",
                              doc="Share of the fabric bandwidth a transfer between nodes attains.")
    kernels_per_layer = Input(positive=True, symbol="k_L", doc="Kernels one layer launches per pass.")
    kernel_launch = Input("µs", nonnegative=True, symbol=r"\tau_k", doc="Launch cost of one kernel.")
    activation_traffic = Input(nonnegative=True, symbol=r"\phi",
                               doc="Memory bytes the element-wise kernels move per layer and micro-batch, over the "
                                   "layer's stored activation bytes (fitted).")
    state_bytes = Input("byte", positive=True, default=18, symbol="S_p",
                        doc="Bytes of state per parameter: FP16 weight, FP32 gradient, FP32 master weight and two "
                            "Adam moments.")
    optimizer_traffic = Input("byte", nonnegative=True, default=30, symbol="U_p",
                              doc="Memory bytes the Adam update moves per parameter (reads and writes of the "
                                  "gradient, master weight, moments and FP16 weight).")

    L, h, a, f, g, V, s = layers, hidden_dim, heads, ffn_dim, gated_mlp, vocab_size, seq_len
    t, p, d, b, v, sigma = tp, pp, dp, micro_batch, interleave, sequence_parallel
    whole_microbatches = Require(floor(global_batch / (b * d)) * b * d >= global_batch,
                                 "global_batch must be a multiple of micro_batch x dp (whole micro-batches)")
    whole_chunks = Require(floor(L / (p * v)) * p * v >= L,
                           "layers must be a multiple of pp x interleave (whole layers per model chunk)")
    whole_heads = Require(floor(kv_heads / t) * t >= kv_heads,
                          "tp must divide kv_heads (and heads): whole heads per GPU")
    interleave_needs_stages = Require((p - 1) * v >= v - 1, "interleave must be 1 without pipeline stages (pp = 1)")
    full = Exceeds(recompute, 2)
    selective = Exceeds(recompute, 1) - full

    microbatches = Output(global_batch / (b * d), symbol="m", doc="Micro-batches each pipeline runs per iteration.")
    layers_per_stage = Output(L / p, symbol="L_s", doc="Layers each GPU holds (over its model chunks).")
    layer_weights = Output(2 * h**2 + 2 * h * kv_heads * (h / a) + (2 + g) * h * f, symbol="W",
                           doc="Weights of one layer: the query and output projections, the narrower key and value "
                               "projections, and the MLP's matrices (biases and norms left out).")
    gemm_rows = Output(b * s, symbol="M", doc="Rows of every GEMM of a micro-batch: its tokens.")
    matmul_rate = Output(hardware.peak * matmul_efficiency * gemm_rows / (gemm_rows + gemm_half_rows), "flop/s",
                         symbol="R", doc="Rate the GEMMs of one micro-batch attain on one GPU.")
    attention_core_flops = Output(4 * b * s**2 * h * flop / t, "flop", symbol="F_a",
                                  doc="Forward FLOPs of one layer's attention scores and weighted values, per GPU.")
    layer_forward_flops = Output(2 * gemm_rows * layer_weights * flop / t + attention_core_flops, "flop",
                                 symbol="F", doc="Forward FLOPs of one layer and micro-batch on one GPU.")
    recompute_flops = Output(full * layer_forward_flops + selective * attention_core_flops, "flop", symbol="F_r",
                             doc="Forward work the recomputation mode runs again in the backward pass.")
    layer_training_flops = Output(3 * layer_forward_flops + recompute_flops, "flop", symbol="F_t",
                                  doc="Forward, backward (twice the forward) and recomputed FLOPs of one layer.")
    layer_compute_time = Output(layer_training_flops / matmul_rate, "s", doc="The layer's FLOPs at the GEMM rate.")
    score_activations = Output(5 * a * s**2 * b * byte / t, "byte", symbol="A_s",
                               doc="Stored attention scores, softmax and dropout mask of one layer per GPU.")
    layer_activations = Output(s * b * h * (34 * sigma / t + (10 + 24 / t) * (1 - sigma)) * byte + score_activations,
                               "MB", symbol="A",
                               doc="Activation bytes one layer stores per micro-batch without recomputation, on one "
                                   "GPU (Korthikanti et al.; sequence parallelism also splits the norms and dropout).")
    layer_traffic_time = Output(activation_traffic * layer_activations / (hardware.bandwidth * memory_efficiency),
                                "ms", doc="Memory time of the layer's element-wise kernels.")
    collective_payload = Output(b * s * h * precision, "byte", symbol="X",
                                doc="Activations one tensor-parallel collective combines: the layer's output.")
    ring_bytes = Output(2 * (t - 1) / t * collective_payload, "byte",
                        doc="Bytes each GPU sends per all-reduce (or reduce-scatter and all-gather pair) in a ring.")
    collectives_per_layer = Output(4 + 2 * full + sigma, symbol="n_c",
                                   doc="All-reduces (or their pairs) of a layer per micro-batch: two forward, two "
                                       "backward, two more to recompute, and the backward all-gather of sequence "
                                       "parallelism.")
    layer_tp_time = Output(collectives_per_layer * ring_bytes / (nvlink_bandwidth * nvlink_efficiency), "s",
                           doc="Tensor-parallel communication of one layer and micro-batch over NVLink.")
    layer_launch_time = Output(kernels_per_layer * kernel_launch * (3 + full), "s",
                               doc="Kernel launches of one layer: forward, two backward passes and a recomputed one.")
    layer_time = Output(layer_compute_time + layer_traffic_time + layer_tp_time + layer_launch_time, "s",
                        doc="One layer and micro-batch on one GPU.")
    head_time = Output(6 * gemm_rows * h * V * flop / t / matmul_rate, "s",
                       doc="The output layer on the last stage, forward and backward, per micro-batch.")
    p2p_time = Output(Exceeds(p, 1) * 2 * v * collective_payload / t / (fabric_bandwidth * fabric_efficiency), "s",
                      doc="Boundary activations and their gradients a stage exchanges per micro-batch (split over "
                          "the t GPUs), once per model chunk.")
    stage_time = Output(layers_per_stage * layer_time + head_time + p2p_time, "s",
                        doc="One micro-batch through the slowest (last) stage.")
    pipeline = Sub(PipelineScheduleScenario, public=False, stages=pp, microbatches=microbatches)
    bubble = Output(pipeline.bubble_ratio / v, symbol="b_p",
                    doc="Fill and drain of the interleaved 1F1B schedule over its busy time.")
    pipeline_time = Output(microbatches * stage_time * (1 + bubble), "s", doc="The micro-batches and the bubble.")
    params_per_gpu = Output(layers_per_stage * layer_weights / t, symbol="P_g",
                            doc="Transformer-layer parameters one GPU holds.")
    dp_time = Output(2 * (d - 1) / d * params_per_gpu * precision / (fabric_bandwidth * fabric_efficiency), "s",
                     doc="Ring all-reduce of the 16-bit gradients over the data-parallel replicas.")
    optimizer_time = Output(params_per_gpu * optimizer_traffic / (hardware.bandwidth * memory_efficiency), "s",
                            doc="The Adam update, bound by memory.")
    iteration_time = Output(pipeline_time + dp_time + optimizer_time, "s", symbol="T",
                            doc="One training iteration.")
    model_flops = Output(global_batch * (3 * L * (2 * s * layer_weights + 4 * s**2 * h) + 6 * s * h * V) * flop,
                         "PFLOP", doc="FLOPs of the iteration without recomputation (the model FLOPs).")
    iteration_flops = Output(global_batch * (L * ((3 + full) * (2 * s * layer_weights + 4 * s**2 * h)
                                                  + selective * 4 * s**2 * h) + 6 * s * h * V) * flop, "PFLOP",
                             doc="FLOPs the GPUs run per iteration, recomputation included (Narayanan et al.'s count).")
    params_optimizer_per_gpu = Output(params_per_gpu * state_bytes, "GiB",
                                      doc="Weights, gradients and Adam state one GPU holds.")
    stored_per_layer = Output((1 - full) * layer_activations - selective * score_activations
                              + full * 2 * s * b * h * (sigma / t + 1 - sigma) * byte, "byte",
                              doc="Activation bytes a layer keeps per micro-batch for its backward pass under the "
                                  "recomputation mode (full keeps only its input).")
    in_flight = Output(Min(p, microbatches) * (1 + Exceeds(v, 1) * (p - 1) / (p * v)), symbol="m_f",
                       doc="Micro-batches whose activations the first stage holds at once under 1F1B (interleaving "
                           "adds a share).")
    activations_per_gpu = Output(layers_per_stage * stored_per_layer * in_flight, "GiB",
                                 doc="Activations the first stage's GPUs each hold at the peak.")
    memory_per_gpu = Output(params_optimizer_per_gpu + activations_per_gpu, "GiB",
                            doc="Weights, gradients, Adam state and activations of one GPU.")
    fits = Fits(memory_per_gpu <= hardware.capacity, "the weights, gradients, Adam state and activations of a GPU "
                "must fit in its memory", unit="GiB", guards=(iteration_time,))

for _run in load_runs():
    if _run.kind == "training":
        globals()[_run.name] = Instance(MegatronIterationScenario, name=f"{_run.name} ({_run.source})",
                                        description=description(_run), **scenario_inputs(_run))
