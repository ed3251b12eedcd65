"""Saved activations of a transformer per recomputation strategy (Korthikanti et al.)."""

from symbolic.catalog import Constants, Models
from symbolic.model import (
    Input, Instance, Output, Question, Rational, Scenario, Series, Sweep, Table, WorkloadInput, floor, powers_of_two,
    unit_constant,
)

byte = unit_constant("byte")


class ActivationMemoryScenario(Scenario):
    """Activation memory of `workload` at a micro-batch, under each recomputation strategy.

    Korthikanti et al. count the bytes one transformer layer saves for its backward pass
    at 16-bit storage: 34·s·b·h for the projections, MLP and norms, plus 5·a·s²·b for the
    attention scores (softmax 2, dropout mask 1, dropped probabilities 2). Selective
    recomputation recomputes the scores; full recomputation keeps only each layer's
    input (2·s·b·h). Every constant scales with `precision_bytes`/2. Per-layer line items
    break a layer down by tensor; segment checkpointing keeps `checkpoint_segments` segment
    inputs and one live segment.
    """

    assumptions = ("Korthikanti et al.'s per-layer counts; no tensor or sequence parallelism; the score term uses "
                   "`heads` and `hidden_dim` (not `head_dim` or `kv_heads`); `ffn_multiple` enters only the line items.")
    excludes = "Embedding and output-layer activations, tensor/sequence-parallel sharding and allocator overhead."
    references = (
        "Korthikanti et al., Reducing activation recomputation in large transformer models, MLSys 2023 "
        "(sbh(34 + 5as/h) bytes per layer; selective and full recomputation).",
        "Chen et al., Training deep nets with sublinear memory cost, 2016 (k checkpoints: k + L/k layers, "
        "smallest near k = sqrt(L)).",
    )
    differs = {
        "precision_bytes": "a data width: a bare number is bytes and a Quantity converts (16 bit is 2 byte); the "
                           "reference takes a plain float, unlike every other width of this group.",
        "normalization_per_layer": "a bare number is MB; the reference reads it as bits (80 gives 10 byte).",
        "seq_len": "at least 1, and required when the workload states no `context_length` (a clear error naming "
                   "both); the reference raises TypeError on every size there, and gives zero sizes at 0.",
        "micro_batch": "at least 1: the reference gives zero sizes at 0 and divides by zero in "
                       "`per_sequence_activations`.",
        "checkpoint_segments": "at least 1 when given (the reference divides by zero at 0); without it the segment "
                               "outputs name it as missing (the reference raises TypeError).",
        "ffn_multiple": "at least 1 (the reference accepts 0: an MLP item of 0 MB).",
        "workload": "a transformer stating `layers`, `hidden_dim` and `heads`: the reference fails with "
                    "AttributeError on a CNN or an embodied model.",
        "activations": "the reference's method activations(strategy) is a table of the three strategies here.",
        "checkpoints": "the argument of the reference's method checkpoint_memory_units(checkpoints), an optional "
                       "input here (at least 1).",
        "recompute_overhead": "exactly 1/3 (0.3333333333333333); the reference's (8.0·P)/(6.0·P) − 1 rounds to "
                              "0.33333333333333326.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2XlBatch32Activations
>>> s.per_token_activations
<Quantity(85.5638016, 'gigabyte')>
>>> round(s.score_share, 6)
0.701754
"""

    main_outputs = ("activations[none]", "activations[selective]", "activations[full]")
    chart = Sweep(
        instance="Gpt2XlBatch32Activations", input="seq_len", values=powers_of_two(15)[7:],
        series=(Series("activations[none]", "no recomputation"),
         Series("activations[selective]", "selective: recompute the attention scores"),
         Series("activations[full]", "full: keep each layer's input")),
        xlabel="sequence length [tokens]", ylabel="saved activations [B]",
        caption="GPT-2 XL's saved activations at micro-batch 32 against the sequence length: the score term grows "
        "with its square and dominates without recomputation.")
    questions = (Question(solve_for="micro_batch", where="activations[full]", equals="80 GiB"),)

    workload = WorkloadInput("TransformerWorkload", "SparseTransformerWorkload", requires=("hidden_dim", "heads"),
                             doc="A transformer with `layers`, `hidden_dim` and `heads`.")
    micro_batch = Input(integer=True, positive=True, symbol="b", doc="Sequences per micro-batch.")
    seq_len = Input(integer=True, positive=True, default=workload.context_length, symbol="s",
                    doc="Tokens per sequence; the workload's `context_length` when left out.")
    precision_bytes = Input("byte", positive=True, default=2, symbol="p",
                            doc="Bytes per stored activation value (2 for 16-bit).")
    normalization_per_layer = Input("MB", nonnegative=True, default=0, symbol="N",
                                    doc="Extra normalization bytes per layer, added to the line items.")
    ffn_multiple = Input(integer=True, positive=True, default=4, symbol="f", doc="MLP width over model width.")
    checkpoint_segments = Input(integer=True, positive=True, default=None, symbol="K",
                                doc="Segments for segment checkpointing; optional.")
    checkpoints = Input(integer=True, positive=True, default=None, symbol="k",
                        doc="Evenly spaced checkpoints for `checkpoint_memory_units`; optional.")

    L, h, a = workload.layers, workload.hidden_dim, workload.heads
    sequence = Output(seq_len, doc="Tokens per sequence used.")
    per_token_bytes_coefficient = Output(34 * precision_bytes / (2 * byte), symbol="c_t",
                                         doc="Bytes kept per element of the sequence × batch × width grid with "
                                             "selective recomputation.")
    score_bytes_coefficient = Output(5 * a * seq_len / h * precision_bytes / (2 * byte), symbol="c_s",
                                     doc="Bytes per element of the sequence × batch × width grid that the attention "
                                         "scores add (scores, softmax, its dropout mask): they grow with the "
                                         "sequence, so they dominate long contexts.")
    score_share = Output(score_bytes_coefficient / (per_token_bytes_coefficient + score_bytes_coefficient),
                         doc="Share of the scores in the activations without recomputation.")
    activations = Table({
        "none": L * (34 * seq_len * micro_batch * h + 5 * a * seq_len**2 * micro_batch) * precision_bytes / 2,
        "selective": L * 34 * seq_len * micro_batch * h * precision_bytes / 2,
        "full": L * 2 * seq_len * micro_batch * h * precision_bytes / 2,
    }, "byte", doc="Saved activations of all layers per strategy: none, selective or full recomputation.")
    per_token_activations = Output(activations["selective"], "GB", doc="Activations with selective recomputation.")
    score_activations = Output(L * 5 * a * seq_len**2 * micro_batch * precision_bytes / 2, "GB",
                               doc="The attention-score term: what selective recomputation saves.")
    per_sequence_activations = Output(per_token_activations / micro_batch, "GB",
                                      doc="Selective-recomputation activations of one sequence.")
    segment_layers = Output(floor(L / checkpoint_segments), doc="Whole layers per checkpointed segment.")
    segment_input = Output(micro_batch * seq_len * h * precision_bytes, "MB",
                           doc="One segment's input activation: the one tensor a checkpointed segment keeps to "
                               "recompute the rest.")
    segment_inputs = Output(checkpoint_segments * segment_input, "GB", doc="All kept segment inputs.")
    live_segment = Output(per_token_activations / L * segment_layers, "GB",
                          doc="Selective activations of the one segment being recomputed.")
    checkpointed_activations = Output(segment_inputs + live_segment, "GB",
                                      doc="Segment checkpointing: kept inputs plus one live segment.")
    projection_activations_per_layer = Output(4 * micro_batch * seq_len * h * precision_bytes, "MB",
                                              doc="Q, K, V and attention-output projections of one layer.")
    ffn_activations_per_layer = Output(micro_batch * seq_len * ffn_multiple * h * precision_bytes, "MB",
                                       doc="The MLP's inner activation of one layer.")
    score_activations_per_layer = Output(score_activations / L, "MB", doc="The attention-score term of one layer.")
    line_items_per_layer = Output(projection_activations_per_layer + ffn_activations_per_layer
                                  + score_activations_per_layer + normalization_per_layer, "MB",
                                  doc="Projections, MLP, scores and normalization of one layer.")
    line_items_total = Output(line_items_per_layer * L, "GB", doc="The line items of all layers.")
    forward_equivalents = Output(Rational(6, 2),
                                 doc="FLOPs of a training step over a forward pass: the backward pass costs twice "
                                     "the forward.")
    recompute_overhead = Output(Rational(8, 6) - 1,
                                doc="Extra FLOPs of full recomputation, as a share of the step: the forward pass "
                                    "runs a second time.")
    recompute_forward_equivalents = Output(forward_equivalents * (1 + recompute_overhead),
                                           doc="Forward passes per step with full recomputation.")
    checkpoint_memory_units = Output(checkpoints + L / checkpoints,
                                     doc="Activation memory of `checkpoints` evenly spaced checkpoints, in layers.")


Gpt2XlBatch32Activations = Instance(
    ActivationMemoryScenario,
    name="GPT-2 XL activations at micro-batch 32, full 1,024-token window",
    description="GPT-2 (1.5B) at 32 sequences of its full 1,024-token context, 16-bit activations, 10 MB of "
                "normalization per layer.",
    workload=Models.Language.GPT2,
    micro_batch=32,
    seq_len=Models.Language.GPT2.context_length,
    normalization_per_layer=10,
)
Gpt2XlBatch32ActivationsFp32 = Gpt2XlBatch32Activations.variant(
    name="GPT-2 XL activations at micro-batch 32, FP32",
    description="The batch-32 GPT-2 XL activations stored in FP32.",
    precision_bytes=Constants.ByteWidths.FP32,
)
Gpt2XlBatch32SegmentCheckpointed = Gpt2XlBatch32Activations.variant(
    name="GPT-2 XL activations at micro-batch 32, 8 checkpointed segments",
    description="The batch-32 GPT-2 XL activations with its 48 layers checkpointed in 8 segments.",
    checkpoint_segments=8,
)
Gpt2XlMicroBatch16Activations = Gpt2XlBatch32Activations.variant(
    name="GPT-2 XL activations at micro-batch 16",
    description="The GPT-2 XL activations at half the micro-batch (16 sequences).",
    micro_batch=16,
)
Gpt3ActivationsMicrobatch4 = Instance(
    ActivationMemoryScenario,
    name="GPT-3 activations at micro-batch 4",
    description="GPT-3 (175B) at 4 sequences of its 2,048-token context, 16-bit activations.",
    workload=Models.Language.GPT3,
    micro_batch=4,
)
Gpt3ActivationsMicrobatch1 = Gpt3ActivationsMicrobatch4.variant(
    name="GPT-3 activations at micro-batch 1",
    description="GPT-3 (175B) at one sequence of its 2,048-token context.",
    micro_batch=1,
)
Llama3_8BBatch4Activations = Instance(
    ActivationMemoryScenario,
    name="Llama-3.1-8B activations at micro-batch 4, 2,048 tokens",
    description="Llama-3.1-8B at 4 sequences of 2,048 tokens, 16-bit activations.",
    workload=Models.Language.Llama3_8B,
    micro_batch=4,
    seq_len=2048,
)
