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

from symbolic.catalog.schema import Apart, Check, Derived, Field, Param, Record, Together, flop

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
    # Compute reads the parameters that work on a token, memory all of them: a scenario prices FLOPs
    # with these (never with its own 2·P), so a mixture of experts is priced at its active parameters.
    parameters_per_token = Derived(parameters, "param", symbol="P_{tok}",
                                   doc="Parameters that work on each token: every parameter of a dense model.")
    forward_flops_per_token = Derived(2 * parameters_per_token * flop, "flop", symbol="F_{tok}",
                                      doc="Forward FLOPs per token through the weights, 2·P_tok: one multiply-add "
                                          "per parameter that works on the token (Kaplan et al. 2020).")
    training_flops_per_token = Derived(6 * parameters_per_token * flop, "flop", symbol="F_{train}",
                                       doc="Training FLOPs per token, 6·P_tok: forward 2, backward 4 per parameter "
                                           "that works on the token (Kaplan et al. 2020).")

    checks = (Check(parameter_range_min <= parameter_range_max,
                    "parameter_range_min must not exceed parameter_range_max"),)


class TransformerWorkload(Workload):
    """A transformer: attention geometry, context and the published training run."""

    parameters = Field("param", positive=True, required=True, symbol="P",
                       doc="Total parameter count P (mixture of experts: every expert).")
    layers = Field(integer=True, positive=True, required=True, symbol="L", doc="Transformer blocks L.")
    hidden_dim = Field(integer=True, positive=True, symbol="d", doc="Model width d.")
    heads = Field(integer=True, positive=True, symbol="a", doc="Query attention heads a.")
    # An unset field with a fallback reads as the fallback (the number every formula uses), not None.
    kv_heads = Field(integer=True, positive=True, fallback=heads, symbol="a_{kv}",
                     doc="Key/value heads (grouped- or multi-query attention); unset means `heads`. A divisor "
                         "of `heads`: each key/value head serves a whole group of query heads.")
    head_dim = Field(integer=True, positive=True, fallback=sympy.floor(hidden_dim / heads), symbol="d_h",
                     doc="Width of one head; unset means d/a, and then `hidden_dim` must be a multiple of "
                         "`heads` (PaLM sets 256).")
    kv_lora_rank = Field(integer=True, positive=True, symbol="r",
                         doc="Multi-head latent attention: width of the cached latent (DeepSeek-V3: 512); set "
                             "together with `qk_rope_head_dim`, or neither (then the cache keeps keys and values).")
    qk_rope_head_dim = Field(integer=True, positive=True, symbol=r"\rho",
                             doc="Multi-head latent attention: width of the decoupled rotary key (DeepSeek-V3: 64); "
                                 "set together with `kv_lora_rank`.")
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
    # The architecture, where published: enough to count the parameters from the layout (a model card's
    # config.json holds each of these) beside the nominal `parameters` the scenarios read.
    ffn_dim = Field(integer=True, positive=True, symbol="f",
                    doc="Inner width of the MLP (of each expert in a mixture of experts).")
    mlp = Field(choices={"plain": 2, "gated": 3}, symbol="n_{mlp}",
                doc="The MLP: `plain` (up and down projections, 2 matrices of d·f: GPT-2, OPT) or `gated` (gate, "
                    "up and down, 3: SwiGLU in Llama and Mixtral).")
    norm = Field(choices={"layernorm": 2, "rmsnorm": 1}, symbol="n_{norm}",
                 doc="The normalisation, two per block and one final: `layernorm` (a scale and a bias per "
                     "width, 2) or `rmsnorm` (a scale, 1).")
    biases = Field(choices={"none": 0, "all": 1}, symbol=r"\beta_b",
                   doc="Biases of the attention and MLP projections: `all` (GPT-2, OPT) or `none` (Llama).")
    position_embeddings = Field(integer=True, nonnegative=True, symbol="C_p",
                                doc="Rows of a learned position table (GPT-2: 1024; 0 with rotary positions).")
    lm_head = Field(choices={"tied": 0, "separate": 1}, symbol=r"\ell",
                    doc="The output projection: `tied` to the token embeddings (no weights of its own) or "
                        "`separate` (V·d more).")

    seq_len = Param(integer=True, nonnegative=True, symbol="S", doc="Tokens per sequence.")
    batch_size = Param(integer=True, positive=True, symbol="B", doc="Sequences.")

    head_width = Derived(head_dim, symbol="d_h", doc="Width of one attention head.")
    kv_width = Derived(kv_heads * head_dim, symbol="w_{kv}", doc="Width of the keys (or values) of one token in one layer.")
    queries_per_kv_head = Derived(sympy.floor(heads / kv_heads), symbol="g",
                                  doc="Query heads sharing one key/value head.")
    kv_values_per_token = Derived(
        layers * (kv_lora_rank + qk_rope_head_dim), otherwise=2 * layers * kv_heads * head_dim,
        symbol="N_{kv}",
        doc="Values cached per token: one key and one value vector per key/value head per layer "
            "(2·L·a_kv·d_h), or with multi-head latent attention the latent and the rotary key per layer "
            "(L·(r + ρ)).")
    kv_cache_bytes_per_token = Derived(kv_values_per_token * Workload.precision, "byte",
                                       doc="KV-cache bytes of one token of one sequence at a storage width.")
    get_kv_cache_size = Derived(kv_values_per_token * seq_len * batch_size * Workload.precision, "byte",
                                doc="KV-cache bytes of `batch_size` sequences of `seq_len` tokens.")
    attention_flops_per_token = Derived(4 * layers * heads * head_dim * seq_len * flop, "flop", symbol="F_{att}",
                                        doc="Attention FLOPs of one token over `seq_len` context tokens, "
                                            "4·L·a·d_h·S: per query head and layer, 2 multiply-adds per head "
                                            "width per context token (Q·Kᵀ and the weighted sum of V).")
    embedding_parameters = Derived(vocab_size * hidden_dim, "param", doc="Token-embedding parameters V·d.")
    attention_parameters_per_layer = Derived(
        (2 * heads + 2 * kv_heads) * head_dim * hidden_dim + biases * ((heads + 2 * kv_heads) * head_dim + hidden_dim),
        "param", symbol="A_l",
        doc="Attention weights of one block: the query and output projections (d·a·d_h each) and the key and "
            "value projections (d·a_kv·d_h each), with their biases where the model has them.")
    mlp_parameters = Derived(mlp * hidden_dim * ffn_dim + biases * ((mlp - 1) * ffn_dim + hidden_dim), "param",
                             symbol="M", doc="Weights of one MLP: n_mlp matrices of d·f, with their biases "
                                             "((n_mlp − 1)·f + d) where the model has them.")
    mlp_parameters_per_layer = Derived(mlp_parameters, "param", symbol="M_l", doc="MLP weights of one block: one MLP.")
    active_mlp_parameters_per_layer = Derived(mlp_parameters_per_layer, "param", symbol="M_l^{tok}",
                                              doc="MLP weights of one block that work on each token: all of them.")
    non_mlp_parameters = Derived(
        (1 + lm_head) * vocab_size * hidden_dim + position_embeddings * hidden_dim
        + layers * (attention_parameters_per_layer + 2 * norm * hidden_dim) + norm * hidden_dim, "param",
        symbol="P_{emb+att}",
        doc="Parameters outside the MLPs: token embeddings (and the output projection unless tied), learned "
            "positions, every block's attention and two norms, and the final norm.")
    architecture_parameters = Derived(
        non_mlp_parameters + layers * mlp_parameters_per_layer, "param", symbol="P_{arch}",
        doc="Parameters counted from the architecture (where the record gives the layout): those outside the "
            "MLPs and every block's MLP. The scenarios read the stated `parameters`.")
    architecture_active_parameters = Derived(
        non_mlp_parameters + layers * active_mlp_parameters_per_layer, "param", symbol="P_{arch}^{tok}",
        doc="Parameters counted from the architecture that work on each token (every one for a dense model).")
    block_parameters_estimate = Derived(12 * layers * hidden_dim**2, "param",
                                        doc="Non-embedding parameters of classic blocks, 12·L·d² (4d² attention "
                                            "plus 8d² MLP; Kaplan et al. 2020).")
    training_compute_estimate = Derived(Workload.training_flops_per_token * training_tokens, "flop",
                                        doc="Training FLOPs of the published run by the 6PD rule.")
    training_compute = Derived(training_ops, "flop", otherwise=Workload.training_flops_per_token * training_tokens,
                               doc="Training FLOPs of the published run: `training_ops` as published, else the 6PD "
                                   "estimate.")

    _gpu_days = "training_gpu_days must be within 1 % of training_accelerators_ref × training_days_ref"
    checks = (Check(kv_heads <= heads, "kv_heads must not exceed heads"),
              Check(kv_heads * sympy.floor(heads / kv_heads) >= heads,
                    "heads must be a multiple of kv_heads (each key/value head serves a whole group of query heads)"),
              Check(heads * sympy.floor(hidden_dim / heads) >= hidden_dim,
                    "hidden_dim must be a multiple of heads when head_dim is unset (unset means a head width of "
                    "hidden_dim/heads); set head_dim for another width", unless=head_dim),
              Together(ffn_dim, mlp, norm, biases, position_embeddings, lm_head,
                       message="the architecture fields describe one layout together: set ffn_dim, mlp, norm, "
                               "biases, position_embeddings and lm_head, or none of them"),
              Apart(kv_lora_rank, ffn_dim,
                    message="the architecture count covers standard attention, not multi-head latent attention: "
                            "leave ffn_dim unset with kv_lora_rank (the stated parameters are read)"),
              Together(kv_lora_rank, qk_rope_head_dim,
                       message="kv_lora_rank and qk_rope_head_dim describe multi-head latent attention together: "
                               "set both (the cache holds L·(r + ρ) values per token) or neither (keys and values)"),
              Check(training_gpu_days <= sympy.Rational(101, 100) * training_accelerators_ref * training_days_ref, _gpu_days),
              Check(training_gpu_days >= sympy.Rational(99, 100) * training_accelerators_ref * training_days_ref, _gpu_days))


