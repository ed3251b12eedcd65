"""ClusterTrainingTimeScenario: the six reference entries by hand, optional inputs, bad input, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import (ClusterTrainingTimeScenario, Hardware, MissingInputError, Models, Q_, ScenarioInputError,
                       Scenarios)
from symbolic.scenarios.runs.cluster_training_time import ClusterTrainingTimeScenario as Declared

DAY = 86400.0


def _by_hand(c, p_params, peak, n, eta, tdp, tokens=None, price=None):
    """T = C/(n·p·η); S = 6·P·B_t; energy = n·tdp·T; device-hours n·T; cost = device-hours × price."""
    t = c / (n * peak * eta)
    out = {"peak_rate": peak / 1e12, "delivered_rate": n * peak * eta / 1e12, "training_time": t / DAY,
           "training_tokens": c / (6 * p_params), "energy": n * tdp * t / 3.6e6, "device_hours": n * t / 3600}
    if tokens is not None:
        s = 6 * p_params * tokens
        out |= {"step_operations": s / 1e12, "step_time": s / (n * peak * eta), "steps": c / s,
                "step_energy": n * tdp * s / (n * peak * eta)}
    if price is not None:
        out["rental_cost"] = n * t / 3600 * price
    return out


ENTRIES = [
    ("Gpt2XlRunOnOneH100", (1.5e21, 1.5e9, 989e12, 1, 0.5, 700, 32768, 4.0)),
    ("Gpt2XlRunOnOneDgxH100", (1.5e21, 1.5e9, 989e12, 8, 0.5, 700, 32768, 4.0)),
    ("Gpt2XlRunOnOneH100Fp32", (1.5e21, 1.5e9, 67e12, 1, 0.5, 700, 32768, 4.0)),
    ("Gpt2XlRunOnOneH100Tf32", (1.5e21, 1.5e9, 494.5e12, 1, 0.5, 700, 32768, 4.0)),
    ("Gpt3TrainingTime1KA100", (3.14e23, 175e9, 312e12, 1024, 0.45, 400)),
    ("Gpt3TrainingTime1KA100HigherUtilization", (3.14e23, 175e9, 312e12, 1024, 0.60, 400)),
]
UNITS = {"peak_rate": "TFLOP/s", "delivered_rate": "TFLOP/s", "training_time": "d", "energy": "kWh",
         "device_hours": "h", "step_operations": "TFLOP", "step_time": "s", "step_energy": "J", "rental_cost": "USD"}


@pytest.mark.parametrize(("entry", "args"), ENTRIES)
def test_entries_by_hand(entry, args):
    s = getattr(Scenarios, entry)
    for name, value in _by_hand(*args).items():
        got = getattr(s, name)
        got = got.to(UNITS[name]).magnitude if name in UNITS else got
        assert got == pytest.approx(value, rel=1e-12), name


def test_listed_values():
    """runs.md §3, as listed."""
    listed = {
        "Gpt2XlRunOnOneH100": {"training_time": 35.10841478485563, "delivered_rate": 494.5,
                               "training_tokens": 166666666666.66666, "step_operations": 294.912,
                               "step_time": 0.5963842264914054, "steps": 5086263.020833333,
                               "energy": 589.8213683855746, "step_energy": 417.46895854398383,
                               "device_hours": 842.6019548365352, "rental_cost": 3370.407819346141},
        "Gpt2XlRunOnOneDgxH100": {"training_time": 4.388551848106954, "delivered_rate": 3956.0,
                                  "step_time": 0.07454802831142568, "energy": 589.8213683855746},
        "Gpt2XlRunOnOneH100Fp32": {"peak_rate": 67.0, "training_time": 518.2421227197345, "step_time": 8.80334328358209,
                                   "energy": 8706.46766169154, "device_hours": 12437.810945273628,
                                   "rental_cost": 49751.24378109451},
        "Gpt2XlRunOnOneH100Tf32": {"peak_rate": 494.5, "training_time": 70.21682956971127,
                                   "rental_cost": 6740.815638692282},
        "Gpt3TrainingTime1KA100": {"peak_rate": 312.0, "training_time": 25.278356893663606,
                                   "delivered_rate": 143769.6, "training_tokens": 299047619047.619,
                                   "energy": 248496.3596074707, "device_hours": 621240.8990186767},
        "Gpt3TrainingTime1KA100HigherUtilization": {"training_time": 18.958767670247706, "delivered_rate": 191692.8,
                                                    "energy": 186372.26970560304, "device_hours": 465930.6742640076},
    }
    for entry, values in listed.items():
        s = getattr(Scenarios, entry)
        for name, value in values.items():
            got = getattr(s, name)
            got = got.to(UNITS[name]).magnitude if name in UNITS else got
            assert got == pytest.approx(value, rel=1e-9), (entry, name)
    for name in ("step_operations", "step_time", "steps", "step_energy", "rental_cost"):
        with pytest.raises(MissingInputError):
            getattr(Scenarios.Gpt3TrainingTime1KA100, name)


def test_optional_fields_and_bad_input():
    s = Scenarios.Gpt2XlRunOnOneH100
    with pytest.raises(MissingInputError, match="workload.training_ops"):
        _ = s.variant(workload=Models.Language.Llama2_7B).training_time
    assert s.variant(workload=Models.Language.Llama2_7B).step_operations.to("TFLOP").magnitude == pytest.approx(
        6 * 7e9 * 32768 / 1e12)
    with pytest.raises(MissingInputError, match="hardware.tdp"):
        _ = s.variant(hardware=Hardware.Cloud.Graphcore_GC200).energy
    assert s.variant(hourly_price=Q_(1 / 15, "USD/minute")).rental_cost.magnitude == pytest.approx(3370.407819346141)
    for name, bad in (("n_devices", 0), ("efficiency", 0), ("efficiency", 1.2), ("tokens_per_step", 0),
                      ("hourly_price", -1), ("peak_precision", "xx")):
        with pytest.raises(ScenarioInputError, match=name):
            s.variant(**{name: bad})
    with pytest.raises(ScenarioInputError, match="hourly_price"):
        s.variant(hourly_price=Q_(4, "1/h"))  # a price is money per time


def test_the_thirty_day_question():
    """GPT-3's 3.14e23 FLOPs in 30 days on A100s at 45 %: n = C / (30 d · 312e12 · 0.45) = 862.8 devices."""
    from symbolic.analysis.solving import solve

    answer = solve(Scenarios.Gpt3TrainingTime1KA100, "n_devices", "training_time", Q_(30, "d"))
    assert answer.values == [pytest.approx(3.14e23 / (30 * DAY * 312e12 * 0.45), rel=1e-12)]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 10**5), eta=st.floats(1e-3, 1), tokens=st.none() | st.integers(1, 10**7),
       price=st.none() | st.floats(1e-3, 100), precision=st.sampled_from([None, "fp32", "tf32", "fp8"]))
def test_evaluator_equals_exact_sympy(n, eta, tokens, price, precision):
    s = ClusterTrainingTimeScenario(workload=Models.Language.GPT3, hardware=Hardware.Cloud.H100, n_devices=n,
                                    efficiency=eta, tokens_per_step=tokens, hourly_price=price,
                                    peak_precision=precision)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)
