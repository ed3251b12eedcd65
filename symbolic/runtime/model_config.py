"""A workload record from a Hugging Face ``config.json``: the architecture, not a nominal count.

``workload_from_config(path_or_mapping, types)`` reads the config of one of the families in
``FAMILIES`` (by its ``model_type``) and returns a ``TransformerWorkload`` (a
``SparseTransformerWorkload`` for a mixture of experts) whose layout fields say what the
config says. It states no parameter count: ``parameters`` and ``active_parameters`` fall back
to the counts the record's declared expressions give from the layout (``architecture_parameters``),
so every scenario reads the architecture. No network, no weights: only the config's numbers.

Each family reads the keys listed in ``FAMILIES`` (HF's names; a default where HF has one) and
nothing else. A key that changes a count but has no field of its own is read to refuse the
values the record cannot express (OPT-350m's ``word_embed_proj_dim``, Llama's ``mlp_bias``
unlike its ``attention_bias``); every other key (dropouts, rope scaling, token ids, dtypes,
activations, init ranges) cannot change a count or the cache and is ignored. Errors name the
config key, the value and what was expected; an unknown ``model_type`` lists the supported ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError

_ABSENT = object()


class _Config:
    """The keys of one config, read with a check each; errors name the source and the key."""

    def __init__(self, data: Mapping[str, Any], source: str, family: str) -> None:
        self.data, self.source, self.family = data, source, family

    def _where(self, key: str) -> str:
        return f"{self.source} ({self.family}): key '{key}'"

    def raw(self, *keys: str, default: Any = _ABSENT) -> Any:
        """The value of the first of ``keys`` present (aliases: GPT-2's n_embd, Falcon's n_head); aliases
        given with different values are a contradiction."""
        found = [(key, self.data[key]) for key in keys if key in self.data and self.data[key] is not None]
        if len({json.dumps(value, sort_keys=True) for _, value in found}) > 1:
            shown = ", ".join(f"{key}={value!r}" for key, value in found)
            raise ScenarioInputError(f"{self.source} ({self.family}): {shown} contradict each other (the same "
                                     "number under two names); give one")
        if found:
            return found[0][1]
        if default is _ABSENT:
            raise MissingInputError(f"{self._where(keys[0])} is missing; a {self.family} config needs it "
                                    f"(keys read: {', '.join(FAMILIES[self.family][1])})")
        return default

    def count(self, *keys: str, default: Any = _ABSENT, minimum: int = 1) -> Any:
        value = self.raw(*keys, default=default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise InputTypeError(f"{self._where(keys[0])} got {value!r}; expected an integer ≥ {minimum}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw(key, default=default)
        if not isinstance(value, bool):
            raise InputTypeError(f"{self._where(key)} got {value!r}; expected true or false")
        return value

    def refuse(self, key: str, value: Any, why: str) -> None:
        raise ScenarioInputError(f"{self._where(key)} got {value!r}, which the workload record cannot count: {why}")


# -- the families: what each reads, and the record fields it gives -------------------------------------

def _decoder(c: _Config, *, biases: str = "none", qkv_biases: str | None = None, tied: bool = False) -> dict[str, Any]:
    """The keys Llama and its descendants share: a gated MLP, RMS norms, rotary positions."""
    fields: dict[str, Any] = {
        "layers": c.count("num_hidden_layers"), "hidden_dim": c.count("hidden_size"),
        "heads": c.count("num_attention_heads"), "ffn_dim": c.count("intermediate_size"),
        "vocab_size": c.count("vocab_size"), "mlp": "gated", "norm": "rmsnorm", "biases": biases,
        "position_embeddings": 0, "lm_head": "tied" if c.flag("tie_word_embeddings", tied) else "separate",
    }
    fields["kv_heads"] = c.count("num_key_value_heads", default=fields["heads"])
    head_dim = c.count("head_dim", default=None)
    if head_dim is not None:
        fields["head_dim"] = head_dim
    if qkv_biases is not None:
        fields["qkv_biases"] = qkv_biases
    context = c.count("max_position_embeddings", default=None)
    if context is not None:
        fields["context_length"] = context
    return fields


def _llama_biases(c: _Config) -> str:
    attention, mlp = c.flag("attention_bias", False), c.flag("mlp_bias", False)
    if attention != mlp:
        c.refuse("mlp_bias", mlp, f"it differs from attention_bias ({attention}); the record's `biases` puts biases on "
                                  "every projection or on none")
    return "all" if attention else "none"


def _window(c: _Config, fields: dict[str, Any], sliding: int | None) -> dict[str, Any]:
    """The sliding window and how many blocks use it: ``layer_types`` where the config lists them, else
    ``sliding`` blocks (the family's rule)."""
    window = c.count("sliding_window", default=None)
    layer_types = c.raw("layer_types", default=None)
    if layer_types is not None:
        if not isinstance(layer_types, list) or len(layer_types) != fields["layers"]:
            c.refuse("layer_types", layer_types, f"expected a list of {fields['layers']} block types")
        sliding = sum(kind == "sliding_attention" for kind in layer_types)
    if window is None or not sliding:
        return fields
    return {**fields, "sliding_window": window, "sliding_layers": sliding}


def _llama(c: _Config) -> dict[str, Any]:
    return _decoder(c, biases=_llama_biases(c))


def _mistral(c: _Config) -> dict[str, Any]:
    fields = _decoder(c)
    return _window(c, fields, fields["layers"])


def _phi3(c: _Config) -> dict[str, Any]:
    fields = _decoder(c)
    return _window(c, fields, fields["layers"])


def _qwen_window(c: _Config, fields: dict[str, Any]) -> dict[str, Any]:
    # Qwen2/3: with use_sliding_window, the blocks from max_window_layers on slide (HF's layer_types rule)
    if not c.flag("use_sliding_window", False):
        return fields if c.raw("layer_types", default=None) is None else _window(c, fields, 0)
    first = c.count("max_window_layers", default=fields["layers"], minimum=0)
    return _window(c, fields, max(fields["layers"] - first, 0))


def _qwen2(c: _Config) -> dict[str, Any]:
    return _qwen_window(c, _decoder(c, qkv_biases="qkv"))


def _qwen3(c: _Config) -> dict[str, Any]:
    fields = _decoder(c, biases=_llama_biases(c))
    return _qwen_window(c, {**fields, "head_norms": "qk"})


def _gemma(c: _Config) -> dict[str, Any]:
    return _decoder(c, biases=_llama_biases(c), tied=True)


def _gemma2(c: _Config) -> dict[str, Any]:
    fields = {**_decoder(c, biases=_llama_biases(c), tied=True), "norms_per_layer": 4}  # pre and post norms around attention and the MLP
    return _window(c, fields, (fields["layers"] + 1) // 2)  # HF: the even-numbered blocks slide


def _sparse_layers(c: _Config, fields: dict[str, Any], moe: Callable[[int], bool]) -> dict[str, Any]:
    dense = sum(not moe(layer) for layer in range(fields["layers"]))
    if dense == fields["layers"]:
        c.refuse("num_hidden_layers", fields["layers"], "no block is a mixture of experts under this config's rule")
    return {**fields, "dense_layers": dense} if dense else fields


def _qwen_moe(c: _Config, *, shared: bool) -> dict[str, Any]:
    fields = _decoder(c, qkv_biases="qkv") if shared else {**_decoder(c, biases=_llama_biases(c)), "head_norms": "qk"}
    fields = _qwen_window(c, fields)
    fields.update(experts=c.count("num_experts"), active_experts_per_token=c.count("num_experts_per_tok"),
                  expert_ffn_dim=c.count("moe_intermediate_size"))
    if shared:
        width = c.count("shared_expert_intermediate_size", minimum=0)
        if width:
            fields.update(shared_experts=1, shared_expert_ffn_dim=width, shared_expert_gate="gated")
    step = c.count("decoder_sparse_step", default=1)
    dense_only = c.raw("mlp_only_layers", default=[])
    if not isinstance(dense_only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in dense_only):
        c.refuse("mlp_only_layers", dense_only, "expected a list of block indices")
    return _sparse_layers(c, fields, lambda layer: layer not in dense_only and (layer + 1) % step == 0)


def _mixtral(c: _Config) -> dict[str, Any]:
    fields = _decoder(c)
    fields = _window(c, fields, fields["layers"])
    return {**fields, "experts": c.count("num_local_experts"), "active_experts_per_token": c.count("num_experts_per_tok")}


def _deepseek(c: _Config) -> dict[str, Any]:
    fields = _decoder(c, biases=_llama_biases(c))
    fields.pop("kv_heads")  # latent attention caches no per-head keys: kv_heads says nothing here
    fields.pop("head_dim", None)  # (where HF writes one, it is qk_rope_head_dim's)
    fields.update(kv_lora_rank=c.count("kv_lora_rank"), qk_rope_head_dim=c.count("qk_rope_head_dim"),
                  qk_nope_head_dim=c.count("qk_nope_head_dim"), v_head_dim=c.count("v_head_dim"),
                  experts=c.count("n_routed_experts"), active_experts_per_token=c.count("num_experts_per_tok"),
                  expert_ffn_dim=c.count("moe_intermediate_size"))
    q_rank = c.count("q_lora_rank", default=None)
    if q_rank is not None:
        fields["q_lora_rank"] = q_rank
    shared = c.count("n_shared_experts", default=0, minimum=0)
    if shared:
        fields["shared_experts"] = shared
    method = c.raw("topk_method", default="greedy")
    if method == "noaux_tc":  # V3's routing adds a learned correction bias per expert to the scores
        fields["router_bias"] = "per_expert"
    first, every = c.count("first_k_dense_replace", default=0, minimum=0), c.count("moe_layer_freq", default=1)
    return _sparse_layers(c, fields, lambda layer: layer >= first and layer % every == 0)


def _gpt2(c: _Config) -> dict[str, Any]:
    if c.flag("add_cross_attention", False):
        c.refuse("add_cross_attention", True, "an encoder-decoder's cross-attention blocks have no field")
    width = c.count("n_embd", "hidden_size")
    positions = c.count("n_positions", "max_position_embeddings")
    return {"layers": c.count("n_layer", "num_hidden_layers"), "hidden_dim": width,
            "heads": c.count("n_head", "num_attention_heads"), "ffn_dim": c.count("n_inner", default=None) or 4 * width,
            "vocab_size": c.count("vocab_size"), "mlp": "plain", "norm": "layernorm", "biases": "all",
            "position_embeddings": positions, "context_length": c.count("n_ctx", default=positions),
            "lm_head": "tied" if c.flag("tie_word_embeddings", True) else "separate"}


def _gpt_neox(c: _Config) -> dict[str, Any]:
    if not c.flag("attention_bias", True):
        c.refuse("attention_bias", False, "GPT-NeoX's MLP keeps its biases; the record's `biases` covers every "
                                          "projection or none")
    fields = _decoder(c, biases="all")
    return {**fields, "mlp": "plain", "norm": "layernorm"}


def _opt(c: _Config) -> dict[str, Any]:
    width = c.count("hidden_size")
    projected = c.count("word_embed_proj_dim", default=width)
    if projected != width:
        c.refuse("word_embed_proj_dim", projected, f"embeddings projected to hidden_size {width} (OPT-350m) add "
                                                   "project_in/out matrices the record has no field for")
    if not c.flag("layer_norm_elementwise_affine", True):
        c.refuse("layer_norm_elementwise_affine", False, "LayerNorms without weights have no field")
    if not c.flag("do_layer_norm_before", True):
        c.refuse("do_layer_norm_before", False, "post-norm OPT (350m) has no final norm")
    context = c.count("max_position_embeddings")
    return {"layers": c.count("num_hidden_layers"), "hidden_dim": width, "heads": c.count("num_attention_heads"),
            "ffn_dim": c.count("ffn_dim"), "vocab_size": c.count("vocab_size"), "mlp": "plain", "norm": "layernorm",
            "biases": "all" if c.flag("enable_bias", True) else "none",
            "position_embeddings": context + 2,  # OPT's learned positions start at offset 2
            "context_length": context, "lm_head": "tied" if c.flag("tie_word_embeddings", True) else "separate"}


def _falcon(c: _Config) -> dict[str, Any]:
    width, heads = c.count("hidden_size", "n_embd"), c.count("num_attention_heads", "n_head")
    new = c.flag("new_decoder_architecture", False)
    parallel = c.flag("parallel_attn", True)
    if new:
        kv_heads = c.count("num_kv_heads", "n_head_kv", default=heads)
        norms = 2 if c.count("num_ln_in_parallel_attn", default=2) == 2 else 1
    else:
        kv_heads = 1 if c.flag("multi_query", True) else heads
        norms = 1 if parallel else 2
    fields = {"layers": c.count("num_hidden_layers", "n_layer"), "hidden_dim": width, "heads": heads,
              "kv_heads": kv_heads, "ffn_dim": c.count("ffn_hidden_size", default=4 * width),
              "vocab_size": c.count("vocab_size"), "mlp": "plain", "norm": "layernorm",
              "biases": "all" if c.flag("bias", False) else "none", "position_embeddings": 0,
              "norms_per_layer": norms, "lm_head": "tied" if c.flag("tie_word_embeddings", True) else "separate"}
    head_dim = c.count("head_dim", default=None)
    if head_dim is not None:
        fields["head_dim"] = head_dim
    context = c.count("max_position_embeddings", default=None)
    return {**fields, "context_length": context} if context else fields


# model_type -> (how its fields are read, the keys read), in the order the docs list them
_LLAMA_KEYS = ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
               "intermediate_size", "vocab_size", "tie_word_embeddings", "max_position_embeddings")
_QWEN_WINDOW = ("use_sliding_window", "sliding_window", "max_window_layers", "layer_types")
_MOE = ("num_experts", "num_experts_per_tok", "moe_intermediate_size", "decoder_sparse_step", "mlp_only_layers")
FAMILIES: dict[str, tuple[Callable[[_Config], dict[str, Any]], tuple[str, ...]]] = {
    "gpt2": (_gpt2, ("n_layer", "n_embd", "n_head", "n_inner", "n_positions", "n_ctx", "vocab_size",
                     "tie_word_embeddings", "add_cross_attention")),
    "gpt_neox": (_gpt_neox, (*_LLAMA_KEYS, "attention_bias")),
    "opt": (_opt, ("num_hidden_layers", "hidden_size", "num_attention_heads", "ffn_dim", "vocab_size",
                   "max_position_embeddings", "word_embed_proj_dim", "do_layer_norm_before", "enable_bias",
                   "layer_norm_elementwise_affine", "tie_word_embeddings")),
    "falcon": (_falcon, ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim",
                         "new_decoder_architecture", "multi_query", "parallel_attn", "num_ln_in_parallel_attn",
                         "ffn_hidden_size", "bias", "vocab_size", "tie_word_embeddings", "max_position_embeddings")),
    "llama": (_llama, (*_LLAMA_KEYS, "attention_bias", "mlp_bias")),
    "mistral": (_mistral, (*_LLAMA_KEYS, "sliding_window", "layer_types")),
    "mixtral": (_mixtral, (*_LLAMA_KEYS, "sliding_window", "num_local_experts", "num_experts_per_tok")),
    "qwen2": (_qwen2, (*_LLAMA_KEYS, *_QWEN_WINDOW)),
    "qwen2_moe": (lambda c: _qwen_moe(c, shared=True), (*_LLAMA_KEYS, *_QWEN_WINDOW, *_MOE,
                                                         "shared_expert_intermediate_size")),
    "qwen3": (_qwen3, (*_LLAMA_KEYS, *_QWEN_WINDOW, "attention_bias", "mlp_bias")),
    "qwen3_moe": (lambda c: _qwen_moe(c, shared=False), (*_LLAMA_KEYS, *_QWEN_WINDOW, *_MOE, "attention_bias",
                                                          "mlp_bias")),
    "gemma": (_gemma, (*_LLAMA_KEYS, "attention_bias", "mlp_bias")),
    "gemma2": (_gemma2, (*_LLAMA_KEYS, "attention_bias", "mlp_bias", "sliding_window", "layer_types")),
    "phi3": (_phi3, (*_LLAMA_KEYS, "sliding_window", "layer_types")),
    "deepseek_v2": (_deepseek, (*_LLAMA_KEYS, "attention_bias", "mlp_bias", "q_lora_rank", "kv_lora_rank",
                                "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "n_routed_experts",
                                "num_experts_per_tok", "n_shared_experts", "moe_intermediate_size",
                                "first_k_dense_replace", "moe_layer_freq", "topk_method")),
}
FAMILIES["deepseek_v3"] = FAMILIES["deepseek_v2"]
# older names of the same layouts
_ALIASES = {"RefinedWeb": "falcon", "RefinedWebModel": "falcon"}
SPARSE = frozenset({"mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3"})


