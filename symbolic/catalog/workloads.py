# mypy: ignore-errors
# (a DSL, like the scenario modules mypy skips: a `Field` in a class body is bound to a sympy symbol)
"""The workload types (the schema of ``workloads.toml``), with their derived quantities.

Type and field names are the reference library's (mlsysim 0.3.0), so
``TransformerWorkload(name=..., parameters=..., layers=..., hidden_dim=..., heads=...)``
reads the same. Each derived quantity is declared here once; the generator prints it into
``generated/workloads.py`` and renders its equation on the models page.
"""

from __future__ import annotations

import sympy

from symbolic.catalog.schema import Check, Derived, Field, Param, Record, flop

# The storage width every size method takes: a precision name ("fp16") or a data quantity.
_WIDTH_DOC = "Bytes per stored value: a precision name (fp32, tf32, bf16, fp16, fp8, int8, int4) or a data quantity."


class Workload(Record):
    """A model as the scenarios see it: its size, stated compute and descriptive facts."""

    name = Field(text=True, required=True, doc="Display name.")
    architecture = Field(text=True, doc="Free-text family label.")
    parameters = Field("param", positive=True, symbol="P",
                       doc="Total parameter count P (mixture of experts: every expert).")
    model_size = Field("byte", positive=True, symbol="M",
                       doc="Weight footprint stated directly, where the parameter count is unknown.")
    inference_flops = Field("flop", positive=True, symbol="F_{inf}",
                            doc="Stated FLOPs of one unit of forward work: per generated token for decoder "
                                "language models, per sequence for encoders, per input for vision, per "
                                "denoising step for diffusion.")
    inference_energy = Field("J", positive=True, doc="Stated energy of one inference.")
    data_rate = Field("byte/s", positive=True, doc="Input data rate.")
    training_dataset_size = Field("byte", positive=True, doc="Size of the training data set.")
    embedding_entries = Field("count", positive=True, doc="Rows of the embedding tables.")
    parameter_range_min = Field("param", positive=True, doc="Smallest parameter count of the family.")
    parameter_range_max = Field("param", positive=True, doc="Largest parameter count of the family.")
    release_year = Field(integer=True, positive=True, doc="Year of publication.")

    precision = Param("byte", positive=True, default="fp16", symbol="w", doc=_WIDTH_DOC)

    size_in_bytes = Derived(parameters * precision, "byte", otherwise=model_size, symbol="W",
                            doc="Weight bytes at a storage width: P·w. Without a parameter count, the stated "
                                "`model_size`, whatever the width (the width cannot be applied to an unknown count).")

    checks = (Check(parameter_range_min <= parameter_range_max,
                    "parameter_range_min must not exceed parameter_range_max"),)


