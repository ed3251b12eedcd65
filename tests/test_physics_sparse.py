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
from symbolic.codegen.discover import discover
from symbolic.dimensions import dimension_of_unit
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


@pytest.mark.parametrize(("model", "workload", "key"), CASES, ids=[f"{m.name}.{w}" for m, w, _ in CASES])
def test_a_sparse_model_computes_as_its_dense_twin_and_weighs_more(model, workload, key):
    entry = getattr(Scenarios, key)
    sparse, dense = _twins(getattr(entry, workload))
    with_sparse = _values(model, entry.variant(**{workload: sparse}))
    with_dense = _values(model, entry.variant(**{workload: dense}))
    for quantity in _shown(model, FLOP):
        assert _same(with_sparse[quantity.name], with_dense[quantity.name]), (
            quantity.name, with_sparse[quantity.name], with_dense[quantity.name])
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
