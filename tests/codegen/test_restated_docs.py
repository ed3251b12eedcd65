"""An output doc says what a quantity means and why; restating its formula is flagged at generation."""

from __future__ import annotations

import pytest

from symbolic.analysis.restated import check_docs, restated, restatements, written
from symbolic.model import Input, Output, Scenario
from symbolic.runtime.errors import DeclarationError
from symbolic.scenarios.discover import discover


def test_symbols_are_compared_as_the_page_writes_them():
    assert written(r"\beta_o") == "β_o"
    assert written(r"{P}_{\mathrm{workload}}") == "P"  # a structured input's field
    assert written(r"{F_{inf}}_{\mathrm{workload}}") == "F_inf"
    assert written(r"\mathrm{weights}") is None  # a name spelled out is never a formula's letter


@pytest.mark.parametrize("doc", [
    "Weight bytes, P·e.",  # the example: two symbols joined by an operator
    "Ring rounds R = 2(N − 1).",  # a coefficient written against a symbol
    "The large-N bound, 2M/β_o (no startup term).",
    "Bytes each device sends, 2(g − 1)/g · G.",
    "Examples per update, b·N·a.",
])
def test_a_restated_formula_is_found(doc):
    assert restated(doc, {"P", "e", "N", "M", "β_o", "g", "G", "b", "a"}, {"2"})


@pytest.mark.parametrize("doc", [
    "Bytes per s·b·h element kept.",  # a unit of measure: only b is in the expression
    "Multiply-adds of S²·d for Q·Kᵀ.",  # Q and K are names, not the expression's symbols
    "Peak FLOP/s of `hardware` at `precision`.",
    "16-bit gradients, the size of the weights.",
    "Bytes a ring AllReduce sends (0 at t = 1).",  # a symbol and a number that is not a coefficient
])
def test_prose_about_the_quantity_is_not_flagged(doc):
    assert restated(doc, {"b", "S", "t"}, {"2"}) == []


def test_the_generator_refuses_an_output_doc_that_restates_its_expression():
    class Restating(Scenario):
        """A weight footprint."""

        parameters = Input(integer=True, positive=True, symbol="P", doc="Parameters.")
        width = Input("byte", positive=True, symbol="w", doc="Bytes per parameter.")
        weights = Output(parameters * width, "GB", doc="Weight bytes, P·w.")
        explained = Output(parameters * width, "GB", doc="Bytes of the weights, each parameter at its storage width.")

    assert restatements(Restating.model) == [("weights", "P·w")]
    with pytest.raises(DeclarationError, match=r"weights: 'P·w'.*say what the quantity means"):
        check_docs(Restating.model)


def test_no_scenario_doc_restates_its_formula():
    found = {f"{module.source}: {name}: {fragment}" for module in discover()
             for name, fragment in restatements(module.model)}
    assert not found, sorted(found)
