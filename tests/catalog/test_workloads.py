"""The workload catalog: every entry and field of catalog.md §A through ``generated``, the derived
quantities against hand calculations, custom workloads, immutability and malformed entries."""

from __future__ import annotations

import copy
import math
import pickle
import re
from functools import reduce

import pytest
from catalog_spec_workloads import LANGUAGE, LANGUAGE_DERIVED, LANGUAGE_EXTRA, OTHER

from generated import Models, Q_, SparseTransformerWorkload, TransformerWorkload, Workload
from symbolic.runtime.errors import InputTypeError, MissingInputError, ScenarioInputError

TIER_SIZES = {"Language": 16, "Vision": 15, "Tiny": 3, "Recommendation": 1, "StateSpace": 2, "GenerativeVision": 1,
              "Embodied": 4}
# Fields whose spec cell is a bare number but which we store as a quantity (documented on the field).
AS_QUANTITY = {"training_gpu_days": "day"}


def _record(path: str):
    _, tier, key = path.split(".")
    return getattr(getattr(Models, tier), key)


def _expected(field: str, cell: str):
    """A spec cell as a value: a quantity with its unit, an int, a float or a string."""
    if field in AS_QUANTITY:
        return Q_(float(cell), AS_QUANTITY[field])
    if field in ("name", "training_hardware_label", "architecture", "type"):
        return cell
    if re.fullmatch(r"-?\d+", cell):
        return int(cell)
    if re.fullmatch(r"-?[\d.]+(e-?\d+)?", cell):
        return float(cell)
    return Q_(cell)


def _same(actual, expected) -> bool:
    """Equal value and equal kind: int vs float magnitudes, units spelled the same."""
    if hasattr(expected, "units"):
        return (hasattr(actual, "units") and actual.units == expected.units and actual.magnitude == expected.magnitude
                and type(actual.magnitude) is type(expected.magnitude))
    return actual == expected and type(actual) is type(expected)


def _cases():
    for path, row in {**LANGUAGE, **OTHER}.items():
        cells = {k: v for k, v in row.items() if k != "other"}
        cells.update(row.get("other", {}))
        cells.update(LANGUAGE_EXTRA.get(path, {}))
        for field, cell in cells.items():
            yield path, field, cell


CASES = list(_cases())


def test_every_tier_holds_its_entries():
    assert {tier: len(getattr(Models, tier)) for tier in Models} == TIER_SIZES
    assert sum(TIER_SIZES.values()) == 42 == len(LANGUAGE) + len(OTHER)


# Reference values the catalog corrects from the model's published config (each stated in workloads.toml).
CORRECTED = {("Models.Language.DeepSeek_V3", "heads"): 128}  # the reference: 56 (7168 / 128)


@pytest.mark.parametrize(("path", "field", "cell"), CASES, ids=[f"{p}.{f}" for p, f, _ in CASES])
def test_every_catalog_value_is_reachable_exactly(path, field, cell):
    record = _record(path)
    if (path, field) in CORRECTED:
        assert getattr(record, field) == CORRECTED[path, field] != _expected(field, cell)
        return
    if field == "type":
        assert type(record).__name__ == cell.removesuffix(" (MoE)")
        return
    declared = {spec.name for spec in type(record)._fields}
    if cell is None:
        if field in type(record)._fallbacks:  # unset reads as what the formulas use (kv_heads: heads)
            assert getattr(record, field) == record.resolved(field)
        elif field == "vocab_size" and record.has("ffn_dim"):  # added with the architecture (not the reference's)
            assert isinstance(getattr(record, field), int)
        elif field in declared:
            assert getattr(record, field) is None
        else:  # the type does not declare it: reading it is an AttributeError, as in the reference
            with pytest.raises(AttributeError, match=f"object has no attribute '{field}'"):
                getattr(record, field)
        return
    assert _same(getattr(record, field), _expected(field, cell)), (path, field, getattr(record, field), cell)


def _product(formula: str) -> int:
    """The spec's hand formula, e.g. ``2·12·12·64·2`` or ``MLA: 61·(512+64)·2``."""
    formula = formula.removeprefix("MLA:").strip()
    factors = re.findall(r"\(\d+\+\d+\)|\d+", formula)
    return reduce(lambda a, b: a * b, (eval(f) for f in factors))  # noqa: S307 (digits, + and parentheses)


