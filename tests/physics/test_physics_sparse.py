"""A mixture of experts against its dense twin, for every scenario that takes a transformer workload.

A sparse model of P parameters of which P_a work on each token and a dense model of P_a
parameters with the same geometry do the same compute and hold different weights. Every
scenario class with a workload input that accepts a transformer is discovered (none is listed
here) and built from its first registry entry with each of the two models: its FLOP outputs
must agree and its weight bytes must differ. Statically, no FLOP output may read the
workload's total parameter count: a scenario that writes 2·P itself prices every expert.
"""

from __future__ import annotations

import math

import pytest
from conftest import flatten, table_paths

from generated import Models, Scenarios
from generated.workloads import SparseTransformerWorkload, TransformerWorkload
from symbolic.scenarios.discover import discover
from symbolic.analysis.dimensions import dimension_of_unit
from symbolic.model.collected import WorkloadDecl
from symbolic.model.dependencies import closure, reads

TRANSFORMER_TYPES = {"Workload", "TransformerWorkload", "SparseTransformerWorkload"}
FLOP = dimension_of_unit("flop")
BYTE = dimension_of_unit("byte")
MOE_FIELDS = ("name", "active_parameters", "experts", "active_experts_per_token")


def _cases() -> list[tuple[object, str, str]]:
    """(scenario model, workload input, first registry key) of every class taking a transformer."""
    found = []
    for module in discover():
        for decl in module.model.structured:
            if isinstance(decl, WorkloadDecl) and TRANSFORMER_TYPES & set(decl.types) and module.instances:
                found.append((module.model, decl.name, module.instances[0].key))
    return found


CASES = _cases()


def test_the_discovery_finds_the_scenarios_that_price_a_transformer():
    # a floor, not a list: these read a workload's compute and must be among the discovered ones
    names = {model.name for model, _, _ in CASES}
    assert {"DecodeScenario", "ServingScenario", "SingleAcceleratorLlmServiceScenario",
            "ClusterTrainingTimeScenario", "TrainingRunScenario", "ParallelLayoutScenario",
            "TensorParallelLayerScenario", "DataParallelIntensityScenario", "KvDecodeBatchScenario",
            "TransformerBlockScenario"} <= names


def _twins(base) -> tuple[SparseTransformerWorkload, TransformerWorkload]:
    """A sparse model with `base`'s geometry and parameters, a quarter of them active, and its dense
    twin holding just that quarter."""
    if not isinstance(base, TransformerWorkload):
        base = Models.Language.Llama3_8B
    fields = {name: value for name, value in base.fields().items() if name not in MOE_FIELDS}
    total = fields.pop("parameters")
    sparse = SparseTransformerWorkload(name="sparse", parameters=total, active_parameters=total / 4, experts=8,
                                       active_experts_per_token=2, **fields)
    dense = TransformerWorkload(name="dense twin", parameters=total / 4, **fields)
    return sparse, dense


def _values(model, scenario) -> dict[str, object]:
    tables = {quantity.table for quantity in model.quantities if quantity.table}
    return table_paths(flatten(scenario.evaluate()), tables)


def _same(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12))


def _parameters_symbol(model, workload: str):
    return next(decl.symbol for decl in model.inputs if decl.structured == workload and decl.resolves == "parameters")


def _reads_total_parameters(model, quantity, workload: str) -> bool:
    by_symbol = {q.symbol: q for q in model.quantities}
    return _parameters_symbol(model, workload) in closure(reads(quantity), by_symbol)


def _shown(model, dimension):
    return [q for q in model.quantities if not q.hidden and q.kind != "text" and dimension_of_unit(q.unit) == dimension]


@pytest.mark.parametrize(("model", "workload", "key"), CASES, ids=[f"{m.name}.{w}" for m, w, _ in CASES])
def test_no_flop_output_reads_the_total_parameter_count(model, workload, key):
    wrong = [q.name for q in _shown(model, FLOP) if _reads_total_parameters(model, q, workload)]
    assert not wrong, (f"{model.name}: {wrong} read {workload}.parameters (every expert); read the record's "
                       "forward_flops_per_token, training_flops_per_token or parameters_per_token instead")


def _reads_layout(model, workload: str) -> bool:
    """Whether the scenario counts the weights from the record's layout (an MLP's width, its experts)."""
    layout = {decl.symbol for decl in model.inputs if decl.structured == workload
              and decl.resolves in ("active_mlp_parameters_per_layer", "architecture_active_parameters")}
    by_symbol = {q.symbol: q for q in model.quantities}
    return any(layout & closure(reads(q), by_symbol) for q in _shown(model, FLOP))