class TransformerWorkload(Workload):
    """A transformer: attention geometry, context and the published training run."""

    parameters = Field("param", positive=True, required=True, symbol="P",
                       doc="Total parameter count P (mixture of experts: every expert).")
    layers = Field(integer=True, positive=True, required=True, symbol="L", doc="Transformer blocks L.")
    hidden_dim = Field(integer=True, positive=True, symbol="d", doc="Model width d.")
    heads = Field(integer=True, positive=True, symbol="a", doc="Query attention heads a.")
    kv_heads = Field(integer=True, positive=True, fallback=heads, symbol="a_{kv}",
                     doc="Key/value heads (grouped- or multi-query attention); unset means `heads`.")
    head_dim = Field(integer=True, positive=True, fallback=sympy.floor(hidden_dim / heads), symbol="d_h",
                     doc="Width of one head; unset means ⌊d/a⌋ (PaLM sets 256).")
    kv_lora_rank = Field(integer=True, nonnegative=True, fallback=0, symbol="r",
                         doc="Multi-head latent attention: width of the cached latent (DeepSeek-V3); unset means 0.")
    qk_rope_head_dim = Field(integer=True, nonnegative=True, fallback=0, symbol=r"\rho",
                             doc="Multi-head latent attention: width of the decoupled rotary key; unset means 0.")
    context_length = Field(integer=True, positive=True, symbol="C", doc="Trained context window, tokens.")
    vocab_size = Field(integer=True, positive=True, symbol="V", doc="Tokenizer vocabulary.")
    training_ops = Field("flop", positive=True, doc="Total compute of the published training run.")
    training_tokens = Field("count", positive=True, symbol="D", doc="Tokens of the published training run.")
    training_accelerators_ref = Field("count", positive=True, doc="Accelerators of the published run.")
    training_days_ref = Field("day", positive=True, doc="Wall-clock days of the published run.")
    training_gpu_days = Field("day", positive=True,
                              doc="Accelerator-days of the published run (accelerators × days; a time here, "
                                  "not a bare number).")
    training_energy_mwh = Field("MWh", positive=True, doc="Energy of the published run.")
    training_hardware_label = Field(text=True, doc="Accelerator of the published run, as published.")
    training_co2e = Field("t", positive=True, doc="Emissions of the published run, CO₂-equivalent mass.")

    seq_len = Param(integer=True, nonnegative=True, symbol="S", doc="Tokens per sequence.")
    batch_size = Param(integer=True, positive=True, symbol="B", doc="Sequences.")

    head_width = Derived(head_dim, symbol="d_h", doc="Width of one attention head.")
    kv_width = Derived(kv_heads * head_dim, symbol="w_{kv}", doc="Width of the keys (or values) of one token in one layer.")
    queries_per_kv_head = Derived(sympy.floor(heads / kv_heads), symbol="g",
                                  doc="Query heads sharing one key/value head.")
    kv_values_per_token = Derived(
        sympy.Piecewise((layers * (kv_lora_rank + qk_rope_head_dim), (kv_lora_rank > 0) & (qk_rope_head_dim > 0)),
                        (2 * layers * kv_heads * head_dim, True)),
        symbol="N_{kv}",
        doc="Values cached per token: one key and one value vector per key/value head per layer "
            "(2·L·a_kv·d_h), or with multi-head latent attention the latent and the rotary key per layer "
            "(L·(r + ρ)).")
    kv_cache_bytes_per_token = Derived(kv_values_per_token * Workload.precision, "byte",
                                       doc="KV-cache bytes of one token of one sequence at a storage width.")
    get_kv_cache_size = Derived(kv_values_per_token * seq_len * batch_size * Workload.precision, "byte",
                                doc="KV-cache bytes of `batch_size` sequences of `seq_len` tokens.")
    forward_flops_per_token = Derived(2 * parameters * flop, "flop", symbol="F_{tok}",
                                      doc="Forward FLOPs per token by the 2P rule (one multiply-add per weight).")
    training_flops_per_token = Derived(6 * parameters * flop, "flop",
                                       doc="Training FLOPs per token by the 6P rule (forward 2P, backward 4P; "
                                           "Kaplan et al. 2020).")
    embedding_parameters = Derived(vocab_size * hidden_dim, "param", doc="Token-embedding parameters V·d.")
    block_parameters_estimate = Derived(12 * layers * hidden_dim**2, "param",
                                        doc="Non-embedding parameters of classic blocks, 12·L·d² (4d² attention "
                                            "plus 8d² MLP; Kaplan et al. 2020).")
    training_compute_estimate = Derived(training_flops_per_token * training_tokens, "flop",
                                        doc="Training FLOPs of the published run by the 6PD rule.")
    training_compute = Derived(training_ops, "flop", otherwise=training_flops_per_token * training_tokens,
                               doc="Training FLOPs of the published run: `training_ops` as published, else the 6PD "
                                   "estimate.")

    _gpu_days = "training_gpu_days must be within 1 % of training_accelerators_ref × training_days_ref"
    checks = (Check(kv_heads <= heads, "kv_heads must not exceed heads"),
              Check(training_gpu_days <= sympy.Rational(101, 100) * training_accelerators_ref * training_days_ref, _gpu_days),
              Check(training_gpu_days >= sympy.Rational(99, 100) * training_accelerators_ref * training_days_ref, _gpu_days))