def read_config(source: Any) -> tuple[dict[str, Any], str]:
    """The parsed config and how errors name it: a path to a JSON file, or a mapping already parsed."""
    if isinstance(source, Mapping):
        return dict(source), "config"
    if not isinstance(source, (str, Path)):
        raise InputTypeError(f"workload_from_config: got {source!r}; expected the path of a config.json or a "
                             "mapping parsed from one")
    path = Path(source)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ScenarioInputError(f"{path}: cannot read the config ({error.strerror or error})") from None
    except json.JSONDecodeError as error:
        raise ScenarioInputError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise ScenarioInputError(f"{path}: expected a JSON object of config keys, got {type(data).__name__}")
    return data, str(path)


def config_fields(source: Any) -> tuple[str, dict[str, Any]]:
    """The record type (``TransformerWorkload`` or ``SparseTransformerWorkload``) and fields a config gives."""
    data, shown = read_config(source)
    family = data.get("model_type")
    family = _ALIASES.get(family, family) if isinstance(family, str) else family
    if family not in FAMILIES:
        raise ScenarioInputError(f"{shown}: key 'model_type' got {data.get('model_type')!r}; supported: "
                                 f"{', '.join(sorted(FAMILIES))}")
    reader = _Config(data, shown, family)
    fields = FAMILIES[family][0](reader)
    name = data.get("_name_or_path") or _file_name(shown) or family
    fields = {"name": str(name), "architecture": family, **fields}
    return ("SparseTransformerWorkload" if family in SPARSE else "TransformerWorkload"), fields


def _file_name(shown: str) -> str:
    """A config's name from its file: the folder of a ``config.json``, else the file's stem."""
    if shown == "config":
        return ""
    path = Path(shown)
    return path.parent.name if path.name == "config.json" else path.stem


def workload_from_config(source: Any, types: Mapping[str, type], **overrides: Any) -> Any:
    """The workload record of a config (see the module doc); ``types`` maps record type names to the
    runtime classes (``generated.workloads``); ``overrides`` set or replace fields (``name=``,
    ``context_length=``). A record the config's numbers make incoherent is refused naming its fields."""
    kind, fields = config_fields(source)
    fields.update(overrides)
    try:
        return types[kind](**fields)
    except ScenarioInputError as error:
        raise type(error)(f"{error} (the fields as read from a {fields['architecture']} config; the keys each "
                          "is read from: symbolic.runtime.model_config.FAMILIES)") from None