@pytest.mark.parametrize(("model", "workload", "key"), CASES, ids=[f"{m.name}.{w}" for m, w, _ in CASES])
def test_a_sparse_model_computes_as_its_dense_twin_and_weighs_more(model, workload, key):
    entry = getattr(Scenarios, key)
    sparse, dense = _twins(getattr(entry, workload))
    tolerance = 0.0
    if _reads_layout(model, workload):
        # counted from the layout, 2 of 8 experts of width f work on a token: the twin is a dense MLP of width
        # 2f; the sparse model's router (d·E weights a block) works on every token too, and is all it adds
        fields = {name: value for name, value in dense.fields().items() if name not in ("parameters", "ffn_dim")}
        dense = TransformerWorkload(**fields, ffn_dim=2 * sparse.ffn_dim)
        sparse = SparseTransformerWorkload(**{k: v for k, v in sparse.fields().items()
                                              if k not in ("parameters", "active_parameters")})
        tolerance = sparse.router_parameters.magnitude / dense.active_mlp_parameters_per_layer.magnitude
        assert 0 < tolerance < 1e-3
    with_sparse = _values(model, entry.variant(**{workload: sparse}))
    with_dense = _values(model, entry.variant(**{workload: dense}))
    for quantity in _shown(model, FLOP):
        a, b = with_sparse[quantity.name], with_dense[quantity.name]
        assert _same(a, b) or (tolerance and b < a <= b * (1 + tolerance)), (quantity.name, a, b)
    weights = [q.name for q in _shown(model, BYTE) if _reads_total_parameters(model, q, workload)]
    if weights:  # a scenario that holds the weights: four times the bytes
        assert any(not _same(with_sparse[name], with_dense[name]) for name in weights), weights


def test_the_check_catches_a_scenario_pricing_every_expert():
    # the mechanism's own test: the reference's 2·P per token, declared in a scratch scenario, is caught
    from symbolic.catalog.workloads import TransformerWorkload as Declared
    from symbolic.model import Input, Output, Scenario, WorkloadInput, flop

    class EveryExpert(Scenario):
        """2·P FLOPs per token with every expert."""

        workload = WorkloadInput(Declared, doc="The model.")
        tokens = Input(integer=True, positive=True, doc="Tokens.")
        flops = Output(2 * workload.parameters * tokens * flop, "flop", doc="2·P·T.")
        right = Output(workload.forward_flops_per_token * tokens, "flop", doc="F_tok·T.")

    model = EveryExpert.model
    flagged = [q.name for q in _shown(model, FLOP) if _reads_total_parameters(model, q, "workload")]
    assert flagged == ["flops"]


# The values each scenario's `differs` states, by hand. Mixtral-8x7B: P = 4.67e10, P_a = 1.29e10,
# L = 32, a = 32, d_h = 4096/32 = 128. The reference's 2·P / 6·P would give 4.67/1.29 = 3.6× more.
MIXTRAL = Models.Language.Mixtral_8x7B
MOE_RUN = SparseTransformerWorkload(name="8x7B-like run", parameters=4.67e10, active_parameters=1.29e10, experts=8,
                                    active_experts_per_token=2, layers=32, hidden_dim=4096, heads=32, kv_heads=8,
                                    context_length=4096, training_ops=1e24)


def _magnitude(value, unit: str) -> float:
    return value.to(unit).magnitude


def test_decode_prices_a_mixture_of_experts_at_its_active_parameters():
    mixtral = Scenarios.Llama3_70B_DecodeH100.variant(workload=MIXTRAL).result
    assert _magnitude(mixtral.flops_per_step, "flop") == pytest.approx(2.58e10, rel=1e-12)  # 2·1.29e10, not 9.34e10
    assert _magnitude(mixtral.weight_bytes, "byte") == pytest.approx(9.34e10, rel=1e-12)  # every expert: 4.67e10·2 B
    deepseek = Scenarios.Llama3_70B_DecodeH100.variant(workload=Models.Language.DeepSeek_V3).result
    assert _magnitude(deepseek.flops_per_step, "flop") == pytest.approx(7.4e10, rel=1e-12)  # 2·3.7e10 (18× fewer)
    assert _magnitude(deepseek.weight_bytes, "byte") == pytest.approx(1.342e12, rel=1e-12)  # 6.71e11·2 B


