"""Workload records: every field combination is coherent or refused naming the fields, an unset field
reads as the value the formulas use, and the architecture's parameter count beside the stated one.

The architecture counts are worked out by hand below from the published configs (the catalog's
architecture fields); the stated counts are the reference library's nominal ones.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from generated import Models, Scenarios, SparseTransformerWorkload, TransformerWorkload
from symbolic.catalog import CatalogError
from symbolic.catalog.load import validate
from symbolic.catalog.workloads import TransformerWorkload as DeclaredTransformer
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.parameter_counts import parameter_counts

BASE = {"name": "probe", "parameters": 7e9, "layers": 32, "hidden_dim": 4096, "heads": 32}
LLAMA_LAYOUT = {"ffn_dim": 11008, "mlp": "gated", "norm": "rmsnorm", "biases": "none", "position_embeddings": 0,
                "lm_head": "separate", "vocab_size": 32000}

REFUSED = [
    ({"kv_lora_rank": 512}, "kv_lora_rank and qk_rope_head_dim .*got kv_lora_rank=512, qk_rope_head_dim=unset"),
    ({"qk_rope_head_dim": 64}, "kv_lora_rank=unset, qk_rope_head_dim=64"),
    ({"kv_lora_rank": 0, "qk_rope_head_dim": 64}, "field 'kv_lora_rank' got 0; expected an integer ≥ 1"),
    ({"heads": 8192}, "hidden_dim must be a multiple of heads when head_dim is unset .*got heads=8192, hidden_dim=4096"),
    ({"hidden_dim": 4097}, "hidden_dim must be a multiple of heads"),
    ({"kv_heads": 5}, "heads must be a multiple of kv_heads .*got heads=32, kv_heads=5"),
    ({"kv_heads": 64}, "kv_heads must not exceed heads"),
    ({"ffn_dim": 11008}, "set ffn_dim, mlp, norm, biases, position_embeddings and lm_head, or none"),
    ({**LLAMA_LAYOUT, "kv_lora_rank": 512, "qk_rope_head_dim": 64}, "needs the widths of a head: set qk_nope_head_dim and v_head_dim"),
    ({"mlp": "swiglu"}, "field 'mlp' got 'swiglu'; expected one of 'plain', 'gated'"),
]


@pytest.mark.parametrize(("change", "match"), REFUSED, ids=[",".join(c) for c, _ in REFUSED])
def test_an_incoherent_record_is_refused_naming_the_fields(change, match):
    with pytest.raises(ScenarioInputError, match=match):
        TransformerWorkload(**{**BASE, **change})


CATALOG_REFUSED = [
    ({"kv_lora_rank": 512}, "describe multi-head latent attention together.*got kv_lora_rank=set, qk_rope_head_dim=unset"),
    ({"heads": 8192}, "hidden_dim must be a multiple of heads when head_dim is unset"),
    ({"kv_heads": 5}, "heads must be a multiple of kv_heads"),
    ({"ffn_dim": 11008}, "the architecture fields describe one layout together.*got ffn_dim=set, mlp=unset"),
    ({**LLAMA_LAYOUT, "kv_lora_rank": 512, "qk_rope_head_dim": 64}, "needs the widths of a head: set qk_nope_head_dim and v_head_dim"),
]


@pytest.mark.parametrize(("change", "match"), CATALOG_REFUSED, ids=[",".join(c) for c, _ in CATALOG_REFUSED])
def test_the_catalog_refuses_the_same_entries(change, match):
    table = {"type": "TransformerWorkload", **{k: (f"{v:g} param" if k == "parameters" else v)
                                               for k, v in {**BASE, **change}.items()}}
    with pytest.raises(CatalogError, match="workloads.toml: entry Language.Probe: .*" + match):
        validate(DeclaredTransformer, table, "workloads.toml: entry Language.Probe")


def test_a_head_width_of_its_own_may_exceed_the_model_width():
    # Gemma-7B: 16 heads of 256 over a width of 3072 (a·d_h = 4096 > d): coherent, as it states head_dim
    gemma = TransformerWorkload(name="g", parameters=8.5e9, layers=28, hidden_dim=3072, heads=16, head_dim=256)
    assert gemma.head_dim == gemma.head_width == 256
    assert gemma.kv_values_per_token == 2 * 28 * 16 * 256


def test_an_unset_field_reads_as_the_value_the_formulas_use():
    llama = Models.Language.Llama2_7B
    assert llama.head_dim == llama.head_width == 4096 // 32 == 128
    assert llama.kv_heads == 32  # unset: every head keeps keys and values
    assert llama.kv_values_per_token == 2 * 32 * 32 * 128
    deepseek = Models.Language.DeepSeek_V3
    assert deepseek.kv_values_per_token == 61 * (512 + 64)  # latent plus rotary key, both set
    assert Models.Language.GPT3.kv_lora_rank is None  # no fallback: not latent attention
    only_heads = TransformerWorkload(name="h", parameters=1e9, layers=2, heads=8)
    assert only_heads.head_dim is None and only_heads.kv_heads == 8  # ⌊d/a⌋ needs d


def test_a_record_that_caches_nothing_cannot_be_built():
    # the old silent cases: a 0-wide latent, or more heads than width (head width 0, a 0 GB cache)
    for change in ({"kv_lora_rank": 0}, {"heads": 8192}):
        with pytest.raises(ScenarioInputError):
            TransformerWorkload(**{**BASE, **change})
    with pytest.raises(ScenarioInputError, match="hidden_dim must be a multiple of heads"):
        Scenarios.Llama3_70B_ServingH100.variant(workload=TransformerWorkload(**{**BASE, "heads": 8192}))


# Hand counts from the configs: per block attention (2a + 2a_kv)·d_h·d (+ biases (a + 2a_kv)·d_h + d),
# MLP n·d·f (+ biases (n − 1)·f + d), two norms; embeddings V·d (twice unless tied), positions C_p·d, final norm.
ARCHITECTURE = {
    # GPT-2 XL: 50257·1600 + 1024·1600 + 48·(4·1600² + 4·1600 + 2·1600·6400 + 6400 + 1600 + 4·1600) + 2·1600
    "GPT2": 80_411_200 + 1_638_400 + 48 * (10_246_400 + 20_488_000 + 6_400) + 3_200,  # 1,557,611,200
    # GPT-2 small: 50257·768 + 1024·768 + 12·(2,362,368 + 4,722,432 + 3,072) + 1,536
    "GPT2_Small": 38_597_376 + 786_432 + 12 * (2_362_368 + 4_722_432 + 3_072) + 1_536,  # 124,439,808
    # OPT-13B: 50272·5120 + 2050·5120 + 40·(4·5120² + 4·5120 + 2·5120·20480 + 20480 + 5120 + 4·5120) + 2·5120
    "OPT_13B": 257_392_640 + 10_496_000 + 40 * (104_878_080 + 209_740_800 + 20_480) + 10_240,  # 12,853,473,280
    # Llama-2-7B: 2·32000·4096 + 32·(4·4096² + 3·4096·11008 + 2·4096) + 4096
    "Llama2_7B": 262_144_000 + 32 * (67_108_864 + 135_266_304 + 8_192) + 4_096,  # 6,738,415,616
    # Llama-2-13B: 2·32000·5120 + 40·(4·5120² + 3·5120·13824 + 2·5120) + 5120
    "Llama2_13B": 327_680_000 + 40 * (104_857_600 + 212_336_640 + 10_240) + 5_120,  # 13,015,864,320
    # Llama-2-70B: 2·32000·8192 + 80·(2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192) + 8192
    "Llama2_70B": 524_288_000 + 80 * (150_994_944 + 704_643_072 + 16_384) + 8_192,  # 68,976,648,192
    # Llama-3.1-8B: 2·128256·4096 + 32·(2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096) + 4096
    "Llama3_8B": 1_050_673_152 + 32 * (41_943_040 + 176_160_768 + 8_192) + 4_096,  # 8,030,261,248
    # Llama-3.1-70B: 2·128256·8192 + 80·(150,994,944 + 704,643,072 + 16,384) + 8192
    "Llama3_70B": 2_101_346_304 + 80 * (150_994_944 + 704_643_072 + 16_384) + 8_192,  # 70,553,706,496
    # Llama-3.1-405B: 2·128256·16384 + 126·(2·16384² + 2·16384·1024 + 3·16384·53248 + 2·16384) + 16384
    "Llama3_405B": 4_202_692_608 + 126 * (570_425_344 + 2_617_245_696 + 32_768) + 16_384,  # 405,853,388,800
    # Mixtral-8x7B: 2·32000·4096 + 32·(41,943,040 + 8·3·4096·14336 + 4096·8 + 2·4096) + 4096
    "Mixtral_8x7B": 262_144_000 + 32 * (41_943_040 + 1_409_286_144 + 32_768 + 8_192) + 4_096,  # 46,702,792,704
}


@pytest.mark.parametrize("key", list(ARCHITECTURE))
def test_the_architecture_count_matches_the_hand_count(key):
    record = getattr(Models.Language, key)
    assert record.architecture_parameters.magnitude == ARCHITECTURE[key]


def test_published_counts_within_their_rounding():
    # model cards: GPT-2 XL 1.56e9 (the catalog's nominal 1.5e9), Llama-2-7B 6.74e9 (nominal 7e9),
    # Llama-3.1-8B 8.03e9, Mixtral 46.7e9 total and 12.9e9 active
    counts = {k: getattr(Models.Language, k) for k in ("GPT2", "Llama2_7B", "Llama3_8B", "Mixtral_8x7B")}
    assert round(counts["GPT2"].architecture_parameters.magnitude / 1e7) == 156
    assert round(counts["Llama2_7B"].architecture_parameters.magnitude / 1e7) == 674
    assert round(counts["Llama3_8B"].architecture_parameters.magnitude / 1e7) == 803
    mixtral = counts["Mixtral_8x7B"]
    assert round(mixtral.architecture_parameters.magnitude / 1e8) == 467
    # active: the same with 2 of 8 experts: 262,144,000 + 32·(41,943,040 + 2·176,160,768 + 32,768 + 8,192) + 4096
    assert mixtral.architecture_active_parameters.magnitude == 262_144_000 + 32 * 394_305_536 + 4_096 == 12_879_925_248
    dense = Models.Language.Llama2_7B
    assert dense.architecture_active_parameters == dense.architecture_parameters


def test_which_count_is_used_is_said():
    note = parameter_counts(Models.Language.Llama2_7B)
    # 7e9 / 6,738,415,616 − 1 = +3.88 %
    assert note == ("7e+09 parameters stated (the count every scenario reads); the architecture gives 6.738e+09 "
                    "(stated +3.9 %)")
    assert "1.29e+10 active per token" in parameter_counts(Models.Language.Mixtral_8x7B)
    assert "1.288e+10 active" in parameter_counts(Models.Language.Mixtral_8x7B)
    assert parameter_counts(Models.Language.DeepSeek_V3).endswith("does not give the layout to count them from")
    assert parameter_counts(Models.Recommendation.DLRM) == ""  # a stated size, no count


def test_show_states_the_count_its_numbers_use():
    done = subprocess.run([sys.executable, "-m", "symbolic.cli", "--json", "show", "Llama2_70B_DecodeH100"],
                          capture_output=True, text=True, check=True)
    counts = json.loads(done.stdout)["parameter_counts"]
    assert counts == {"workload": "Llama-2-70B: 7e+10 parameters stated (the count every scenario reads); the "
                                  "architecture gives 6.898e+10 (stated +1.5 %)"}  # 7e10/68,976,648,192 − 1
    text = subprocess.run([sys.executable, "-m", "symbolic.cli", "show", "Llama2_70B_DecodeH100"],
                          capture_output=True, text=True, check=True).stdout
    assert text.rstrip().endswith("(stated +1.5 %)")


def test_a_sparse_record_needs_its_active_count():
    with pytest.raises(ScenarioInputError, match="required field 'active_parameters'"):
        SparseTransformerWorkload(name="moe", parameters=4.67e10, layers=32)
