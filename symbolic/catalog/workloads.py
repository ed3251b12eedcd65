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

from symbolic.catalog.schema import Check, Derived, Field, Implies, Param, Record, Together, flop, unit_constant

# The storage width every size method takes: a precision name ("fp16") or a data quantity.
# A model known only by its stated `model_size` (DLRM) has that size at the 16-bit widths the reference
# states it for; at another width its size is unknown, so a scenario that reads the size refuses it.
STATED_SIZE_WIDTH = ("a workload known only by its stated model_size is that size at a 16-bit precision: precision "
                     "must be fp16 or bf16 (give the workload's parameters for another width)")
_WIDTH_DOC = "Bytes per stored value: a precision name (fp32, tf32, bf16, fp16, fp8, int8, int4) or a data quantity."


class Workload(Record):
    """A model as the scenarios see it: its size, stated compute and descriptive facts."""

    name = Field(text=True, required=True, doc="Display name.")
    architecture = Field(text=True, doc="Free-text family label.")
    parameters = Field("param", positive=True, symbol="P",
                       doc="Total parameter count P (mixture of experts: every expert).")
    model_size = Field("byte", positive=True, symbol="M",
                       doc="Weight footprint stated directly at 16-bit storage, where the parameter count is "
                           "unknown.")
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
    release_year = Field(integer=True, bounds=(1950, 2100), doc="Year of publication (descriptive: no formula reads it).")

    precision = Param("byte", positive=True, default="fp16", symbol="w", doc=_WIDTH_DOC)

    # A model known only by its stated size (DLRM) is that size at 16-bit storage: its stored values are the
    # size over 2 bytes, so it has a size at fp16/bf16 and no other (see STATED_SIZE_WIDTH).
    stored_values = Derived(parameters, "param", otherwise=model_size / (2 * unit_constant("byte")), symbol="P_s",
                            doc="Values the weights store: the parameter count P; without it, the stated "
                                "`model_size` over the 2 bytes of the 16-bit storage it is stated at.")
    size_in_bytes = Derived(parameters * precision, "byte", otherwise=model_size, symbol="W",
                            doc="Weight bytes at a storage width: P·w. Without a parameter count, the stated "
                                "`model_size`, exact at 16-bit widths (the width cannot be applied to an unknown "
                                "count: a scenario reads `stored_values` and refuses other widths).")
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
    # Refinements of the layout, each unset in the common case (its fallback): they change a count only where
    # a family departs from it (Qwen2's query/key/value biases, Gemma-2's four norms, Qwen3's head norms).
    qkv_biases = Field(choices={"none": 0, "qkv": 1}, fallback=biases, symbol=r"\beta_{qkv}",
                       doc="Biases of the query, key and value projections alone: `qkv` (Qwen2) or `none`; unset "
                           "follows `biases`.")
    norms_per_layer = Field(integer=True, positive=True, fallback=2, symbol="N_l",
                            doc="Norms of width d in one block; unset means 2 (before attention and before the MLP; "
                                "Gemma-2 has 4, Falcon-7B's parallel block 1).")
    head_norms = Field(choices={"none": 0, "qk": 2}, fallback=0, symbol="n_{hn}",
                       doc="Norms of one head's width on the queries and keys: `qk` (Qwen3, 2 of d_h) or `none` "
                           "(unset).")
    q_lora_rank = Field(integer=True, positive=True, symbol="r_q",
                        doc="Multi-head latent attention: width of the compressed query (DeepSeek-V3: 1536); unset "
                            "means the queries are projected directly.")
    qk_nope_head_dim = Field(integer=True, positive=True, symbol="d_n",
                             doc="Multi-head latent attention: width of a head's query and key without rotary "
                                 "positions (DeepSeek-V3: 128).")
    v_head_dim = Field(integer=True, positive=True, symbol="d_v",
                       doc="Multi-head latent attention: width of a head's value (DeepSeek-V3: 128).")
    sliding_window = Field(integer=True, positive=True, symbol="W",
                           doc="Tokens a sliding-window layer attends to and caches (Mistral-7B v0.1: 4096); set "
                               "together with `sliding_layers`.")
    sliding_layers = Field(integer=True, nonnegative=True, symbol="L_w",
                           doc="Blocks whose attention is limited to `sliding_window` (Gemma-2: every other one); "
                               "the others attend to the whole context.")

    seq_len = Param(integer=True, nonnegative=True, symbol="S", doc="Tokens per sequence.")
    batch_size = Param(integer=True, positive=True, symbol="B", doc="Sequences.")

    head_width = Derived(head_dim, symbol="d_h", doc="Width of one attention head.")
    kv_width = Derived(kv_heads * head_dim, symbol="w_{kv}", doc="Width of the keys (or values) of one token in one layer.")
    queries_per_kv_head = Derived(sympy.floor(heads / kv_heads), symbol="g",
                                  doc="Query heads sharing one key/value head.")
    # per position first, as a whole number (the per-token count divided by the layers would be a float, and a
    # float factor in one branch of the windowed cache made its exact integer bytes inexact in JavaScript)
    kv_values_per_position = Derived(kv_lora_rank + qk_rope_head_dim, otherwise=2 * kv_heads * head_dim,
                                     symbol=r"\nu_{kv}",
                                     doc="Values one block caches per token position: a key and a value vector per "
                                         "key/value head (2·a_kv·d_h), or the latent and the rotary key (r + ρ).")
    kv_values_per_token = Derived(
        layers * kv_values_per_position,
        symbol="N_{kv}",
        doc="Values cached per token: one key and one value vector per key/value head per layer "
            "(2·L·a_kv·d_h), or with multi-head latent attention the latent and the rotary key per layer "
            "(L·(r + ρ)).")
    kv_cache_bytes_per_token = Derived(kv_values_per_token * Workload.precision, "byte",
                                       doc="KV-cache bytes of one token of one sequence at a storage width.")
    get_kv_cache_size = Derived(kv_values_per_token * seq_len * batch_size * Workload.precision, "byte",
                                doc="KV-cache bytes of `batch_size` sequences of `seq_len` tokens.")
    # the positions a sequence of S tokens keeps in the cache (and its last token attends to), summed over the
    # blocks: every block up to the window, and a block of full attention the rest of the sequence too
    _cached_positions = (layers * sympy.Min(seq_len, sliding_window)
                         + (layers - sliding_layers) * sympy.Max(seq_len - sliding_window, 0))
    cached_positions = Derived(
        _cached_positions, symbol="S_L", otherwise=layers * seq_len,
        doc="Context positions the last of `seq_len` tokens attends to, summed over the blocks: every token in "
            "a block of full attention, at most the window in a sliding-window block (L·S without a window).")
    kv_cache_bytes = Derived(
        kv_values_per_position * _cached_positions * Workload.precision, "byte", symbol="K_S",
        otherwise=kv_values_per_token * seq_len * Workload.precision,
        doc="KV-cache bytes of one sequence of `seq_len` tokens at a storage width: every token in a block of "
            "full attention, at most the window in a sliding-window block (every token in every block without a "
            "window). Every scenario that sizes a cache at a context length reads this.")
    query_key_width = Derived(qk_nope_head_dim + qk_rope_head_dim, otherwise=head_dim, symbol="d_{qk}",
                              doc="Width of one head's query (and key): d_h, or with multi-head latent attention the "
                                  "part without and the part with rotary positions, d_n + ρ.")
    value_width = Derived(v_head_dim, otherwise=head_dim, symbol="d_{vh}",
                          doc="Width of one head's value: d_h, or `v_head_dim` with multi-head latent attention.")
    attention_flops_per_position = Derived(
        2 * heads * (query_key_width + value_width) * flop, "flop", symbol=r"\phi_{att}",
        doc="Attention FLOPs of one token over one context position in one block, 2·a·(d_qk + d_vh): per query "
            "head a multiply-add per query width (Q·Kᵀ) and per value width (the weighted sum of V).")
    attention_flops_per_token = Derived(
        layers * attention_flops_per_position * seq_len, "flop", symbol="F_{att}",
        doc="Attention FLOPs of one token over `seq_len` context tokens, L·φ_att·S (4·L·a·d_h·S with equal "
            "widths).")
    forward_flops_at_context = Derived(
        Workload.forward_flops_per_token + attention_flops_per_position * _cached_positions, "flop",
        symbol="F_{ctx}", otherwise=Workload.forward_flops_per_token + layers * attention_flops_per_position * seq_len,
        doc="Forward FLOPs of one token after `seq_len` context tokens: through the weights (2·P_tok) plus "
            "attention over the positions each block attends to (a sliding-window block at most its window).")
    embedding_parameters = Derived(vocab_size * hidden_dim, "param", doc="Token-embedding parameters V·d.")
    latent_query_parameters = Derived(
        hidden_dim * q_lora_rank + norm * q_lora_rank + q_lora_rank * heads * (qk_nope_head_dim + qk_rope_head_dim),
        "param", otherwise=hidden_dim * heads * (qk_nope_head_dim + qk_rope_head_dim), symbol="Q_l",
        doc="Multi-head latent attention, the queries of one block: down to r_q, its norm, up to every head's "
            "d_n + ρ (d·r_q + n_norm·r_q + r_q·a·(d_n + ρ)); without `q_lora_rank`, d·a·(d_n + ρ) directly.")
    attention_parameters_per_layer = Derived(
        latent_query_parameters + hidden_dim * (kv_lora_rank + qk_rope_head_dim) + norm * kv_lora_rank
        + kv_lora_rank * heads * (qk_nope_head_dim + v_head_dim) + heads * v_head_dim * hidden_dim,
        "param", symbol="A_l",
        otherwise=(2 * heads + 2 * kv_heads) * head_dim * hidden_dim
        + qkv_biases * (heads + 2 * kv_heads) * head_dim + biases * hidden_dim,
        doc="Attention weights of one block: the query and output projections (d·a·d_h each) and the key and "
            "value projections (d·a_kv·d_h each), with their biases where the model has them; with multi-head "
            "latent attention the queries Q_l, the latent and rotary key (d·(r + ρ)) with the latent's norm, their "
            "expansion to every head's key and value (r·a·(d_n + d_v)) and the output (a·d_v·d).")
    mlp_parameters = Derived(mlp * hidden_dim * ffn_dim + biases * ((mlp - 1) * ffn_dim + hidden_dim), "param",
                             symbol="M", doc="Weights of one MLP: n_mlp matrices of d·f, with their biases "
                                             "((n_mlp − 1)·f + d) where the model has them.")
    mlp_parameters_per_layer = Derived(mlp_parameters, "param", symbol="M_l", doc="MLP weights of one block: one MLP.")
    active_mlp_parameters_per_layer = Derived(mlp_parameters_per_layer, "param", symbol="M_l^{tok}",
                                              doc="MLP weights of one block that work on each token: all of them.")
    norm_parameters_per_layer = Derived(norms_per_layer * norm * hidden_dim + head_norms * norm * head_dim, "param",
                                        symbol="N_{norm}",
                                        doc="Norm weights of one block: N_l norms of the width, and the query and "
                                            "key norms of one head's width where the model has them.")
    non_mlp_parameters = Derived(
        (1 + lm_head) * vocab_size * hidden_dim + position_embeddings * hidden_dim
        + layers * (attention_parameters_per_layer + norm_parameters_per_layer) + norm * hidden_dim, "param",
        symbol="P_{emb+att}",
        doc="Parameters outside the MLPs: token embeddings (and the output projection unless tied), learned "
            "positions, every block's attention and norms, and the final norm.")
    architecture_parameters = Derived(
        non_mlp_parameters + layers * mlp_parameters_per_layer, "param", symbol="P_{arch}",
        doc="Parameters counted from the architecture (where the record gives the layout): those outside the "
            "MLPs and every block's MLP. A scenario reads the stated `parameters` where the record gives them, "
            "this count otherwise (a record built from a config.json).")
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

    # Declared again here, after the count it falls back to: a record built from a config.json states no
    # count and reads the architecture's (the catalog's entries keep their nominal, stated counts).
    parameters = Field("param", positive=True, required=True, symbol="P", fallback=architecture_parameters,
                       doc="Total parameter count P (mixture of experts: every expert); unset, the count from the "
                           "architecture (`architecture_parameters`).")

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
              Implies((kv_lora_rank, ffn_dim), (qk_nope_head_dim, v_head_dim),
                      message="an architecture count of multi-head latent attention needs the widths of a head: set "
                              "qk_nope_head_dim and v_head_dim with kv_lora_rank and the layout (ffn_dim, ...)"),
              Implies((qk_nope_head_dim,), (kv_lora_rank, v_head_dim),
                      message="qk_nope_head_dim and v_head_dim describe multi-head latent attention: set them with "
                              "kv_lora_rank and qk_rope_head_dim"),
              Implies((v_head_dim,), (kv_lora_rank, qk_nope_head_dim),
                      message="qk_nope_head_dim and v_head_dim describe multi-head latent attention: set them with "
                              "kv_lora_rank and qk_rope_head_dim"),
              Implies((q_lora_rank,), (kv_lora_rank,),
                      message="q_lora_rank compresses the queries of multi-head latent attention: set it with "
                              "kv_lora_rank"),
              Together(sliding_window, sliding_layers,
                       message="sliding_window and sliding_layers describe the sliding-window blocks together: set "
                               "both (the window and how many blocks use it) or neither"),
              Check(sliding_layers <= layers, "sliding_layers must not exceed layers"),
              Together(kv_lora_rank, qk_rope_head_dim,
                       message="kv_lora_rank and qk_rope_head_dim describe multi-head latent attention together: "
                               "set both (the cache holds L·(r + ρ) values per token) or neither (keys and values)"),
              Check(training_gpu_days <= sympy.Rational(101, 100) * training_accelerators_ref * training_days_ref, _gpu_days),
              Check(training_gpu_days >= sympy.Rational(99, 100) * training_accelerators_ref * training_days_ref, _gpu_days))