def test_serving_prefill_at_active_parameters_and_the_record_head_width():
    r = Scenarios.Llama3_70B_ServingH100.variant(workload=MIXTRAL).result  # S = 2048
    assert _magnitude(r.linear_flops, "TFLOP") == pytest.approx(52.8384, rel=1e-12)  # 2·1.29e10·2048
    # 4·L·a·d_h·S² = 4·32·32·128·2048² = 524,288·4,194,304
    assert _magnitude(r.attention_flops, "flop") == pytest.approx(2_199_023_255_552, rel=1e-12)
    palm = Scenarios.Llama3_70B_ServingH100.variant(workload=Models.Language.PaLM_540B).result
    # PaLM states head_dim 256 (⌊18432/48⌋ = 384 in the reference): 4·118·48·256·2048² = 5,799,936·4,194,304
    assert _magnitude(palm.attention_flops, "flop") == pytest.approx(24_326_694_764_544, rel=1e-12)


def test_single_accelerator_service_prefill_at_active_parameters():
    s = Scenarios.Llama3_8BInt4ChatServiceH100.variant(workload=MIXTRAL)  # 1000-token prompts, 256 answered
    # (2·1.29e10 + 4·32·32·128·1000)·1000 = (2.58e10 + 5.24288e8)·1000
    assert _magnitude(s.prefill_flops, "flop") == pytest.approx(2.6324288e13, rel=1e-12)
    # N = 1256: (2.58e10 + 524,288·1256)·1256 = (2.58e10 + 658,505,728)·1256
    assert _magnitude(s.request_flops, "flop") == pytest.approx(3.323188319436800e13, rel=1e-12)


def test_training_runs_count_tokens_at_active_parameters():
    s = Scenarios.Gpt2XlRunOnOneH100.variant(workload=MOE_RUN)  # steps of 32·1024 tokens
    assert s.training_tokens == pytest.approx(1e24 / 7.74e10, rel=1e-12)  # C/(6·1.29e10) = 1.292e13 tokens
    assert _magnitude(s.step_operations, "flop") == pytest.approx(7.74e10 * 32768, rel=1e-12)  # 6·P_a·B_t
    assert s.steps == pytest.approx(1e24 / (7.74e10 * 32768), rel=1e-12)


def test_parallel_scenarios_count_flops_at_active_parameters():
    layer = Scenarios.Gpt3TensorParallelLayerTp8.variant(workload=MIXTRAL).result  # T = 2048
    assert _magnitude(layer.layer_flops, "flop") == pytest.approx(1.6512e12, rel=1e-12)  # 2·1.29e10/32·2048
    intensity = Scenarios.Gpt3DataParallelIntensity.variant(workload=MOE_RUN).result  # 4 sequences of 4096
    assert _magnitude(intensity.flops_per_step, "flop") == pytest.approx(1.2681216e15, rel=1e-12)  # 6·1.29e10·16384
    assert _magnitude(intensity.bytes_per_step, "byte") == pytest.approx(1.868e11, rel=1e-12)  # 2·(2 B·4.67e10)
    layout = Scenarios.Gpt3DataParallel1K.variant(workload=MIXTRAL).result  # φ = 6, D = 2e6
    assert _magnitude(layout.step_flops, "flop") == pytest.approx(1.548e17, rel=1e-12)  # 6·1.29e10·2e6
    assert _magnitude(layout.state_total, "GB") == pytest.approx(747.2, rel=1e-12)  # 16 B·4.67e10: every expert


def test_block_and_decode_batch_read_the_record_flops_per_token():
    block = Scenarios.Gpt2XlBlockFullWindow.variant(workload=MIXTRAL)  # B = 1, S = 1024
    assert _magnitude(block.six_p_step_flops, "flop") == pytest.approx(7.92576e13, rel=1e-12)  # 6·1.29e10·1024
    batch = Scenarios.Gpt2XlChatDecodeBatchesH100  # 512-token prompts
    assert _magnitude(batch.prefill_ops, "flop") == pytest.approx(1.536e12, rel=1e-12)  # GPT-2: 2·1.5e9·512, unchanged
    bert = batch.variant(workload=Models.Language.BERT_Base)
    assert _magnitude(bert.prefill_ops, "flop") == pytest.approx(1.1264e11, rel=1e-12)  # 2·1.1e8·512, not 2.2e10·512
    opt = batch.variant(workload=Models.Language.OPT_13B)  # no stated inference_flops: priced all the same
    assert _magnitude(opt.prefill_ops, "flop") == pytest.approx(1.3312e13, rel=1e-12)  # 2·1.3e10·512