@pytest.mark.parametrize("path", list(LANGUAGE_DERIVED))
def test_kv_bytes_per_token_and_weight_bytes_match_the_hand_calculations(path):
    record, row = _record(path), LANGUAGE_DERIVED[path]
    per_token = Q_(row["KV bytes/token, 2-byte values"])
    assert per_token.magnitude == _product(row["KV formula used"])
    for width in ("fp16", "bf16", "FP16", Q_(2, "byte"), Q_(16, "bit"), 2):
        assert record.kv_cache_bytes_per_token(width) == per_token
        assert record.get_kv_cache_size(1, 1, width) == per_token
    assert record.get_kv_cache_size(2048, 4, "fp16") == per_token * 2048 * 4
    assert record.get_kv_cache_size(0, 1) == Q_(0, "byte")
    assert record.size_in_bytes("fp16") == Q_(row["size_in_bytes(fp16)"])
    assert record.size_in_bytes("int8") == Q_(row["size_in_bytes(int8)"])
    assert record.size_in_bytes() == record.size_in_bytes("fp16")  # the reference's default width


def test_latent_attention_and_grouped_query_geometry():
    deepseek, palm, llama = Models.Language.DeepSeek_V3, Models.Language.PaLM_540B, Models.Language.Llama3_70B
    assert deepseek.kv_values_per_token == 61 * (512 + 64)  # the latent path, no factor 2
    assert deepseek.head_width == 7168 // 128 == 56  # used by neither its cache nor its attention:
    assert (deepseek.query_key_width, deepseek.value_width) == (128 + 64, 128)  # MLA's widths are
    assert deepseek.attention_flops_per_position == Q_(2 * 128 * (192 + 128), "flop")  # 81,920 by hand
    assert palm.head_width == 256 and palm.kv_width == 256 and palm.queries_per_kv_head == 48
    assert llama.kv_width == 8 * 128 and llama.queries_per_kv_head == 8
    assert Models.Language.GPT3.kv_width == 96 * 128  # kv_heads unset: every head keeps keys and values


def test_flop_and_parameter_rules():
    gpt3, mixtral = Models.Language.GPT3, Models.Language.Mixtral_8x7B
    assert gpt3.forward_flops_per_token == Q_(2 * 1.75e11, "flop")
    assert gpt3.training_flops_per_token == Q_(6 * 1.75e11, "flop")
    assert gpt3.training_compute_estimate == Q_(6 * 1.75e11 * 3e11, "flop")  # 6PD = 3.15e23, published 3.14e23
    assert gpt3.embedding_parameters == Q_(50257 * 12288, "param")
    assert gpt3.block_parameters_estimate == Q_(12 * 96 * 12288**2, "param")
    assert mixtral.forward_flops_per_token == Q_(2 * 1.29e10, "flop")  # only the routed experts work
    assert mixtral.active_fraction == 1.29e10 / 4.67e10
    assert Models.Vision.ResNet50.flops_per_parameter == Q_(8.2e9 / 2.5557032e7, "flop")
    assert Models.GenerativeVision.StableDiffusion_v1_5.flops_per_image == Q_(50 * 2e10, "flop")
    assert Models.StateSpace.Mamba_2_8B.state_values_per_sequence == 64 * 2560 * 16
    assert Models.Embodied.ACT_ALOHA.action_values_per_chunk == 100 * 14


def test_dlrm_weights_are_the_stated_size_and_widths_are_still_checked():
    dlrm = Models.Recommendation.DLRM
    assert dlrm.size_in_bytes("fp16") == dlrm.size_in_bytes("int4") == Q_(100, "GB")
    with pytest.raises(ScenarioInputError, match="'fp16_dense' is not a storage precision"):
        dlrm.size_in_bytes("fp16_dense")


def test_missing_fields_say_which():
    with pytest.raises(MissingInputError, match="Models.Language.GPT4 has no context_length"):
        Models.Language.GPT4.resolved("context_length")
    with pytest.raises(MissingInputError, match="has no vocab_size"):
        _ = Models.Language.BERT_Large.embedding_parameters
    with pytest.raises(AttributeError, match="'CNNWorkload' object has no attribute 'get_kv_cache_size'"):
        Models.Vision.ResNet50.get_kv_cache_size(1, 1)