class SparseTransformerWorkload(TransformerWorkload):
    """A mixture-of-experts transformer: only `active_parameters` work on each token."""

    experts = Field(integer=True, positive=True, symbol="E", doc="Routed experts per layer.")
    active_experts_per_token = Field(integer=True, positive=True, symbol="k", doc="Experts routed per token.")
    # The expert layout beyond Mixtral's (every block a mixture of E experts of width f, a router of d·E): each
    # unset in that case.
    expert_ffn_dim = Field(integer=True, positive=True, fallback=TransformerWorkload.ffn_dim, symbol="f_e",
                           doc="Inner width of one routed expert; unset means `ffn_dim` (DeepSeek-V3: 2048, "
                               "beside an `ffn_dim` of 18432 in its dense blocks).")
    shared_experts = Field(integer=True, nonnegative=True, fallback=0, symbol="E_s",
                           doc="Experts every token goes through beside the routed ones (DeepSeek: 1 or 2, "
                               "Qwen2-MoE: 1); unset means none.")
    shared_expert_ffn_dim = Field(integer=True, positive=True, fallback=expert_ffn_dim, symbol="f_s",
                                  doc="Inner width of one shared expert; unset means `expert_ffn_dim` (Qwen2-MoE: "
                                      "5632).")
    shared_expert_gate = Field(choices={"none": 0, "gated": 1}, fallback=0, symbol="g_s",
                               doc="A gate of d weights scaling the shared experts' output (Qwen2-MoE: `gated`); "
                                   "unset means `none`.")
    router_bias = Field(choices={"none": 0, "per_expert": 1}, fallback=0, symbol="b_r",
                        doc="A bias per routed expert on the router's scores (DeepSeek-V3's correction bias: "
                            "`per_expert`); unset means `none`.")
    dense_layers = Field(integer=True, nonnegative=True, fallback=0, symbol="L_d",
                         doc="Blocks with a dense MLP of `ffn_dim` instead of experts (DeepSeek-V3: its first 3); "
                             "unset means none.")

    router_parameters = Derived((experts + shared_expert_gate) * TransformerWorkload.hidden_dim + router_bias * experts,
                                "param", symbol="R_l",
                                doc="Router weights of one mixture block, d·(E + g_s) + b_r·E: every token is scored "
                                    "against every expert (and the shared experts' gate), with a bias per expert "
                                    "where the model has one.")
    expert_parameters = Derived(
        TransformerWorkload.mlp * TransformerWorkload.hidden_dim * expert_ffn_dim
        + TransformerWorkload.biases * ((TransformerWorkload.mlp - 1) * expert_ffn_dim + TransformerWorkload.hidden_dim),
        "param", symbol="M_e", doc="Weights of one routed expert: an MLP of width f_e.")
    shared_expert_parameters = Derived(
        TransformerWorkload.mlp * TransformerWorkload.hidden_dim * shared_expert_ffn_dim
        + TransformerWorkload.biases * ((TransformerWorkload.mlp - 1) * shared_expert_ffn_dim
                                        + TransformerWorkload.hidden_dim),
        "param", symbol="M_s", doc="Weights of one shared expert: an MLP of width f_s.")
    mlp_parameters_per_layer = Derived(experts * expert_parameters + shared_experts * shared_expert_parameters
                                       + router_parameters, "param", symbol="M_l",
                                       doc="MLP weights of one mixture block: E routed experts, E_s shared ones and "
                                           "the router.")
    active_mlp_parameters_per_layer = Derived(
        active_experts_per_token * expert_parameters + shared_experts * shared_expert_parameters + router_parameters,
        "param", symbol="M_l^{tok}",
        doc="MLP weights of one mixture block that work on each token: the k routed experts, the shared ones and "
            "the router.")
    architecture_parameters = Derived(
        TransformerWorkload.non_mlp_parameters + dense_layers * TransformerWorkload.mlp_parameters
        + (TransformerWorkload.layers - dense_layers) * mlp_parameters_per_layer, "param", symbol="P_{arch}",
        doc="Parameters counted from the architecture: those outside the MLPs, the L_d dense blocks' MLPs and the "
            "L − L_d mixture blocks' experts and routers. A scenario reads the stated `parameters` where the "
            "record gives them, this count otherwise (a record built from a config.json).")
    architecture_active_parameters = Derived(
        TransformerWorkload.non_mlp_parameters + dense_layers * TransformerWorkload.mlp_parameters
        + (TransformerWorkload.layers - dense_layers) * active_mlp_parameters_per_layer, "param",
        symbol="P_{arch}^{tok}",
        doc="Parameters counted from the architecture that work on each token: the k routed experts and the "
            "shared ones of each mixture block, everything else.")
    active_parameters = Field("param", positive=True, required=True, symbol="P_a",
                              fallback=architecture_active_parameters,
                              doc="Parameters used per token (required, or counted from the architecture: without "
                                  "it a mixture of experts would be priced at every expert).")
    parameters_per_token = Derived(active_parameters, "param", symbol="P_{tok}",
                                   doc="Parameters that work on each token: the active ones (only the routed "
                                       "experts work on a token); the weights stay at every parameter.")
    active_fraction = Derived(active_parameters / TransformerWorkload.parameters, doc="Share of the parameters used per token.")

    checks = (Check(active_parameters <= TransformerWorkload.parameters, "active_parameters must not exceed parameters"),
              Check(active_experts_per_token <= experts, "active_experts_per_token must not exceed experts"),
              Check(dense_layers <= TransformerWorkload.layers - 1,
                    "dense_layers must be fewer than layers (a mixture of experts has at least one mixture block)"),
              Implies((shared_expert_ffn_dim,), (shared_experts,),
                      message="shared_expert_ffn_dim is the width of the shared experts: set shared_experts too"),
              Implies((expert_ffn_dim,), (experts,), message="expert_ffn_dim is the width of a routed expert: set "
                                                             "experts too"))


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
