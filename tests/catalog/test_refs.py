"""Registry values written as catalog references keep their source, through method calls too."""

from __future__ import annotations

from symbolic.catalog import Hardware, Models, Systems
from symbolic.catalog.refs import Q, source_of, value_of


def test_method_calls_keep_their_source_and_value():
    capacity = Hardware.Cloud.H100.memory_capacity.to("GiB").magnitude
    assert source_of(capacity) == "Hardware.Cloud.H100.memory_capacity.to('GiB').magnitude"
    assert value_of(capacity) == 80


def test_q_takes_a_literal_or_a_magnitude_and_a_unit():
    """The reference labels the H100's 80 GiB as 80 GB in some entries; written from the catalog."""
    labelled = Q(Hardware.Cloud.H100.memory_capacity.to("GiB").magnitude, "GB")
    assert labelled.source == "Q_(Hardware.Cloud.H100.memory_capacity.to('GiB').magnitude, 'GB')"
    assert labelled.value.to("byte").magnitude == 80e9
    assert Q("100 µs").source == "Q_('100 µs')"


def test_an_attribute_of_an_expression_keeps_its_brackets():
    """``(a / b).to(unit)`` must not print as ``a / b.to(unit)``, which converts b alone."""
    gpt2 = Models.Language.GPT2
    intensity = (gpt2.inference_flops / gpt2.size_in_bytes("fp16")).to("flop/byte")
    assert source_of(intensity) == ("(Models.Language.GPT2.inference_flops / "
                                    "Models.Language.GPT2.size_in_bytes('fp16')).to('flop/byte')")
    assert value_of(intensity).magnitude == 1.0


def test_whole_division_of_catalog_counts():
    """``Clusters.Training_1K.total_accelerators // (4 * Nodes.DGX_H100.accelerators_per_node)`` = 1024 // 32."""
    per_node = Systems.Nodes.DGX_H100.accelerators_per_node
    replicas = Systems.Clusters.Training_1K.total_accelerators // (4 * per_node)
    assert source_of(replicas) == ("Systems.Clusters.Training_1K.total_accelerators // "
                                   "(4 * Systems.Nodes.DGX_H100.accelerators_per_node)")
    assert value_of(replicas) == 32 and type(value_of(replicas)) is int
    assert value_of(2048 // per_node) == 256


def test_another_entrys_output_is_a_lazy_exact_reference():
    """``entry.output(path)``: written as ``Scenarios.<key>.<path>`` once the generator names the entry, valued
    exactly (a Fraction magnitude), and arithmetic on it stays lazy."""
    from fractions import Fraction

    from symbolic.analysis.exact import _in_unit
    from symbolic.model.instances import Instance
    from symbolic.scenarios.training_memory.activation_memory import ActivationMemoryScenario

    entry = Instance(ActivationMemoryScenario, name="t", description="t", workload=Models.Language.GPT2,
                     micro_batch=3, seq_len=1000)
    none, doubled = entry.output("activations[none]"), 2 * entry.output("per_token_activations")
    assert none.lazy and doubled.lazy and repr(none) == "Ref(<not yet resolved>)"
    entry.key = "Later"  # discovery names the entry after it is declared
    assert source_of(none) == 'Scenarios.Later.activations["none"]'
    assert source_of(doubled) == "2 * Scenarios.Later.per_token_activations"
    L, h, a, s, b = 48, 1600, 25, 1000, 3
    assert value_of(none).magnitude == Fraction(L * (34 * s * b * h + 5 * a * s * s * b))
    per_token = Fraction(L * 34 * s * b * h, 10**9)  # GB, exactly
    assert value_of(doubled).magnitude == 2 * per_token and value_of(doubled).units == value_of(Q("1 GB")).units
    assert _in_unit(value_of(doubled), "byte") == 2 * per_token * 10**9  # converted exactly, not through a float
    assert source_of(entry.input("micro_batch")) == "Scenarios.Later.micro_batch" and value_of(entry.input("micro_batch")) == 3


def test_literal_numbers_stay_written_out():
    from symbolic.catalog.refs import literal

    b, k = literal(32), literal(2048)
    assert source_of(2 * b * k) == "2 * 32 * 2048" and value_of(2 * b * k) == 131072


def test_a_custom_record_is_written_as_the_call_a_user_makes():
    from symbolic.catalog import custom

    mine = custom.TransformerWorkload(name="Mine", parameters=Q("8e9 param"), layers=32, hidden_dim=4096)
    assert source_of(mine) == "TransformerWorkload(name='Mine', parameters=Q_('8e9 param'), layers=32, hidden_dim=4096)"
    assert value_of(mine).layers == 32 and value_of(mine).parameters.magnitude == 8e9
    assert source_of(mine.hidden_dim).endswith(".hidden_dim") and value_of(mine.hidden_dim) == 4096