class SparseTransformerWorkload(TransformerWorkload):
    """A mixture-of-experts transformer: only `active_parameters` work on each token."""

    active_parameters = Field("param", positive=True, symbol="P_a", doc="Parameters used per token.")
    experts = Field(integer=True, positive=True, symbol="E", doc="Experts per layer.")
    active_experts_per_token = Field(integer=True, positive=True, symbol="k", doc="Experts routed per token.")

    forward_flops_per_token = Derived(2 * active_parameters * flop, "flop", symbol="F_{tok}",
                                      doc="Forward FLOPs per token: 2 per active parameter (only the routed "
                                          "experts work on a token).")
    training_flops_per_token = Derived(6 * active_parameters * flop, "flop",
                                       doc="Training FLOPs per token: 6 per active parameter.")
    active_fraction = Derived(active_parameters / TransformerWorkload.parameters, doc="Share of the parameters used per token.")

    checks = (Check(active_parameters <= TransformerWorkload.parameters, "active_parameters must not exceed parameters"),
              Check(active_experts_per_token <= experts, "active_experts_per_token must not exceed experts"))


class CNNWorkload(Workload):
    """A convolutional network."""

    inference_flops = Field("flop", positive=True, required=True, symbol="F_{inf}",
                            doc="Stated FLOPs of one forward pass of one input.")
    parameters = Field("param", positive=True, required=True, symbol="P", doc="Parameter count P.")
    layers = Field(integer=True, positive=True, symbol="L", doc="Layers with weights.")
    width_multiplier = Field(positive=True, doc="Channel-width multiplier of a scalable family.")

    flops_per_parameter = Derived(inference_flops / parameters, "flop",
                                  doc="Forward FLOPs per parameter: weight reuse across the image.")


class SSMWorkload(Workload):
    """A state-space model."""

    parameters = Field("param", positive=True, required=True, symbol="P", doc="Parameter count P.")
    layers = Field(integer=True, positive=True, required=True, symbol="L", doc="Blocks L.")
    hidden_dim = Field(integer=True, positive=True, required=True, symbol="d", doc="Model width d.")
    state_size = Field(integer=True, positive=True, symbol="N", doc="Recurrent state dimension.")

    state_values_per_sequence = Derived(layers * hidden_dim * state_size, symbol="N_s",
                                        doc="Recurrent state values per sequence (L·d·N): constant in the "
                                            "sequence length, unlike a KV cache.")


class DiffusionWorkload(Workload):
    """A diffusion model generating images."""

    parameters = Field("param", positive=True, required=True, symbol="P", doc="Parameter count P.")
    denoising_steps = Field(integer=True, positive=True, symbol="T", doc="Denoising steps per image.")
    resolution = Field(integer=True, positive=True, doc="Pixels per side.")

    flops_per_image = Derived(Workload.inference_flops * denoising_steps, "flop",
                              doc="Forward FLOPs of one image: the per-step FLOPs times the steps.")


class EmbodiedWorkload(Workload):
    """A robot policy producing chunks of actions."""

    parameters = Field("param", positive=True, required=True, symbol="P", doc="Parameter count P.")
    layers = Field(integer=True, positive=True, symbol="L", doc="Blocks L.")
    hidden_dim = Field(integer=True, positive=True, symbol="d", doc="Model width d.")
    action_chunk_horizon = Field(integer=True, positive=True, symbol="H", doc="Actions per predicted chunk.")
    action_dim = Field(integer=True, positive=True, symbol="A", doc="Width of one action.")
    observation_horizon = Field(integer=True, positive=True, doc="Observed frames (1 when unset).", fallback=1)

    action_values_per_chunk = Derived(action_chunk_horizon * action_dim, symbol="N_a",
                                      doc="Action values produced by one forward pass.")


WORKLOAD_TYPES: tuple[type[Workload], ...] = (
    Workload, TransformerWorkload, SparseTransformerWorkload, CNNWorkload, SSMWorkload, DiffusionWorkload,
    EmbodiedWorkload)
TIERS = ("Language", "Vision", "Tiny", "Recommendation", "StateSpace", "GenerativeVision", "Embodied")
