"""Declarations added for the inference group: Choice (a named option standing for a number),
with an upper bound, a strict Require proving a divisor positive, square roots, and `differs`. Each is rendered from a
small scenario declared here and its generated class is run."""

from __future__ import annotations

import math

import pytest
import sympy

from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.model import Choice, Input, Output, Require, Scenario
from symbolic.runtime.errors import DeclarationError, InputTypeError, MissingInputError, ScenarioInputError


class Widths(Scenario):
    """Bytes of `count` values at a storage precision, a share of them, and a root."""

    differs = {"share_bytes": "the reference reads a bare share as a percentage (an invented example)."}
    precision = Choice({"fp32": 4, "fp16": 2, "int4": sympy.Rational(1, 2)}, "byte", default="fp16",
                       case_insensitive=True, symbol="b", doc="Storage precision.")
    count = Input(positive=True, doc="Values.")
    share = Input(positive=True, at_most=1, doc="A share in (0, 1].")
    offset = Input(doc="Any real number.")
    positive_offset = Require(offset > 0, "offset must be positive")
    total = Output(count * precision, "byte", doc="Bytes.")
    share_bytes = Output(share * total, "byte", doc="A share of the bytes.")
    per_offset = Output(total / offset, "byte", doc="Bytes per unit of offset (defined: offset > 0 is required).")
    root = Output(sympy.sqrt(count / share), doc="A square root.")


def _generated_class() -> tuple[type, dict[str, str]]:
    files = render_all([ScenarioModule("widths", "inference", Widths.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/widths.py"], "generated/widths.py", "exec"), namespace)  # noqa: S102
    return namespace["WidthsScenario" if "WidthsScenario" in namespace else "Widths"], files


def test_choice_bound_strict_require_and_roots_render_and_run():
    cls, files = _generated_class()
    assert "**0.5" in files["generated/widths.py"] and "import math" not in files["generated/widths.py"]
    s = cls(count=10, share=0.5, offset=4)
    assert s.precision == "fp16" and s.total.to("byte").magnitude == 20
    assert cls(precision="INT4", count=10, share=1, offset=1).total.to("byte").magnitude == 5
    assert s.share_bytes.to("byte").magnitude == 10 and s.per_offset.to("byte").magnitude == 5
    assert s.root == pytest.approx(math.sqrt(20), rel=1e-15)
    with pytest.raises(ScenarioInputError, match=r"'precision' is 'fp64'; expected one of fp32, fp16, int4 \(any case\)"):
        s.variant(precision="fp64")
    with pytest.raises(InputTypeError, match="precision"):
        s.variant(precision=16)
    with pytest.raises(ScenarioInputError, match="share"):
        s.variant(share=1.01)
    with pytest.raises(ScenarioInputError, match="offset must be positive"):
        s.variant(offset=0)
    page = files["generated/docs/scenarios/Widths.md"]
    assert "## Differs from the reference library" in page and "`share_bytes`: the reference" in page
    assert "one of fp32 (4 byte), fp16 (2 byte), int4 (0.5 byte) (any case)" in page
    assert "a number > 0 and ≤ 1" in page


def test_a_choice_without_default_is_required():
    class Needs(Scenario):
        """A required choice."""

        precision = Choice({"fp32": 4}, "byte", doc="Storage precision.")
        total = Output(2 * precision, "byte", doc="Bytes.")

    files = render_all([ScenarioModule("needs", "inference", Needs.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/needs.py"], "generated/needs.py", "exec"), namespace)  # noqa: S102
    with pytest.raises(MissingInputError, match=r"required input was not given: 'precision' \(one of fp32 \(4 B\)\)"):
        namespace["Needs"]()


def test_bad_declarations_are_refused():
    with pytest.raises(DeclarationError, match="default 'fp8' is not an option"):
        Choice({"fp32": 4}, "byte", default="fp8")
    with pytest.raises(DeclarationError, match="positive"):
        Choice({"fp32": 0}, "byte")


def test_require_unless_names_an_optional_input_it_does_not_read():
    with pytest.raises(DeclarationError, match="not an optional input"):
        class Needed(Scenario):
            a = Input(integer=True, positive=True, doc="A count.")
            b = Input("s", positive=True, doc="A required time.")
            rule = Require(a <= 1, "b is needed when a > 1", unless=b)
    with pytest.raises(DeclarationError, match="does not read"):
        class Reads(Scenario):
            a = Input(integer=True, positive=True, doc="A count.")
            b = Input("s", positive=True, default=None, doc="An optional time.")
            rule = Require(b < 2 * a, "b", unless=b)


def test_require_when_checks_only_beside_an_optional_input():
    """``when=x``: the condition (and the inputs it names) only when x is given; they stay optional otherwise."""
    with pytest.raises(DeclarationError, match="not an optional input"):
        class Always(Scenario):
            a = Input(integer=True, positive=True, doc="A required count.")
            k = Input(integer=True, positive=True, default=None, doc="An optional count.")
            rule = Require(sympy.Ge(k, 1, evaluate=False), "a needs k", when=a)
    with pytest.raises(DeclarationError, match="unless or when"):
        class Both(Scenario):
            a = Input(integer=True, positive=True, default=None, doc="An optional count.")
            b = Input(integer=True, positive=True, default=None, doc="An optional count.")
            k = Input(integer=True, positive=True, default=None, doc="An optional count.")
            rule = Require(sympy.Ge(k, 1, evaluate=False), "k", unless=a, when=b)
    from symbolic.scenarios.training_memory.training_state_fit import TrainingStateFitScenario

    (rule,) = TrainingStateFitScenario.model.requirements
    assert rule.when == "adapter_rank" and not rule.unless