@pytest.mark.parametrize(("arguments", "error", "match"), [
    ((-1, 1), ScenarioInputError, "seq_len got -1; expected an integer ≥ 0"),
    ((1, 0), ScenarioInputError, "batch_size got 0; expected an integer ≥ 1"),
    ((1.5, 1), ScenarioInputError, "seq_len got 1.5, which is not a whole number"),
    ((1, 1, Q_(2)), ScenarioInputError, "precision got 2 .*expected a quantity of \\[data\\]"),
    ((1, 1, -2), ScenarioInputError, "precision got -2"),
    ((1, 1, "fp4"), ScenarioInputError, "'fp4' is not a storage precision"),
    ((1, 1, math.nan), ScenarioInputError, "precision got nan"),
    (("1", 1), InputTypeError, "seq_len got str '1'"),
])
def test_derived_method_arguments_are_validated(arguments, error, match):
    with pytest.raises(error, match=match):
        Models.Language.GPT3.get_kv_cache_size(*arguments)


def test_a_custom_workload_is_validated_like_a_catalog_entry():
    custom = TransformerWorkload(name="Hypothetical 8B", parameters=8e9, layers=32, hidden_dim=4096, heads=32,
                                 kv_heads=Q_(8, "count"))
    assert custom.parameters == Q_(8e9, "param") and custom.kv_heads == 8
    assert custom.kv_cache_bytes_per_token("bf16") == Q_(2 * 32 * 8 * 128 * 2, "byte")
    assert TransformerWorkload(name="b", parameters=Q_(8, "Gparam"), layers=1).parameters == Q_(8, "Gparam")
    base = {"name": "bad", "parameters": 8e9, "layers": 32}
    for change, error, match in [
        ({"layers": -1}, ScenarioInputError, "TransformerWorkload 'bad': field 'layers' got -1; expected an integer ≥ 1"),
        ({"layers": 2.5}, ScenarioInputError, "field 'layers' got 2.5, which is not a whole number"),
        ({"hidden_dim": "wide"}, InputTypeError, "field 'hidden_dim' got str 'wide'"),
        ({"parameters": Q_(1, "GB")}, ScenarioInputError, "field 'parameters' got 1 GB .*such as param"),
        ({"parameters": math.inf}, ScenarioInputError, "field 'parameters' got inf"),
        ({"parameters": True}, InputTypeError, "field 'parameters' got bool"),
        ({"layer": 3}, ScenarioInputError, "unknown field 'layer'; did you mean layers"),
        ({"heads": 8, "kv_heads": 16}, ScenarioInputError, "kv_heads must not exceed heads; got heads=8, kv_heads=16"),
        ({"name": ""}, InputTypeError, "field 'name' got ''"),
        ({"training_accelerators_ref": 100, "training_days_ref": 10, "training_gpu_days": 2000},
         ScenarioInputError, "training_gpu_days must be within 1 %"),
    ]:
        with pytest.raises(error, match=match):
            TransformerWorkload(**{**base, **change})
    with pytest.raises(MissingInputError, match="required field 'layers' was not given"):
        TransformerWorkload(name="x", parameters=1e9)
    with pytest.raises(ScenarioInputError, match="active_parameters must not exceed parameters"):
        SparseTransformerWorkload(name="moe", parameters=1e9, layers=2, active_parameters=2e9)


def test_records_are_immutable_and_compare_by_value():
    gpt3 = Models.Language.GPT3
    for attempt in (lambda: setattr(gpt3, "layers", 3), lambda: setattr(gpt3, "path", "x"),
                    lambda: delattr(gpt3, "layers")):
        with pytest.raises(AttributeError, match="immutable"):
            attempt()
    assert gpt3.layers == 96
    clone = pickle.loads(pickle.dumps(gpt3, protocol=2))
    assert clone == gpt3 and hash(clone) == hash(gpt3) and clone.kv_values_per_token == gpt3.kv_values_per_token
    assert copy.deepcopy(gpt3) == gpt3 and copy.copy(gpt3) is gpt3
    same = TransformerWorkload(**{name: getattr(gpt3, name) for name in gpt3.fields()})
    assert same == gpt3 and same.kv_cache_bytes_per_token() == gpt3.kv_cache_bytes_per_token()
    assert Models.Language.Llama2_7B != gpt3
    assert isinstance(Models.Language.Mixtral_8x7B, TransformerWorkload) and isinstance(gpt3, Workload)
