"""Outputs that do not exist where a Fits fails may be undefined there (a break-even that never comes, a
batch bounded by no activations): every other output stays available, on every path (issue #29 §2)."""

from __future__ import annotations

import numpy as np
import pytest

import mlsysym
from generated import Q_, Scenarios
from symbolic.analysis.domains import check_defined
from symbolic.model import Fits, Input, Output, Scenario
from symbolic.runtime.errors import InfeasibleError, UndefinedOutputError

COMPILE = Scenarios.ResNet50CompileBreakeven  # 1450 items/s eager, 2150 compiled, a 30 s compile
STATE = Scenarios.Gpt2Fp32AdamBatch32OnH100  # GPT-2 XL FP32 + Adam, 32 sequences of activations, one H100


@pytest.mark.parametrize("compiled", [1000, 1450])  # slower than eager, and equal (saving exactly 0)
def test_a_compile_that_never_pays_off_keeps_every_other_output(compiled):
    s = COMPILE.variant(compiled_rate=Q_(compiled, "1/s"))
    assert s.compile_pays_off is False
    assert s.speedup == pytest.approx(compiled / 1450, rel=1e-15)
    # hand: 10 recompiles of 30 s plus 10,000 items at the compiled rate, over 10,000 items eager
    assert s.experiment_slowdown == pytest.approx((10 * 30 + 10000 / compiled) / (10000 / 1450), rel=1e-12)
    with pytest.raises(InfeasibleError, match="breakeven_items.*compiled path faster than eager"):
        _ = s.breakeven_items
    assert s.evaluate()["breakeven_items"] is None


def test_a_compile_that_pays_off_is_unchanged():
    # hand: 30 s / (1/1450 - 1/2150) s per item = 133,607.14 items
    assert COMPILE.breakeven_items == pytest.approx(30 / (1 / 1450 - 1 / 2150), rel=1e-12)
    assert COMPILE.compile_pays_off is True


def test_sweep_and_search_across_the_boundary():
    swept = mlsysym.sweep(COMPILE, {"compiled_rate": Q_(np.array([1000.0, 1450.0, 2150.0]), "1/s")})
    breakeven = swept["breakeven_items"]
    assert np.isnan(breakeven[0]) and np.isnan(breakeven[1])
    assert breakeven[2] == pytest.approx(30 / (1 / 1450 - 1 / 2150), rel=1e-12)
    assert list(swept["compile_pays_off"]) == [0, 0, 1]
    assert np.all(np.isfinite(swept["speedup"]))


def test_state_only_training_fit():
    s = STATE.variant(activations=0)
    # hand: GPT-2 XL 1.5e9 parameters × (4 weight + 4 gradient + 8 Adam) bytes = 24 GB, plus no activations
    assert s.training_total.to("B").magnitude == pytest.approx(24e9, rel=1e-15)
    assert s.activations_at(64).magnitude == 0 and s.fits is True
    assert s.activations_bound_batch is False
    for name in ("resident_batch_limit", "max_resident_batch"):
        with pytest.raises(InfeasibleError, match="activations above 0"):
            getattr(s, name)
    # with activations stated, the batch is bounded as before: (80 GiB - 24 GB) / (A / 32) sequences
    bounded = STATE.resident_batch_limit
    headroom = 80 * 2**30 - 24e9
    assert bounded == pytest.approx(headroom / (STATE.activations.to("B").magnitude / 32), rel=1e-12)
    swept = mlsysym.sweep(STATE, {"activations": Q_(np.array([0.0, 1e9]), "B")})
    assert np.isnan(swept["resident_batch_limit"][0])
    assert swept["resident_batch_limit"][1] == pytest.approx(headroom / (1e9 / 32), rel=1e-12)


def test_a_strict_fits_holds_only_above_and_proves_the_division():
    class Saving(Scenario):
        """Items that repay a fixed cost."""

        slow = Input("1/s", positive=True)
        fast = Input("1/s", positive=True)
        cost = Input("s", positive=True)
        saving = Output(1 / slow - 1 / fast, "s", doc="Saved per item.")
        breakeven = Output(cost / saving, doc="Items that repay the cost.")
        pays = Fits(slow < fast, "the fast path must be faster", unit="1/s", guards=(breakeven,))

    check_defined(Saving.model)  # the division is defined wherever the Fits holds
    fits = next(f for f in Saving.model.feasibility if f.name == "pays")
    assert fits.strict

    class Unguarded(Scenario):
        """The same division with nothing that makes it defined."""

        slow = Input("1/s", positive=True)
        fast = Input("1/s", positive=True)
        cost = Input("s", positive=True)
        saving = Output(1 / slow - 1 / fast, "s", doc="Saved per item.")
        breakeven = Output(cost / saving, doc="Items that repay the cost.")

    with pytest.raises(UndefinedOutputError, match="divides by"):
        check_defined(Unguarded.model)


def test_the_command_line_says_does_not_fit_for_an_output_that_cannot_exist(tmp_path):
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "symbolic.cli", "eval", "ResNet50CompileBreakeven", "--set",
                            "compiled_rate=1000/s"], capture_output=True, text=True, check=True).stdout
    row = next(line for line in shown.splitlines() if line.startswith("breakeven_items"))
    assert "does not fit" in row and "needs an input" not in row
    assert next(line for line in shown.splitlines() if line.startswith("compile_pays_off ")).split()[-1] == "False"


def test_sensitivity_where_an_output_cannot_exist():
    equal = COMPILE.variant(compiled_rate=Q_(1450, "1/s"))  # every derivative of breakeven_items divides by 0
    rows = {row.input: row for row in mlsysym.sensitivity(equal, "speedup")}
    assert rows["compiled_rate"].elasticity == pytest.approx(1.0, rel=1e-12)  # speedup = c / e
    assert rows["eager_rate"].elasticity == pytest.approx(-1.0, rel=1e-12)
    with pytest.raises(InfeasibleError, match="compiled path faster than eager"):
        mlsysym.sensitivity(equal, "breakeven_items")