class SparseTransformerWorkload(TransformerWorkload):
    """A mixture-of-experts transformer: only `active_parameters` work on each token."""

    active_parameters = Field("param", positive=True, required=True, symbol="P_a",
                              doc="Parameters used per token (required: without it a mixture of experts would be "
                                  "priced at every expert).")
    experts = Field(integer=True, positive=True, symbol="E", doc="Experts per layer.")
    active_experts_per_token = Field(integer=True, positive=True, symbol="k", doc="Experts routed per token.")

    parameters_per_token = Derived(active_parameters, "param", symbol="P_{tok}",
                                   doc="Parameters that work on each token: the active ones (only the routed "
                                       "experts work on a token); the weights stay at every parameter.")
    router_parameters = Derived(experts * TransformerWorkload.hidden_dim, "param", symbol="R_l",
                                doc="Router weights of one block, d·E: every token is scored against every expert.")
    mlp_parameters_per_layer = Derived(experts * TransformerWorkload.mlp_parameters + router_parameters, "param",
                                       symbol="M_l", doc="MLP weights of one block: E experts and the router.")
    active_mlp_parameters_per_layer = Derived(
        active_experts_per_token * TransformerWorkload.mlp_parameters + router_parameters, "param", symbol="M_l^{tok}",
        doc="MLP weights of one block that work on each token: the k routed experts and the router.")
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
