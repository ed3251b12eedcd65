"""Registry values written as catalog references keep their source, through method calls too."""

from __future__ import annotations

from symbolic.catalog import Hardware, Models, Systems
from symbolic.refs import Q, source_of, value_of


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
