"""Weights, gradients, master copy and optimizer state of a workload (optionally with adapters) against a device."""

from symbolic.catalog import Constants, Hardware, Models, custom
from symbolic.catalog.workloads import WORKLOAD_TYPES
from symbolic.model import (
    Argument, Fits, Ge, Input, Instance, Node, Output, Piecewise, Q, Question, Require, Scenario, Series, Sweep, WorkloadInput,
    floor, powers_of_two,
)
from symbolic.scenarios.inference.transformer_block import Gpt2XlBatch32Block
from symbolic.scenarios.training_memory.activation_memory import (Gpt2XlBatch32Activations,
                                                                  Gpt2XlBatch32ActivationsFp32,
                                                                  Gpt2XlBatch32SegmentCheckpointed,
                                                                  Gpt2XlMicroBatch16Activations,
                                                                  Llama3_8BBatch4Activations)


class TrainingStateFitScenario(Scenario):
    """Weights, gradients and optimizer state of `workload` at one precision, against `hardware`'s memory.

    Every parameter keeps a weight and a gradient of `bytes_per_value` and optimizer state
    of `optimizer_bytes_per_parameter`; an optional FP32 master copy adds
    `master_bytes_per_parameter`. With adapters beside a frozen base, the base keeps only its
    weights and each adapter parameter carries all of it. Stated saved activations at
    `batch_size` sequences give the total of a training step, and how many sequences fit
    beside the state. The update reads the gradients and reads and writes the master copy (or
    the weights) and the optimizer state once per step.
    """

    assumptions = ("Every parameter is trained at one width (or only the adapters, beside a frozen base); "
                   "activations grow linearly with the batch; the update streams its bytes once at the node's "
                   "memory bandwidth.")
    excludes = "Framework workspace, fragmentation, communication buffers, sharding and offloading."
    references = (
        "Micikevicius et al., Mixed precision training, ICLR 2018 (16-bit weights and gradients, FP32 master copy).",
        "Kingma and Ba, Adam: a method for stochastic optimization, ICLR 2015 (two moments per parameter).",
        "Hu et al., LoRA: low-rank adaptation of large language models, ICLR 2022 (r(d_in + d_out) parameters "
        "per adapted matrix; the frozen base keeps no gradients or optimizer state).",
    )
    bounds = {"capacity_share": (0, float("inf"))}  # above 1: the devices the state needs
    differs = {
        "bytes_per_value": "a bare number is bytes; the reference reads it as bits (2 gives 0.25 byte per value).",
        "optimizer_bytes_per_parameter": "a bare number is bytes, as `bytes_per_value`.",
        "master_bytes_per_parameter": "a bare number is bytes, as `bytes_per_value`; 0 (the default) stands for "
                                      "the reference's None: no master copy, the update rewrites the weights (as the "
                                      "reference's `m or v` does for 0 too).",
        "activations": "a bare number is bytes; 0 is the state alone, where every output but the resident batch "
                       "(which no activations bound: `activations_bound_batch` is False) is there (the reference "
                       "divides by zero at 0). Without it the training outputs name it as missing (the reference "
                       "raises TypeError).",
        "batch_size": "at least 1 (the reference divides by zero at 0); without it the batch outputs name it as "
                      "missing (the reference raises TypeError).",
        "hardware": "without a node, `fits` is False (nothing to fit on, as in the reference) and the outputs that "
                    "read its capacity or bandwidth name it as missing (the reference raises AttributeError).",
        "adapter_rank": "at least 1, and with it `adapted_matrices`, `adapter_in_dim`, `adapter_out_dim` and the "
                        "workload's `layers` are required when the instance is built, an error naming the missing "
                        "ones (the reference raises ValueError or TypeError only when an output is read).",
        "adapter_parameters": "stated, or else computed from `adapter_rank` (L·k·r·(d_in + d_out)); a stated count "
                              "wins, as in the reference. Without either, the adapter outputs name it as missing "
                              "(the reference raises TypeError).",
        "headroom": "exists only when the total fits (`fits`): a state larger than the device is refused "
                    "(InfeasibleError naming both sizes), and so are `resident_batch_limit` and "
                    "`max_resident_batch`, where the reference reports a negative memory and batch (−4.67 "
                    "sequences for Llama-3-8B's full fine-tune on an H100).",
        "workload": "must have a parameter count: the reference fails with AttributeError on one without (DLRM).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2MixedPrecisionAdamOnH100
>>> s.total
<Quantity(2.4e+10, 'byte')>
>>> s.fits, s.max_resident_batch
(True, 6)
>>> Scenarios.Llama3_8BLoraOnH100.adapter_count
6815744
"""

    main_outputs = ("total", "fits", "max_resident_batch")
    chart = Sweep(
        instance="Rank16AdaptersOnHypothetical8B", input="adapter_rank", values=powers_of_two(12),
        series=(Series("total", "adapters beside the frozen base"),
                Series("full_state", "full fine-tuning", dashed=True),
                Series("weights", "frozen base weights alone", dashed=True)),
        xlabel="adapter rank r", ylabel="training state [B]",
        caption="Training state of a hypothetical 8B-parameter transformer with rank-r adapters on two 4096 × 4096 "
                "matrices per layer, mixed-precision Adam: close to the frozen weights until the rank is in the "
                "thousands, far below full fine-tuning.")
    questions = (Question(solve_for="activations", where="training_capacity_multiple", equals="1"),
                 Question(solve_for="adapter_rank", where="adapter_fraction", equals="1/100"))

    workload = WorkloadInput(*WORKLOAD_TYPES, requires=("parameters",),
                             doc="The model trained (any workload with a parameter count; `layers` for adapter ranks).")
    hardware = Node(optional=True, doc="Optional device: its memory capacity and bandwidth.")
    bytes_per_value = Input("byte", positive=True, symbol="v", doc="Width of each weight and gradient.")
    optimizer_bytes_per_parameter = Input("byte", nonnegative=True, symbol="q",
                                          doc="Optimizer state per trained parameter (8 byte for Adam's two FP32 "
                                              "moments).")
    batch_size = Input(integer=True, positive=True, default=None, symbol="B",
                       doc="Sequences of the stated activations; optional.")
    activations = Input("byte", nonnegative=True, default=None, symbol="A",
                        doc="Saved activations at `batch_size` sequences; optional (0: the state alone).")
    master_bytes_per_parameter = Input("byte", nonnegative=True, default=0, symbol="m",
                                       doc="FP32 master copy per parameter (4 byte); 0, the default: no master copy.")
    adapter_rank = Input(integer=True, positive=True, default=None, symbol="r",
                         doc="Rank of low-rank adapters; optional, with the three inputs below.")
    adapted_matrices = Input(integer=True, positive=True, default=None, symbol="k",
                             doc="Matrices adapted per layer (with `adapter_rank`).")
    adapter_in_dim = Input(integer=True, positive=True, default=None, symbol=r"d_{\mathrm{in}}",
                           doc="Input width of each adapted matrix (with `adapter_rank`).")
    adapter_out_dim = Input(integer=True, positive=True, default=None, symbol=r"d_{\mathrm{out}}",
                            doc="Output width of each adapted matrix (with `adapter_rank`).")
    L = workload.layers
    adapter_parameters = Input(integer=True, nonnegative=True,
                               default=L * adapted_matrices * adapter_rank * (adapter_in_dim + adapter_out_dim),
                               symbol="n_a", doc="Trained adapter parameters; stated, or L·k·r·(d_in + d_out) from "
                                                 "`adapter_rank`; none: every parameter is trained.")
    # unevaluated: sympy would fold a product of positive counts >= 1 to True; the check is that they are given
    adapter_shape_given = Require(Ge(L * adapted_matrices * adapter_in_dim * adapter_out_dim, 1, evaluate=False),
                                  "adapted_matrices, adapter_in_dim, adapter_out_dim and the workload's layers "
                                  "must be given with adapter_rank", when=adapter_rank)
    scaled_batch = Argument(integer=True, nonnegative=True, keyword="batch_size", example=512, symbol="b",
                            doc="Sequences to scale the stated activations to.")
    checkpoint_bandwidth = Argument("GB/s", positive=True, keyword="bandwidth", example=2, symbol=r"\beta_c",
                                    doc="Bandwidth the checkpoint is written at.")

    P, C = workload.parameters, hardware.capacity
    adapter_count = Output(adapter_parameters, if_missing="none", doc="Trained adapter parameters (None without).")
    weights = Output(P * bytes_per_value, "byte", symbol="W", doc="Bytes of the weights, one value per parameter.")
    gradients = Output(P * bytes_per_value, "byte", symbol="G", doc="Bytes of the gradients, one value per "
                                                                    "parameter, as wide as the weights.")
    optimizer_state = Output(P * optimizer_bytes_per_parameter, "byte", symbol="O", doc="Bytes of the optimizer "
                                                                                        "state (Adam's moments) at "
                                                                                        "the optimizer's bytes per "
                                                                                        "parameter.")
    master_weights = Output(P * master_bytes_per_parameter, "byte", symbol="M", doc="Bytes of the master copy of the "
                                                                                    "weights, kept at full precision "
                                                                                    "for the update.")
    optimizer_values_per_parameter = Output(optimizer_bytes_per_parameter / bytes_per_value,
                                            doc="Optimizer state in values of the weight width.")
    bytes_per_trained_parameter = Output(2 * bytes_per_value + master_bytes_per_parameter + optimizer_bytes_per_parameter,
                                         "byte",
                                         symbol=r"b_t", doc="Weight, gradient, master copy and optimizer state of "
                                                            "one trained parameter.")
    adapter_state = Output(adapter_parameters * bytes_per_trained_parameter, "byte",
                           doc="Everything the adapters keep.")
    adapter_weights = Output(adapter_parameters * bytes_per_value, "byte", doc="Adapter weights.")
    adapter_gradients = Output(adapter_parameters * bytes_per_value, "byte", doc="Adapter gradients.")
    adapter_master = Output(adapter_parameters * master_bytes_per_parameter, "byte", doc="Adapter master copy.")
    adapter_optimizer_state = Output(adapter_parameters * optimizer_bytes_per_parameter, "byte",
                                     doc="Adapter optimizer state.")
    adapter_fraction = Output(adapter_parameters / P, doc="Adapter parameters per base parameter.")
    full_state = Output(weights + gradients + optimizer_state + master_weights, "byte", symbol="F",
                        doc="Every parameter trained: weights, gradients, optimizer state and master copy.")
    total = Output(weights + adapter_parameters * bytes_per_trained_parameter, "byte", otherwise=full_state,
                   symbol="T", doc="Frozen weights plus the adapters' state; the full state without adapters.")
    adapter_saved = Output(full_state - total, "byte", doc="What adapters save against full training.")
    adapter_reduction = Output(full_state / total, doc="Full state over the total.")
    adapter_kept_share = Output(total / full_state, doc="Total over the full state.")
    frozen_share = Output(weights / total, doc="Share of the total that is the (frozen) weights.")
    adapter_reduction_ceiling = Output(bytes_per_trained_parameter / bytes_per_value,
                                       doc="The most adapters can save: trained bytes over weight bytes per parameter.")
    copies = Output(total / weights, doc="The total in copies of the weights.")
    capacity_share = Output(total / C, doc="Share of the device's memory the total takes.")
    training_total = Output(total + activations, "byte", doc="The total plus the stated activations.")
    training_copies = Output(training_total / weights, doc="The training total in copies of the weights.")
    training_capacity_multiple = Output(training_total / C, doc="The training total over the device's memory.")
    activations_per_sequence = Output(activations / batch_size, "byte", symbol="a",
                                      doc="Stated activations of one sequence.")
    activations_at = Output(activations_per_sequence * scaled_batch, "byte",
                            doc="The activations scaled linearly to `batch_size` sequences.")
    headroom = Output(C - total, "byte", doc="Device memory left beside the total.")
    resident_batch_limit = Output(headroom / activations_per_sequence,
                                  doc="Sequences whose activations fit beside the total.")
    max_resident_batch = Output(floor(headroom * batch_size / activations), doc="Whole sequences that fit.")
    fits = Fits(total <= C, "the training state must fit in the device's memory", unit="GB", guards=(headroom,),
                otherwise=0)
    activations_bound_batch = Fits(0 < activations, "a resident batch is bounded only by activations above 0 (with "
                                   "none, any batch fits beside the state)", unit="GB",
                                   guards=(resident_batch_limit, max_resident_batch))
    checkpoint = Output(weights + master_weights + optimizer_state, "byte",
                        doc="A checkpoint: weights, master copy and optimizer state of every parameter.")
    # the update rewrites the master copy, or the weights where there is none (the reference's `m or v`)
    updated_copy = Output(Piecewise((master_bytes_per_parameter, master_bytes_per_parameter > 0),
                                    (bytes_per_value, True)), "byte", symbol="u",
                          doc="Bytes per parameter of the copy the update rewrites: the master copy, else the weights.")
    update_bytes_per_parameter = Output(bytes_per_value + 2 * updated_copy + 2 * optimizer_bytes_per_parameter, "byte",
                                        doc="Bytes the update moves per parameter: read the gradient, read and write "
                                            "the master copy (else the weights) and the optimizer state.")
    update_traffic = Output(update_bytes_per_parameter * P, "GB", doc="Bytes the update moves.")
    update_time = Output(update_traffic / hardware.bandwidth, "ms", doc="The update at the memory bandwidth.")
    checkpoint_write_time = Output(checkpoint / checkpoint_bandwidth, "s",
                                   doc="Writing the checkpoint at `bandwidth`.")


_bytes = Constants.ByteWidths
Gpt2Fp32AdamOnH100 = Instance(
    TrainingStateFitScenario,
    name="GPT-2 XL with FP32 Adam on an H100",
    description="GPT-2 XL (1.5B) trained in FP32 with Adam's two FP32 moments, against one H100's 80 GiB.",
    workload=Models.Language.GPT2,
    hardware=Hardware.Cloud.H100,
    bytes_per_value=_bytes.FP32,
    optimizer_bytes_per_parameter=_bytes.ADAM_MOMENTS,
)
Gpt2Fp32AdamBatch32OnH100 = Gpt2Fp32AdamOnH100.variant(
    name="GPT-2 XL with FP32 Adam and FP32 activations at batch 32 on an H100",
    description="The FP32 GPT-2 XL state beside the FP32 activations of 32 full-window sequences, no recomputation.",
    batch_size=Gpt2XlBatch32Block.input("batch_size"),
    activations=Gpt2XlBatch32ActivationsFp32.output("activations[none]"),
)
Gpt2MixedPrecisionAdamOnH100 = Gpt2Fp32AdamOnH100.variant(
    name="GPT-2 XL with mixed-precision Adam at batch 32 on an H100",
    description="16-bit weights and gradients, an FP32 master copy and Adam moments, beside the 16-bit activations "
                "of 32 full-window sequences without recomputation.",
    bytes_per_value=_bytes.FP16,
    master_bytes_per_parameter=_bytes.FP32,
    batch_size=Gpt2XlBatch32Block.input("batch_size"),
    activations=Gpt2XlBatch32Activations.output("activations[none]"),
)
Gpt2MixedPrecisionFlashAttentionOnH100 = Gpt2MixedPrecisionAdamOnH100.variant(
    name="GPT-2 XL mixed-precision at batch 32 with FlashAttention on an H100",
    description="The mixed-precision state beside the activations without the attention scores (FlashAttention "
                "recomputes them): the selective-recomputation count.",
    activations=Gpt2XlBatch32Activations.output("per_token_activations"),
)
Gpt2MixedPrecisionTwoMicroBatchesOnH100 = Gpt2MixedPrecisionFlashAttentionOnH100.variant(
    name="GPT-2 XL mixed-precision with two micro-batches of 16 on an H100",
    description="The batch of 32 as two micro-batches of 16: only one micro-batch's activations are live.",
    batch_size=Gpt2XlMicroBatch16Activations.input("micro_batch"),
    activations=Gpt2XlMicroBatch16Activations.output("per_token_activations"),
)
Gpt2MixedPrecisionSegmentCheckpointedOnH100 = Gpt2MixedPrecisionFlashAttentionOnH100.variant(
    name="GPT-2 XL mixed-precision at batch 32 with 8 checkpointed segments on an H100",
    description="The batch-32 activations with the 48 layers checkpointed in 8 segments.",
    activations=Gpt2XlBatch32SegmentCheckpointed.output("checkpointed_activations"),
)
Llama2_7BMixedPrecisionAdam = Gpt2MixedPrecisionAdamOnH100.variant(
    name="Llama-2-7B with mixed-precision Adam on an H100",
    description="Llama-2-7B's full mixed-precision Adam state against one H100: 16 bytes per parameter, 112 GB.",
    workload=Models.Language.Llama2_7B,
    batch_size=None,
    activations=None,
)
Llama3_8BFullFineTuneOnH100 = Llama2_7BMixedPrecisionAdam.variant(
    name="Llama-3.1-8B full fine-tuning with mixed-precision Adam on an H100",
    description="Every parameter of Llama-3.1-8B trained, beside the activations of 4 sequences of 2,048 tokens.",
    workload=Models.Language.Llama3_8B,
    batch_size=Llama3_8BBatch4Activations.input("micro_batch"),
    activations=Llama3_8BBatch4Activations.output("per_token_activations"),
)
_llama3, _lora_rank = Models.Language.Llama3_8B, 16
Llama3_8BLoraOnH100 = Llama3_8BFullFineTuneOnH100.variant(
    name="Llama-3.1-8B with rank-16 LoRA on the query and value projections on an H100",
    description="Rank-16 adapters on each layer's query (d × d) and value (d × kv width) projections beside the "
                "frozen 16-bit base.",
    # per layer r(d + d) + r(d + n_kv·d/h): LowRankUpdateScenario's count for each adapted projection
    adapter_parameters=_llama3.layers * (
        _lora_rank * (_llama3.hidden_dim + _llama3.hidden_dim)
        + _lora_rank * (_llama3.hidden_dim + _llama3.kv_heads * (_llama3.hidden_dim // _llama3.heads))),
)
_width = 4096  # the hypothetical model's width: the adapted matrices are d × d
_hypothetical = custom.TransformerWorkload(name="Hypothetical 8B-parameter transformer", architecture="Transformer",
                                           parameters=Q("8e9 param"), layers=32, hidden_dim=_width)
Rank16AdaptersOnHypothetical8B = Instance(
    TrainingStateFitScenario,
    name="Rank-16 adapters on a hypothetical 8B transformer",
    description="Rank-16 adapters on two d × d matrices per layer of a user-built 8B-parameter, 32-layer, "
                "4096-wide transformer, mixed-precision Adam, no device.",
    workload=_hypothetical,
    bytes_per_value=_bytes.FP16,
    optimizer_bytes_per_parameter=_bytes.ADAM_MOMENTS,
    master_bytes_per_parameter=_bytes.FP32,
    adapter_rank=16,
    adapted_matrices=2,
    adapter_in_dim=_width,
    adapter_out_dim=_width,
)
Rank32AdaptersOnHypothetical8B = Rank16AdaptersOnHypothetical8B.variant(
    name="Rank-32 adapters on a hypothetical 8B transformer",
    description="The same adapters at twice the rank.",
    adapter_rank=2 * Rank16AdaptersOnHypothetical8B.input("adapter_rank"),
)
ResNet50Fp32SgdMomentum = Instance(
    TrainingStateFitScenario,
    name="ResNet-50 with FP32 SGD with momentum",
    description="ResNet-50 in FP32 with one FP32 momentum value per parameter, no device.",
    workload=Models.Vision.ResNet50,
    bytes_per_value=_bytes.FP32,
    optimizer_bytes_per_parameter=_bytes.FP32,
)
ResNet50Fp32AdamBatch64 = ResNet50Fp32SgdMomentum.variant(
    name="ResNet-50 with FP32 Adam at batch 64 on an H100",
    description="ResNet-50 in FP32 with Adam, beside 8 GB of activations for 64 images, on an H100.",
    optimizer_bytes_per_parameter=_bytes.ADAM_MOMENTS,
    hardware=Hardware.Cloud.H100,
    batch_size=64,
    activations=Q("8 GB"),
)
ResNet50Fp32AdamBatch64HighActivations = ResNet50Fp32AdamBatch64.variant(
    name="ResNet-50 with FP32 Adam at batch 64, 12 GB of activations, on an H100",
    description="The batch-64 ResNet-50 with a heavier activation estimate (12 GB).",
    activations=Q("12 GB"),
)
ResNet50Fp32AdamBatch512 = ResNet50Fp32AdamBatch64.variant(
    name="ResNet-50 with FP32 Adam at batch 512 on an H100",
    description="The batch-64 ResNet-50's activations scaled linearly to 512 images.",
    batch_size=512,
    activations=ResNet50Fp32AdamBatch64.output("activations_per_sequence") * 512,
)
