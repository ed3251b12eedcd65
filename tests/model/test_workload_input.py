"""A scenario reading a workload (``WorkloadInput``), and malformed catalog entries refused by name."""

from __future__ import annotations

import pytest

from generated import Models, Q_, TransformerWorkload
from symbolic.catalog.load import CatalogError, entries
from symbolic.catalog.workloads import TIERS, WORKLOAD_TYPES
from symbolic.catalog.workloads import TransformerWorkload as TransformerSchema
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_scenario
from symbolic.model import Input, Output, Scenario, WorkloadInput
from symbolic.runtime.errors import DeclarationError, InputTypeError, MissingInputError


class KvExampleScenario(Scenario):
    """Weights and KV cache of a transformer serving `tokens` tokens."""

    workload = WorkloadInput(TransformerSchema, requires=("heads",), doc="The model.")
    tokens = Input(integer=True, positive=True, doc="Tokens cached.")
    bytes_per_value = Input("byte", positive=True, doc="Width of one stored value.")
    weights = Output(workload.size_in_bytes(bytes_per_value), "GB", doc="Weight bytes.")
    kv_bytes = Output(workload.kv_cache_bytes_per_token(bytes_per_value) * tokens, "GB", doc="KV bytes.")
    window = Output(workload.context_length, doc="Trained context.")
    decode_flops = Output(workload.forward_flops_per_token, "GFLOP", doc="FLOPs per generated token.")


@pytest.fixture(scope="module")
def scenario():
    """The class generated from the declaration above, compiled from the rendered module."""
    module = ScenarioModule("kv_example", "inference", KvExampleScenario.model, ())
    text = render_scenario(module).files["generated/kv_example.py"]
    namespace: dict = {"__name__": "kv_example"}
    exec(compile(text, "kv_example", "exec"), namespace)  # noqa: S102
    return namespace["KvExampleScenario"]


def test_fields_and_derived_quantities_resolve_to_the_record_numbers(scenario):
    llama = scenario(workload=Models.Language.Llama3_70B, tokens=1000, bytes_per_value=2)
    assert llama.weights.to("byte").magnitude == pytest.approx(7.06e10 * 2, rel=1e-12)
    assert llama.kv_bytes.to("byte").magnitude == pytest.approx(2 * 80 * 8 * 128 * 2 * 1000, rel=1e-12)
    assert llama.window == 131072
    assert llama.decode_flops.to("flop").magnitude == pytest.approx(2 * 7.06e10, rel=1e-12)
    mixtral = llama.variant(workload=Models.Language.Mixtral_8x7B)
    assert mixtral.decode_flops.to("flop").magnitude == pytest.approx(2 * 1.29e10, rel=1e-12)  # the sparse rule
    deepseek = llama.variant(workload=Models.Language.DeepSeek_V3, bytes_per_value=Q_(8, "bit"))
    assert deepseek.kv_bytes.to("byte").magnitude == pytest.approx(61 * (512 + 64) * 1 * 1000, rel=1e-12)


def test_unset_fields_and_wrong_records_are_named(scenario):
    mixtral = scenario(workload=Models.Language.Mixtral_8x7B, tokens=1, bytes_per_value=2)
    with pytest.raises(MissingInputError, match="'window' needs input 'workload.context_length'"):
        _ = mixtral.window
    no_heads = TransformerWorkload(name="Hypothetical 8B", parameters=8e9, layers=32, hidden_dim=4096)
    with pytest.raises(MissingInputError, match="whose heads is not set"):
        scenario(workload=no_heads, tokens=1, bytes_per_value=2)
    for value, error in [(Models.Vision.ResNet50, InputTypeError), ("GPT3", InputTypeError),
                         (TransformerSchema, InputTypeError), (None, MissingInputError)]:
        with pytest.raises(error, match="input 'workload' got .*expected a TransformerWorkload"):
            scenario(workload=value, tokens=1, bytes_per_value=2)


def test_declaration_errors_name_the_problem():
    with pytest.raises(DeclarationError, match="requires unknown fields"):
        class Bad(Scenario):
            workload = WorkloadInput(TransformerSchema, requires=("nonsense",))
    with pytest.raises(DeclarationError, match="has no field or derived quantity 'widths'"):
        class Bad2(Scenario):
            workload = WorkloadInput("CNNWorkload")
            x = Output(workload.widths)
    with pytest.raises(DeclarationError, match="needs precision"):
        class Bad3(Scenario):
            workload = WorkloadInput()
            x = Output(workload.size_in_bytes(), "byte")


def _write(tmp_path, text: str):
    (tmp_path / "workloads.toml").write_text(text, encoding="utf-8")
    return lambda: entries("workloads.toml", TIERS, {t.__name__: t for t in WORKLOAD_TYPES}, directory=tmp_path)


@pytest.mark.parametrize(("body", "match"), [
    ('type = "TransformerWorkload"\nname = "X"\nparameters = "1e9 param"\nlayers = -2',
     r"entry Language\.X, field 'layers': got -2; expected an integer ≥ 1"),
    ('type = "TransformerWorkload"\nname = "X"\nparameters = "1e9 byte"\nlayers = 2',
     r"entry Language\.X, field 'parameters': got '1e9 byte'; expected a quantity in param"),
    ('type = "TransformerWorkload"\nname = "X"\nparameters = 1e9\nlayers = 2',
     r"entry Language\.X, field 'parameters': got 1000000000\.0; expected a quantity written as a string"),
    ('type = "TransformerWorkload"\nname = "X"\nparameters = "1e9 param"',
     r"entry Language\.X, field 'layers': missing; a TransformerWorkload requires it"),
    ('type = "TransformerWorkload"\nname = "X"\nparameters = "1e9 param"\nlayers = 2\nlayer = 3',
     r"entry Language\.X: unknown fields \['layer'\]"),
    ('type = "Transformer"\nname = "X"', r"entry Language\.X, field 'type': got 'Transformer'"),
    ('type = "TransformerWorkload"\nname = "X"\nparameters = "1e9 param"\nlayers = 2\nheads = 4\nkv_heads = 8',
     r"entry Language\.X: kv_heads must not exceed heads; got heads=4, kv_heads=8"),
])
def test_a_malformed_entry_is_refused_naming_file_entry_and_field(tmp_path, body, match):
    load = _write(tmp_path, f"[Language.X]\n{body}\n")
    with pytest.raises(CatalogError, match=r"workloads\.toml: " + match):
        load()


def test_unknown_tiers_and_broken_toml_are_refused(tmp_path):
    with pytest.raises(CatalogError, match="unknown tiers"):
        _write(tmp_path, '[Languages.X]\ntype = "Workload"\nname = "X"\n')()
    with pytest.raises(CatalogError, match="not valid TOML"):
        _write(tmp_path, "[Language.X\n")()


def test_an_output_missing_a_workload_field_names_the_field_as_users_spell_it():
    from generated import Scenarios, TransformerWorkload

    mine = TransformerWorkload(name="Mine", parameters=1e8, layers=12, hidden_dim=768, heads=12)  # no context_length
    scenario = Scenarios.Gpt2XlBatch32ActivationsFp32.variant(workload=mine, seq_len=None)
    with pytest.raises(MissingInputError) as refused:
        scenario.per_token_activations  # noqa: B018
    message = str(refused.value)
    assert "needs input 'seq_len' (or the workload's 'context_length')" in message
    assert "workload_context_length" not in message
    # the sequence given, the same workload evaluates
    assert scenario.variant(seq_len=1024).per_token_activations.magnitude > 0
