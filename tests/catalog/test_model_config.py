"""Workloads from Hugging Face config.json files (tests/data/*.json, the published configs' values).

Every count below is worked out by hand from the config, per block: attention (2a + 2a_kv)·d_h·d
(+ q/k/v biases (a + 2a_kv)·d_h, output bias d), the MLP n·d·f (n = 2 plain, 3 gated; + biases
(n − 1)·f + d), N_l norms of d (×2 for LayerNorm's bias); outside the blocks the embeddings V·d
(twice unless tied), learned positions C_p·d and the final norm. The published totals are the model
cards' (or papers'), held within their rounding.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mlsysym
from generated import Scenarios
from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError
from symbolic.runtime.model_config import FAMILIES, config_fields
from symbolic.runtime.search import search

DATA = Path(__file__).parents[1] / "data"


def load(name: str, **overrides):
    return mlsysym.workload_from_config(DATA / f"{name}.json", **overrides)


HAND = {
    # GPT-2: 50257·768 + 1024·768 + 12·(4·768² + 4·768 [biases] + 2·768·3072 + 3072 + 768 + 2·2·768) + 2·768
    #      = 38,597,376 + 786,432 + 12·(2,362,368 + 4,722,432 + 3,072) + 1,536
    "gpt2": 124_439_808,
    # Pythia-160m (GPT-NeoX, untied): 2·50304·768 + 12·(2,362,368 + 4,722,432 + 3,072) + 1,536
    #      = 77,266,944 + 85,054,464 + 1,536
    "pythia-160m": 162_322_944,
    # OPT-125m (tied, 2048 + 2 learned positions): 50272·768 + 2050·768 + 12·7,087,872 + 1,536
    #      = 38,608,896 + 1,574,400 + 85,054,464 + 1,536
    "opt-125m": 125_239_296,
    # Falcon-7B (multi-query, d_h = 4544/71 = 64, one LayerNorm per parallel block, no biases, tied):
    # 65024·4544 + 32·(2·4544² + 2·4544·64 + 2·4544·18176 + 2·4544) + 2·4544
    #      = 295,469,056 + 32·(41,295,872 + 581,632 + 165,183,488 + 9,088) + 9,088
    "falcon-7b": 6_921_720_704,
    # Llama-1-7B: 2·32000·4096 + 32·(4·4096² + 3·4096·11008 + 2·4096) + 4096
    #      = 262,144,000 + 32·(67,108,864 + 135,266,304 + 8,192) + 4,096
    "llama-7b": 6_738_415_616,
    # Llama-2-70B: 2·32000·8192 + 80·(2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192) + 8192
    "llama-2-70b": 524_288_000 + 80 * (150_994_944 + 704_643_072 + 16_384) + 8_192,
    # Llama-3-8B: 2·128256·4096 + 32·(2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096) + 4096
    "llama-3-8b": 1_050_673_152 + 32 * (41_943_040 + 176_160_768 + 8_192) + 4_096,
    # Llama-3.1-70B: 2·128256·8192 + 80·(150,994,944 + 704,643,072 + 16,384) + 8192
    "llama-3.1-70b": 2_101_346_304 + 80 * (150_994_944 + 704_643_072 + 16_384) + 8_192,
    # Mistral-7B: 2·32000·4096 + 32·(41,943,040 + 3·4096·14336 + 8,192) + 4096
    #      = 262,144,000 + 32·(41,943,040 + 176,160,768 + 8,192) + 4,096
    "mistral-7b-v0.1": 7_241_732_096,
    # Mixtral-8x7B: 262,144,000 + 32·(41,943,040 + 8·176,160,768 + 8·4096 [router] + 8,192) + 4,096
    "mixtral-8x7b": 46_702_792_704,
    # Qwen2.5-7B (d_h 128, q/k/v biases): 2·152064·3584
    #      + 28·(2·3584² + 2·3584·512 + (3584 + 2·512) + 3·3584·18944 + 2·3584) + 3584
    #      = 1,089,994,752 + 28·(25,690,112 + 3,670,016 + 4,608 + 203,685,888 + 7,168) + 3,584
    "qwen2.5-7b": 7_615_616_512,
    # Qwen2.5-0.5B (tied, d_h 64): 151936·896 + 24·(2·896² + 2·896·128 + (896 + 256) + 3·896·4864 + 2·896) + 896
    #      = 136,134,656 + 24·(1,605,632 + 229,376 + 1,152 + 13,074,432 + 1,792) + 896
    "qwen2.5-0.5b": 494_032_768,
    # Qwen3-8B (d_h 128, q and k norms of 128): 2·151936·4096
    #      + 36·(2·4096² + 2·4096·1024 + 2·128 + 3·4096·12288 + 2·4096) + 4096
    #      = 1,244,659,712 + 36·(41,943,040 + 256 + 150,994,944 + 8,192) + 4,096
    "qwen3-8b": 8_190_735_360,
    # Qwen1.5-MoE-A2.7B: 2·151936·2048 + 24·(4·2048² + 3·2048 [q/k/v biases] + 60·3·2048·1408
    #      + 3·2048·5632 [shared] + 2048·(60 + 1) [router, shared gate] + 2·2048) + 2048
    #      = 622,329,856 + 24·(16,783,360 + 519,045,120 + 34,603,008 + 124,928 + 4,096) + 2,048
    "qwen1.5-moe-a2.7b": 14_315_784_192,
    # Qwen3-30B-A3B: 2·151936·2048 + 48·(2·2048·4096 + 2·2048·512 + 2·128 + 128·3·2048·768 + 2048·128
    #      + 2·2048) + 2048 = 622,329,856 + 48·(18,874,368 + 256 + 603,979,776 + 262,144 + 4,096) + 2,048
    "qwen3-30b-a3b": 30_532_122_624,
    # Gemma-7B (tied, d_h 256 ≠ 3072/16): 256000·3072 + 28·(64·256·3072 + 3·3072·24576 + 2·3072) + 3072
    #      = 786,432,000 + 28·(50,331,648 + 226,492,416 + 6,144) + 3,072
    "gemma-7b": 8_537_680_896,
    # Gemma-2-9B (tied, four norms a block): 256000·3584
    #      + 42·(2·3584·4096 + 2·3584·2048 + 3·3584·14336 + 4·3584) + 3584
    #      = 917,504,000 + 42·(29,360,128 + 14,680,064 + 154,140,672 + 14,336) + 3,584
    "gemma-2-9b": 9_241_705_984,
    # Phi-3-mini: 2·32064·3072 + 32·(4·3072² + 3·3072·8192 + 2·3072) + 3072
    #      = 197,001,216 + 32·(37,748,736 + 75,497,472 + 6,144) + 3,072
    "phi-3-mini-4k": 3_821_079_552,
    # DeepSeek-V2, latent attention per block: 5120·1536 + 1536 + 1536·128·192 + 5120·576 + 512
    #      + 512·128·256 + 128·128·5120 = 149,227,520; dense MLP 3·5120·12288 = 188,743,680; an expert
    #      3·5120·1536 = 23,592,960; router 160·5120 = 819,200; norms 2·5120.
    # 2·102400·5120 + 1·(149,227,520 + 188,743,680 + 10,240)
    #      + 59·(149,227,520 + 162·23,592,960 + 819,200 + 10,240) + 5120
    "deepseek-v2": 1_048_576_000 + 337_981_440 + 59 * 3_972_116_480 + 5_120,
    # DeepSeek-V2-Lite (queries projected directly, q_lora_rank null): 2048·16·192 + 2048·576 + 512
    #      + 512·16·256 + 16·128·2048 = 13,763,072 a block; dense 3·2048·10944 = 67,239,936; expert
    #      3·2048·1408 = 8,650,752; router 64·2048.
    # 2·102400·2048 + (13,763,072 + 67,239,936 + 4,096) + 26·(13,763,072 + 66·8,650,752 + 131,072 + 4,096) + 2048
    "deepseek-v2-lite": 419_430_400 + 81_007_104 + 26 * 584_847_872 + 2_048,
    # DeepSeek-V3, latent attention per block: 7168·1536 + 1536 + 1536·128·192 + 7168·576 + 512
    #      + 512·128·256 + 128·128·7168 = 187,107,328; dense MLP 3·7168·18432 = 396,361,728; an expert
    #      3·7168·2048 = 44,040,192; router 256·7168 + 256 (a correction bias per expert) = 1,835,264.
    # 2·129280·7168 + 3·(187,107,328 + 396,361,728 + 14,336)
    #      + 58·(187,107,328 + 257·44,040,192 + 1,835,264 + 14,336) + 7168
    "deepseek-v3": 1_853_358_080 + 3 * 583_483_392 + 58 * 11_507_286_272 + 7_168,
}

ACTIVE = {
    # Mixtral: 262,144,000 + 32·(41,943,040 + 2·176,160,768 + 32,768 + 8,192) + 4,096
    "mixtral-8x7b": 12_879_925_248,
    # Qwen1.5-MoE: 622,329,856 + 24·(16,783,360 + 4·8,650,752 + 34,603,008 + 124,928 + 4,096) + 2,048
    "qwen1.5-moe-a2.7b": 2_689_173_504,
    # Qwen3-30B-A3B: 622,329,856 + 48·(18,874,368 + 256 + 8·4,718,592 + 262,144 + 4,096) + 2,048
    "qwen3-30b-a3b": 3_353_032_704,
    # DeepSeek-V2: 1,048,576,000 + 337,981,440 + 59·(149,227,520 + 8·23,592,960 + 819,200 + 10,240) + 5,120
    "deepseek-v2": 1_048_576_000 + 337_981_440 + 59 * 338_800_640 + 5_120,
    # DeepSeek-V2-Lite: 419,430,400 + 81,007,104 + 26·(13,763,072 + 8·8,650,752 + 131,072 + 4,096) + 2,048 (its
    # card's "2.4B" leaves out an embedding table: 2,661,150,208 − 209,715,200 = 2.45e9)
    "deepseek-v2-lite": 419_430_400 + 81_007_104 + 26 * 83_104_256 + 2_048,
    # DeepSeek-V3: 1,853,358,080 + 1,750,450,176 + 58·(187,107,328 + 9·44,040,192 + 1,835,264 + 14,336) + 7,168
    "deepseek-v3": 1_853_358_080 + 1_750_450_176 + 58 * 585_318_656 + 7_168,
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_every_family_counts_its_parameters_as_by_hand(name):
    workload = load(name)
    assert workload.parameters.magnitude == workload.architecture_parameters.magnitude == HAND[name]
    assert workload.parameters_per_token.magnitude == ACTIVE.get(name, HAND[name])


def test_every_family_has_a_config_here():
    families = {json.loads(path.read_text())["model_type"] for path in DATA.glob("*.json")}
    assert families == set(FAMILIES)


# (config, published count, unit of its last digit): model cards and papers
PUBLISHED = [
    ("gpt2", 124e6, 1e6),  # "124M"
    ("pythia-160m", 162_322_944, 1),  # the Pythia table prints the exact total
    ("opt-125m", 125e6, 1e6),
    ("falcon-7b", 7e9, 1e9),
    ("llama-7b", 6.7e9, 1e8),  # LLaMA paper
    ("llama-3-8b", 8.03e9, 1e7),
    ("llama-3.1-70b", 70.6e9, 1e8),
    ("mistral-7b-v0.1", 7.24e9, 1e7),
    ("mixtral-8x7b", 46.7e9, 1e8),
    ("qwen2.5-7b", 7.62e9, 1e7),
    ("qwen2.5-0.5b", 0.49e9, 1e7),
    ("qwen3-8b", 8.2e9, 1e8),
    ("qwen1.5-moe-a2.7b", 14.3e9, 1e8),
    ("qwen3-30b-a3b", 30.5e9, 1e8),
    ("gemma-7b", 8.54e9, 1e7),
    ("gemma-2-9b", 9.24e9, 1e7),
    ("phi-3-mini-4k", 3.8e9, 1e8),
    ("deepseek-v2", 236e9, 1e9),
    ("deepseek-v2-lite", 15.7e9, 1e8),
    ("deepseek-v3", 671e9, 1e9),
]


@pytest.mark.parametrize(("name", "published", "digit"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_totals_within_their_rounding(name, published, digit):
    assert abs(load(name).parameters.magnitude - published) <= digit / 2


def test_published_active_counts():
    # rounded: Mixtral 12.9e9 (12,879,925,248), Qwen1.5-MoE 2.7e9 (2,689,173,504), DeepSeek-V2 21e9 (21.38e9)
    assert round(load("mixtral-8x7b").parameters_per_token.magnitude / 1e8) == 129
    assert round(load("qwen1.5-moe-a2.7b").parameters_per_token.magnitude / 1e8) == 27
    assert round(load("deepseek-v2").parameters_per_token.magnitude / 1e9) == 21
    # truncated, not rounded, in the cards: Qwen3-30B-A3B "3.3B" (3,353,032,704), DeepSeek-V3 "37B" (37.552e9:
    # both embedding tables counted as active, as Mixtral's 12.9e9 counts them)
    assert int(load("qwen3-30b-a3b").parameters_per_token.magnitude / 1e8) == 33
    assert int(load("deepseek-v3").parameters_per_token.magnitude / 1e9) == 37


KV_BYTES = [
    ("llama-7b", 2 * 32 * 32 * 128 * 2),  # multi-head: K and V of 32 heads of 128, 32 layers, 2 bytes = 524,288
    ("llama-3-8b", 2 * 32 * 8 * 128 * 2),  # grouped-query, 8 KV heads: 131,072
    ("falcon-7b", 2 * 32 * 1 * 64 * 2),  # multi-query, one KV head of 64: 8,192
    ("gemma-7b", 2 * 28 * 16 * 256 * 2),  # head width 256, not 3072/16 = 192: 458,752
    ("deepseek-v3", 61 * (512 + 64) * 2),  # latent 512 plus rotary key 64 per layer: 70,272
    ("deepseek-v2-lite", 27 * (512 + 64) * 2),  # 31,104
]


@pytest.mark.parametrize(("name", "expected"), KV_BYTES, ids=[k[0] for k in KV_BYTES])
def test_kv_bytes_per_token_by_attention_kind(name, expected):
    assert load(name).kv_cache_bytes_per_token("bf16").magnitude == expected


def test_sliding_window_layers_cache_at_most_their_window():
    # Mistral-7B v0.1: every block slides at 4096; 8192 tokens cache 4096 positions a block:
    # 2·8·128·2 bytes a position a block = 4,096; 32 blocks · 4096 positions · 4,096 = 536,870,912
    mistral = load("mistral-7b-v0.1")
    assert (mistral.sliding_window, mistral.sliding_layers) == (4096, 32)
    assert mistral.kv_cache_bytes(8192, "bf16").magnitude == 32 * 4096 * 4096 == 536_870_912
    assert mistral.kv_cache_bytes(1000, "bf16").magnitude == 32 * 1000 * 4096  # inside the window
    # at the window and one token past it: 32·4096·4,096 both times (every block slides, none keeps more)
    assert mistral.kv_cache_bytes(4096, "bf16").magnitude == mistral.kv_cache_bytes(4097, "bf16").magnitude == 536_870_912
    # Gemma-2-9B: 21 of 42 blocks slide at 4096; a position a block 2·8·256·2 = 8,192 bytes;
    # at 8192 tokens 21·8192 + 21·4096 = 258,048 positions, 2,113,929,216 bytes
    gemma = load("gemma-2-9b")
    assert gemma.sliding_layers == 21
    # one token past the window only the 21 global blocks grow: 42·4096 + 21·1 = 172,053 positions · 8,192
    assert gemma.kv_cache_bytes(4097, "bf16").magnitude == 172_053 * 8192 == 1_409_458_176
    assert gemma.kv_cache_bytes(8192, "bf16").magnitude == 8192 * 258_048 == 2_113_929_216
    # without a window it is the plain cache: Llama-3-8B, 131,072 bytes a token
    llama = load("llama-3-8b")
    assert llama.kv_cache_bytes(8192, "bf16") == llama.get_kv_cache_size(8192, 1, "bf16")
    assert llama.kv_cache_bytes(8192, "bf16").magnitude == 8192 * 131_072
    # Qwen2.5 states a window it does not use (use_sliding_window false): no sliding blocks
    assert load("qwen2.5-7b").sliding_window is None


def test_forward_flops_at_a_context_include_attention():
    # Llama-3-8B at 4096 context: 2·8,030,261,248 + 2·32·32·(128 + 128)·4096 = 16,060,522,496 + 2,147,483,648
    assert load("llama-3-8b").forward_flops_at_context(4096).magnitude == 16_060_522_496 + 2_147_483_648
    # DeepSeek-V3 (latent attention, query/key 128 + 64, value 128) at 1000: 2·37,552,297,472 + 2·61·128·320·1000
    deepseek = load("deepseek-v3")
    assert deepseek.forward_flops_at_context(1000).magnitude == 2 * ACTIVE["deepseek-v3"] + 2 * 61 * 128 * 320 * 1000
    assert ACTIVE["deepseek-v3"] == 37_552_297_472
    # Mistral-7B v0.1 at 8192: attention over 4096 positions in each of its 32 sliding blocks:
    # 2·7,241,732,096 + 2·32·(128 + 128)·(32·4096) = 14,483,464,192 + 2,147,483,648
    assert load("mistral-7b-v0.1").forward_flops_at_context(8192).magnitude == 14_483_464_192 + 2_147_483_648
    # a mixture of experts is priced at its active parameters, its weights at all of them
    assert deepseek.size_in_bytes("fp8").magnitude == HAND["deepseek-v3"]


def test_a_mapping_and_overrides():
    config = json.loads((DATA / "llama-3-8b.json").read_text())
    record = mlsysym.workload_from_config(config, name="Llama-3-8B", context_length=4096)
    assert (record.name, record.context_length, record.architecture) == ("Llama-3-8B", 4096, "llama")
    assert record == mlsysym.workload_from_config(DATA / "llama-3-8b.json", name="Llama-3-8B", context_length=4096)
    assert load("gpt2").name == "gpt2" and load("phi-3-mini-4k").name == "Phi-3-mini-4k-instruct"


def _llama(**changes):
    return {**json.loads((DATA / "llama-3-8b.json").read_text()), **changes}


REFUSED = [
    (_llama(model_type="mamba"), ScenarioInputError, "key 'model_type' got 'mamba'; supported: deepseek_v2, "
                                                     "deepseek_v3, falcon, gemma, gemma2, gpt2, gpt_neox"),
    ({k: v for k, v in _llama().items() if k != "intermediate_size"}, MissingInputError,
     r"config \(llama\): key 'intermediate_size' is missing; a llama config needs it \(keys read: num_hidden_layers"),
    (_llama(hidden_size="4096"), InputTypeError, "key 'hidden_size' got '4096'; expected an integer ≥ 1"),
    (_llama(num_key_value_heads=5), ScenarioInputError, "heads must be a multiple of kv_heads"),
    (_llama(mlp_bias=True), ScenarioInputError, "key 'mlp_bias' got True, which the workload record cannot count"),
    ({"model_type": "gpt2", "n_embd": 768, "hidden_size": 1024, "n_layer": 12, "n_head": 12, "n_positions": 1024,
      "vocab_size": 50257}, ScenarioInputError, "n_embd=768, hidden_size=1024 contradict each other"),
    ({**json.loads((DATA / "opt-125m.json").read_text()), "word_embed_proj_dim": 512}, ScenarioInputError,
     "word_embed_proj_dim' got 512"),
    ({**json.loads((DATA / "gpt2.json").read_text()), "add_cross_attention": True}, ScenarioInputError,
     "cross-attention blocks have no field"),
]


@pytest.mark.parametrize(("config", "error", "match"), REFUSED, ids=[m[:30] for _, _, m in REFUSED])
def test_a_config_the_record_cannot_count_is_refused_naming_the_key(config, error, match):
    with pytest.raises(error, match=match):
        mlsysym.workload_from_config(config)


def test_what_is_read_is_listed():
    # a key that cannot change a count is ignored (dropouts, rope, token ids); the record's type says sparse
    kind, fields = config_fields(_llama(rope_theta=1.0, attention_dropout=0.5, bos_token_id=7))
    assert kind == "TransformerWorkload" and fields == config_fields(_llama())[1]
    assert config_fields(DATA / "deepseek-v3.json")[0] == "SparseTransformerWorkload"
    assert "sliding_window" in FAMILIES["mistral"][1]


def test_every_scenario_taking_the_workload_reads_the_architecture():
    llama, mixtral = load("llama-3.1-70b"), load("mixtral-8x7b")
    decode = Scenarios.Llama3_70B_DecodeH100.variant(workload=llama).result
    assert decode.weight_bytes.magnitude == 2 * HAND["llama-3.1-70b"]  # FP16 weights
    assert decode.flops_per_step.magnitude == 2 * HAND["llama-3.1-70b"]
    sparse = Scenarios.Llama3_70B_DecodeH100.variant(workload=mixtral).result
    assert sparse.weight_bytes.magnitude == 2 * HAND["mixtral-8x7b"]  # memory at every expert
    assert sparse.flops_per_step.magnitude == 2 * ACTIVE["mixtral-8x7b"]  # compute at the active ones


def test_a_config_workload_is_a_search_axis_value():
    found = search(Scenarios.Llama3_70B_DecodeH100, {"workload": [load("llama-3-8b"), load("mistral-7b-v0.1")]},
                   minimize="result.memory_time", top=1)
    assert found.best.inputs["workload"].name == "mistral-7b-v0.1"  # 7.24e9 parameters streamed, not 8.03e9


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "symbolic.cli", *args], check=False, capture_output=True,
                          text=True)


def test_the_cli_reads_a_config_file_given_with_an_at():
    done = _cli("--json", "eval", "DecodeScenario", "--from", "Llama3_70B_DecodeH100",
                "--set", f"workload=@{DATA / 'llama-3.1-70b.json'}")
    assert done.returncode == 0, done.stderr
    # 2 bytes · 70,553,706,496 parameters
    assert json.loads(done.stdout)["outputs"]["result.weight_bytes"]["value"] == 2 * HAND["llama-3.1-70b"]
    missing = _cli("eval", "DecodeScenario", "--from", "Llama3_70B_DecodeH100", "--set", "workload=@no/such.json")
    assert missing.returncode == 2 and "--set workload: no/such.json: cannot read the config" in missing.stderr
    # a kind without a loader says which kinds are read from files
    dataset = _cli("eval", "MnistDenseNetwork", "--set", f"dataset=@{DATA / 'gpt2.json'}")
    assert dataset.returncode == 2 and "a dataset input is not read from files (files are read for: node" in dataset.stderr


def test_the_docstring_example_runs():
    import doctest

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(mlsysym.workload_from_config, "workload_from_config", globs={"workload_from_config":
                                                                                         mlsysym.workload_from_config}):
        runner.run(test)
    assert runner.tries > 0 and runner.failures == 0


def test_a_search_varies_config_files_on_the_command_line():
    done = _cli("--json", "search", "Llama3_70B_DecodeH100", "--vary",
                f"workload=@{DATA / 'llama-3-8b.json'},@{DATA / 'mistral-7b-v0.1.json'},Llama3_70B",
                "--minimize", "result.memory_time", "--top", "1")
    assert done.returncode == 0, done.stderr
    assert "mistral-7b-v0.1" in done.stdout  # the fewest weight bytes of the three


def test_a_kind_gets_one_file_loader():
    from symbolic.cli import files

    with pytest.raises(ValueError, match="a loader of workload files is registered already"):
        files.register_loader("workload", lambda path: path, "something else")
    files.register_loader("workload", files.LOADERS["workload"][0], "a Hugging Face config.json")  # the same: kept


def test_falcon_new_decoder_architecture():
    # Falcon-40B's layout: 8 KV heads of 64, two LayerNorms a block, tied embeddings:
    # 65024·8192 + 60·(2·8192² + 2·8192·512 + 2·8192·32768 + 2·2·8192) + 2·8192
    #      = 532,676,608 + 60·(134,217,728 + 8,388,608 + 536,870,912 + 32,768) + 16,384
    falcon = mlsysym.workload_from_config({
        "model_type": "falcon", "new_decoder_architecture": True, "num_kv_heads": 8, "hidden_size": 8192,
        "num_attention_heads": 128, "num_hidden_layers": 60, "vocab_size": 65024, "parallel_attn": True,
        "bias": False, "multi_query": True})
    assert falcon.parameters.magnitude == 532_676_608 + 60 * 679_510_016 + 16_384 == 41_303_293_952
    assert falcon.kv_cache_bytes_per_token("bf16").magnitude == 2 * 60 * 8 * 64 * 2


def test_which_blocks_slide():
    # Qwen2 with use_sliding_window: the blocks from max_window_layers on slide (28 − 20 = 8)
    qwen = json.loads((DATA / "qwen2.5-7b.json").read_text())
    record = mlsysym.workload_from_config({**qwen, "use_sliding_window": True, "max_window_layers": 20})
    assert (record.sliding_window, record.sliding_layers) == (131072, 8)
    # a config listing its blocks' kinds says which slide
    gemma = json.loads((DATA / "gemma-2-9b.json").read_text())
    kinds = ["sliding_attention", "full_attention", "full_attention"] * 14
    assert mlsysym.workload_from_config({**gemma, "layer_types": kinds}).sliding_layers == 14
    with pytest.raises(ScenarioInputError, match="expected a list of 42 block types"):
        mlsysym.workload_from_config({**gemma, "layer_types": kinds[:3]})


LAYOUT = {"name": "probe", "layers": 4, "hidden_dim": 256, "heads": 4, "ffn_dim": 512, "mlp": "gated",
          "norm": "rmsnorm", "biases": "none", "position_embeddings": 0, "lm_head": "separate", "vocab_size": 1000}
INCOHERENT = [
    ({"sliding_window": 128}, "set both .*got sliding_window=128, sliding_layers=unset"),
    ({"sliding_window": 128, "sliding_layers": 5}, "sliding_layers must not exceed layers"),
    ({"qk_nope_head_dim": 64}, "qk_nope_head_dim and v_head_dim describe multi-head latent attention"),
    ({"q_lora_rank": 64, "kv_lora_rank": 64, "qk_rope_head_dim": 16},
     "needs the widths of a head"),  # latent attention with a layout, but no head widths
    ({"parameters": None, "ffn_dim": None, "mlp": None, "norm": None, "biases": None, "position_embeddings": None,
      "lm_head": None}, "required field 'parameters' was not given, nor the fields it is counted from"),
]
SPARSE_INCOHERENT = [
    ({"dense_layers": 4}, "dense_layers must be fewer than layers"),
    ({"shared_expert_ffn_dim": 64}, "shared_expert_ffn_dim is the width of the shared experts: set shared_experts"),
    ({"experts": None, "active_experts_per_token": None, "expert_ffn_dim": 64}, "set experts too"),
]


@pytest.mark.parametrize(("change", "match"), INCOHERENT, ids=[m[:24] for _, m in INCOHERENT])
def test_an_incoherent_layout_is_refused(change, match):
    fields = {k: v for k, v in {**LAYOUT, **change}.items() if v is not None}
    with pytest.raises(ScenarioInputError, match=match):
        mlsysym.TransformerWorkload(**fields)


@pytest.mark.parametrize(("change", "match"), SPARSE_INCOHERENT, ids=[m[:24] for _, m in SPARSE_INCOHERENT])
def test_an_incoherent_expert_layout_is_refused(change, match):
    fields = {k: v for k, v in {**LAYOUT, "experts": 8, "active_experts_per_token": 2, **change}.items()
              if v is not None}
    with pytest.raises(ScenarioInputError, match=match):
        mlsysym.SparseTransformerWorkload(**fields)


def test_the_catalog_refuses_an_incoherent_layout_too():
    from symbolic.catalog import CatalogError
    from symbolic.catalog.load import validate
    from symbolic.catalog.workloads import TransformerWorkload

    table = {"type": "TransformerWorkload", **LAYOUT, "parameters": "1e6 param", "qk_nope_head_dim": 64}
    with pytest.raises(CatalogError, match="entry Language.Probe: qk_nope_head_dim and v_head_dim describe"):
        validate(TransformerWorkload, table, "workloads.toml: entry Language.Probe")
    # a small layout counted by hand: 2·1000·256 + 4·(4·256² + 3·256·512 + 2·256) + 256
    record = mlsysym.TransformerWorkload(**LAYOUT)
    assert record.parameters.magnitude == 512_000 + 4 * (262_144 + 393_216 + 512) + 256 == 3_135_744
