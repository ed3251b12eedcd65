"""``mlsysym list <Class>`` against the declarations: every class, every input, its kind, unit,
default and whether it is required.

The expected rows are read from the sympy declarations (``symbolic.model``), not from the
generated specs ``list`` reads, so a kind of input the generated class or the CLI forgets
(a workload, a choice, an optional node shown as required) fails here."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import pytest
import sympy

import generated
from symbolic.cli import main
from symbolic.analysis.derive import model_of
from symbolic.model import ListInput, ScenarioModel
from symbolic.runtime.errors import DeclarationError
from symbolic.runtime.inputs import describe
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.units import label
from symbolic.runtime.validation import REQUIRED, InputSpec


class Declared(NamedTuple):
    kind: str
    unit: str
    required: bool
    default: Any  # the value used when left out, None when there is none (or an expression computes it)


def declared(model: ScenarioModel) -> dict[str, Declared]:
    """Each input's row as the declaration states it."""
    rows: dict[str, Declared] = {}
    for decl in model.inputs:
        if decl.structured:  # a number a node, workload, ... resolves to: not a keyword
            continue
        spec = decl.spec
        kind = "list" if isinstance(spec, ListInput) else "integer" if spec.integer else "number"
        default = spec.default
        if default is REQUIRED or default is None or (isinstance(default, sympy.Basic) and not default.is_Number):
            default = None
        elif isinstance(default, (list, tuple)):
            default = [float(v) if isinstance(v, sympy.Basic) else v for v in default]
        else:
            default = float(default) if isinstance(default, sympy.Basic) else default
        rows[decl.name] = Declared(kind, label(spec.unit), spec.default is REQUIRED, default)
    for item in model.structured:
        if item.kind == "choice":
            choice = item.choice
            rows[item.name] = Declared("choice", label(choice.unit), choice.default is REQUIRED,
                                       None if choice.default is REQUIRED else choice.default)
        elif item.kind == "workload":  # a workload has no default: the scenario reads its fields
            rows[item.name] = Declared("workload", "", True, None)
        else:
            rows[item.name] = Declared(item.kind, "", not item.optional, None)
    for precision in model.precisions:
        rows[precision.name] = Declared("precision", "", precision.default is REQUIRED,
                                        None if precision.default is REQUIRED else precision.default)
    return rows


def listed(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("cls", generated.SCENARIO_CLASSES, ids=lambda cls: cls.__name__)
def test_list_shows_every_declared_input_with_its_kind_unit_default_and_requiredness(cls, capsys):
    model = model_of(cls.__name__)
    expected = declared(model)
    data = json.loads(listed(capsys, "--json", "list", cls.__name__))
    assert [row["name"] for row in data["inputs"]] == list(model.input_order)
    for row in data["inputs"]:
        want = expected[row["name"]]
        default = row["default"]
        if isinstance(default, list):
            default = [float(v) for v in default]
        elif isinstance(default, (int, float)) and not isinstance(default, bool):
            default = float(default)
        assert (row["kind"], row["unit"], row["required"], default) == tuple(want), row["name"]
        assert row["domain"], row["name"]
    text = listed(capsys, "list", cls.__name__)
    table = text.split("\ninputs:\n", 1)[1].split("\n\noutputs", 1)[0].splitlines()[2:]  # below the header
    assert [line.split()[0] for line in table] == list(model.input_order)
    for line, name in zip(table, model.input_order, strict=True):
        cells = line.split()
        assert cells[1] == expected[name].kind, line
        assert ("required" in cells[2:4]) == expected[name].required, line


def test_decode_shows_its_workload_and_precision_choice(capsys):
    """The rows the old listing left out, by hand: DecodeScenario takes a workload (required, its
    parameter count read), a weight precision (a choice, fp16 by default, each option a width in
    bytes) and an optional-by-default peak precision key."""
    rows = {row["name"]: row for row in json.loads(listed(capsys, "--json", "list", "DecodeScenario"))["inputs"]}
    assert rows["workload"]["kind"] == "workload" and rows["workload"]["required"] is True
    assert "parameters" in rows["workload"]["domain"]
    assert (rows["precision"]["kind"], rows["precision"]["default"], rows["precision"]["unit"]) == ("choice", "fp16", "B")
    assert "fp16 (2 B)" in rows["precision"]["domain"] and "int4 (0.5 B)" in rows["precision"]["domain"]
    assert (rows["peak_precision"]["kind"], rows["peak_precision"]["default"], rows["peak_precision"]["required"]) == (
        "precision", "peak", False)
    assert "hardware.precision_flops" in rows["peak_precision"]["domain"]


def test_an_optional_node_is_not_listed_as_required(capsys):
    optional = [(cls.__name__, node.name) for cls in generated.SCENARIO_CLASSES for node in cls._nodes
                if node.optional]
    assert optional, "no class has an optional node: this test checks nothing"
    for class_name, node in optional:
        rows = {row["name"]: row for row in json.loads(listed(capsys, "--json", "list", class_name))["inputs"]}
        assert rows[node]["kind"] == "node" and rows[node]["required"] is False and rows[node]["default"] is None


def test_an_input_of_a_kind_nothing_describes_is_an_error_not_a_missing_row():
    class Odd(ScenarioBase):
        _specs = (InputSpec("x"),)
        _oddities = ("y",)
        _input_order = ("x", "y")

    with pytest.raises(DeclarationError, match="no spec for input.*y"):
        describe(Odd)


def test_list_of_an_unknown_class_names_the_nearest(capsys):
    assert main(["list", "DecodeScenari"]) == 2
    assert "did you mean DecodeScenario" in capsys.readouterr().err
