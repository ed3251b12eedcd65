"""The classic decoder block: weights, dense against attention multiply-adds, prompt and training FLOPs."""

from symbolic.catalog import Models
from symbolic.model import (
    Input, Instance, Node, Output, Question, Scenario, Series, Sweep, WorkloadInput, flop, powers_of_two,
)

FORWARD_FLOPS_PER_WEIGHT = 2  # one multiply-add per weight of the block per token


class TransformerBlockScenario(Scenario):
    """`workload`'s decoder blocks at a context of `context_tokens`: weights, dense against attention work.

    A classic block holds `attention_projections` square d x d projections (Q, K, V, O) and
    an MLP of two d x f·d matrices. Over S tokens the dense layers cost one multiply-add per
    weight per token; attention costs S²·d for the scores Q·Kᵀ and S²·d for the weighted sum
    of V (the full square: no causal halving). Training a step costs three forward passes
    (forward, and a backward pass of twice its work). Biases and norms are ignored except in
    `exact_parameters`, which counts GPT-2's layout in full.
    """

    assumptions = ("Dense multi-head attention over the full S x S square; a dense MLP of width f·d; "
                   "one multiply-add is two FLOPs; training is three forward passes.")
    excludes = "Softmax, norms and activation functions (negligible FLOPs), and grouped-query narrowing of K and V."
    references = (
        "Kaplan et al., Scaling laws for neural language models, 2020 (12·L·d² block parameters, 2N forward and "
        "6N training FLOPs per token).",
        "Radford et al., Language models are unsupervised multitask learners, 2019 (GPT-2's layout).",
    )
    differs = {
        "six_p_step_flops": "the record's training FLOPs per token, 6·P_tok at the parameters that work on a token "
                            "(a mixture of experts: the active ones); the reference writes 6·P with every expert.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2XlBlockFullWindow
>>> s.weights_per_block, s.block_coefficient, s.exact_parameters
(30720000, 12, 1557611200)
>>> s.crossover
9600.0
"""

    main_outputs = ("dense_macs", "attention_macs", "attention_share", "training_step_flops")
    chart = Sweep(
        instance="Gpt2XlBlockFullWindow",
        input="context_tokens",
        values=powers_of_two(16),
        series=(Series("dense_macs", "dense (projections and MLP)"), Series("attention_macs", "attention (scores and values)")),
        xlabel="context [tokens]",
        ylabel="multiply-adds per block",
        caption="GPT-2 XL's block: dense work grows linearly with the context, attention quadratically; "
        "they cross at S = W_b/(2d) = 9600 tokens.")
    questions = (Question(solve_for='context_tokens', where='attention_macs', equals='dense_macs'),)

    workload = WorkloadInput("TransformerWorkload", requires=("hidden_dim",),
                             doc="The model: width d, layers L, parameters P; vocabulary V and context C where known.")
    context_tokens = Input(integer=True, positive=True, symbol="S", doc="Tokens in the context (one sequence).")
    ffn_multiple = Input(integer=True, positive=True, default=4, symbol="f", doc="MLP width over the model width.")
    attention_projections = Input(integer=True, positive=True, default=4, symbol="a",
                                  doc="Square d x d attention projections (Q, K, V, O: 4).")
    hardware = Node(optional=True, doc="Optional device; its headline peak rate prices the attention FLOPs.")
    batch_size = Input(integer=True, positive=True, default=1, symbol="B", doc="Sequences per training step.")

    d, L, S, f, a, B = workload.hidden_dim, workload.layers, context_tokens, ffn_multiple, attention_projections, batch_size
    V, C = workload.vocab_size, workload.context_length

    width = Output(d, doc="Model width d.")
    attention_weights_per_block = Output(a * d**2, symbol="A_b", doc="Attention projection weights of one block: a "
                                                                     "square matrix of the model width per "
                                                                     "projection.")
    mlp_weights_per_block = Output(2 * f * d**2, symbol="M_b", doc="MLP weights of one block: the up and down "
                                                                   "projections between the model width and the "
                                                                   "widened hidden layer.")
    weights_per_block = Output(attention_weights_per_block + mlp_weights_per_block, symbol="W_b",
                               doc="Weights of one block (no biases or norms).")
    block_coefficient = Output(a + 2 * f, doc="Block weights in units of the width squared (12 for the classic block "
                                              "of four projections and a fourfold MLP).")
    mlp_share = Output(mlp_weights_per_block / weights_per_block, doc="Share of a block's weights in its MLP.")
    block_weights = Output(weights_per_block * L, doc="Weights of every block of the stack.")
    attention_weights = Output(attention_weights_per_block * L, doc="Attention projection weights of every block.")
    mlp_weights = Output(mlp_weights_per_block * L, doc="MLP weights of every block.")
    token_table = Output(V * d, doc="Token-embedding weights: one vector of the model width per vocabulary entry "
                                    "(needs the workload's vocab_size).")
    block_rule_parameters = Output(block_weights + token_table, doc="Parameters by the block rule: every block's "
                                                                    "weights plus the token table (biases, norms and "
                                                                    "positions left out).")
    exact_parameters = Output(
        L * ((3 * d**2 + 3 * d) + (d**2 + d) + (f * d**2 + f * d) + (f * d**2 + d) + 4 * d) + V * d + C * d + 2 * d,
        doc="GPT-2's layout in full: per block a packed QKV projection, the output projection, the two MLP matrices, "
            "all with their biases, and two LayerNorms; the token and position tables and a final LayerNorm. It "
            "counts Q, K, V, O whatever `attention_projections` says.")
    flops_per_token = Output(FORWARD_FLOPS_PER_WEIGHT * block_weights * flop, "flop",
                             doc="Forward FLOPs of the blocks per token, 2 per block weight.")
    output_layer_flops = Output(FORWARD_FLOPS_PER_WEIGHT * token_table * flop, "flop",
                                doc="Forward FLOPs of the output (unembedding) layer per token: the token table used "
                                    "once more, a multiply-add per weight.")
    dense_macs = Output(weights_per_block * S, doc="Multiply-adds of one block's dense layers over the context.")
    attention_macs = Output(2 * S**2 * d, doc="Multiply-adds of one block's attention: the scores of every pair of "
                                              "tokens and the weighted sum of the values (the full square, no causal "
                                              "mask).")
    block_macs = Output(dense_macs + attention_macs, doc="Multiply-adds of one block over the context.")
    attention_share = Output(attention_macs / block_macs, doc="Share of a block's multiply-adds in attention.")
    dense_to_attention = Output(dense_macs / attention_macs, doc="Dense over attention multiply-adds.")
    attention_to_dense = Output(attention_macs / dense_macs, doc="Attention over dense multiply-adds.")
    crossover = Output(weights_per_block / (2 * d), doc="Context at which attention's work equals the block's dense "
                                                        "work: beyond it attention dominates.")
    crossover_multiple = Output(crossover / d, doc="The crossover context in multiples of the width.")
    prompt_dense_flops = Output(flops_per_token * S, "flop", doc="Dense FLOPs of one prompt of S tokens, all blocks.")
    prompt_attention_flops = Output(2 * attention_macs * L * flop, "flop",
                                    doc="Attention FLOPs of one prompt of S tokens, all blocks.")
    prompt_flops = Output(prompt_dense_flops + prompt_attention_flops, "flop", doc="FLOPs of one prompt, all blocks.")
    attention_time_at_peak = Output(prompt_attention_flops / hardware.peak_flops, "minute",
                                    doc="Time of one prompt's attention FLOPs at the device's headline peak.")
    training_to_forward = Output(workload.training_flops_per_token / workload.forward_flops_per_token,
                                 doc="Training over forward FLOPs per token: the backward pass costs twice the forward.")
    layer_forward_flops = Output(2 * block_macs * B * flop, "GFLOP", doc="Forward FLOPs of one block for the batch.")
    training_step_flops = Output(layer_forward_flops * L * training_to_forward, "TFLOP",
                                 doc="FLOPs of one training step of every block for the batch.")
    six_p_step_flops = Output(workload.training_flops_per_token * B * S, "TFLOP",
                              doc="The same step by the rule of six FLOPs per parameter per token (at the parameters "
                                  "that work on a token), to compare with the count above.")
    attention_step_flops = Output(2 * attention_macs * B * L * training_to_forward * flop, "TFLOP",
                                  doc="The attention part of the training step.")


Gpt2XlBlockFullWindow = Instance(
    TransformerBlockScenario,
    name="GPT-2 XL's decoder blocks over its full 1024-token window",
    description="GPT-2 XL (1.5B; d = 1600, 48 layers) at its trained 1024-token context, one sequence.",
    workload=Models.Language.GPT2,
    context_tokens=Models.Language.GPT2.context_length,
)
Gpt2XlBatch32Block = Gpt2XlBlockFullWindow.variant(
    name="GPT-2 XL's decoder blocks, 32 full-window sequences per training step",
    description="The same blocks trained on 32 sequences of 1024 tokens per step.",
    batch_size=32,
)
