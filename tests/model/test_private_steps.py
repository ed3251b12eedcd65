"""A private step (``Step``): a named intermediate expression shown on the page, with its definition and
closed form, read by later outputs, and not an attribute of the class (the reference's names stay the API)."""

from __future__ import annotations

import pytest

from function_support import rendered_class
from symbolic.model import Input, Output, Scenario, Step, exp
from symbolic.runtime.errors import DeclarationError


class Saturating(Scenario):
    """Work over a saturating ramp."""

    work = Input("J", positive=True, doc="Work.")
    s = Input(positive=True, doc="Steepness.")
    lost = Step(1 - exp(-s), doc="Share lost over the ramp.")
    per_lost = Output(work / lost, "J", doc="Work per share lost.")


def test_a_step_is_on_the_page_and_read_by_outputs_but_not_an_attribute():
    cls, files = rendered_class(Saturating)
    s = cls(work=1, s=1)
    # 1 J / (1 − e^(−1)) = 1/0.6321205588285577 = 1.5819767068693265 J
    assert s.per_lost.magnitude == pytest.approx(1.5819767068693265, rel=1e-15)
    assert not hasattr(s, "lost")
    page = files["generated/docs/scenarios/Saturating.md"]
    assert "### lost" in page and r"\mathrm{lost} = 1 - e^{- \mathrm{s}}" in page
    assert "a private step" in page
    # the page shows the author's formula reading the step, and its closed form in the inputs
    assert r"\mathrm{per\_lost} = \frac{\mathrm{work}}{\mathrm{lost}}" in page


def test_a_step_belongs_to_no_group():
    from symbolic.model import Group

    with pytest.raises(DeclarationError, match="a private step belongs to no group"):
        class Grouped(Scenario):
            """A step in a group."""

            x = Input(positive=True)
            result = Group(doc="Results.")
            half = Step(x / 2, group=result)


def test_explain_shows_a_step_and_its_number(monkeypatch):
    from symbolic.analysis import derive
    from symbolic.codegen.explain import explain

    cls, _ = rendered_class(Saturating)
    monkeypatch.setattr(derive, "model_of", lambda name: Saturating.model)
    s = cls(work=1, s=1)
    step = explain(s, "lost")
    assert step.steps["definition"] == "lost = 1 - exp(-s)"
    assert step.steps["result"].startswith("lost = 0.632121")  # 1 − e^(−1) = 0.6321205588
    reading = explain(s, "per_lost")
    assert "0.632121" in reading.steps["numbers"]  # the step's number, not its name, in the substituted line
