"""The fitted efficiency figures, refitted: each on the runs ``efficiency.toml`` declares, with its
leave-one-out error on them and its error on every other run (``mlsysym validate --fit``).

A fitted figure (``fitted_on`` in ``efficiency.toml``) is the value that minimises the mean absolute
error of the predictions of its declared runs, every other figure held at its catalog value. Each
prediction is a generated scenario evaluated at the run's inputs with the figure changed
(``variant``), so the fit uses the code users run. The mean absolute error of predictions linear or
monotone in one figure is unimodal in it, so a golden-section search finds the minimum.
"""

from __future__ import annotations

import math
from typing import Any

from symbolic.catalog import efficiency_sources
from symbolic.catalog.measurements import EFFICIENCY_INPUTS, TRAINING_EFFICIENCY, load_runs
from symbolic.cli.runs import predicted

GOLDEN = (math.sqrt(5) - 1) / 2


def fitted_figures() -> list[dict[str, Any]]:
    """Every figure of ``efficiency.toml`` declaring ``fitted_on``: section, figure, scenario input, value."""
    inputs = {figure: name for name, figure in {**EFFICIENCY_INPUTS, **TRAINING_EFFICIENCY}.items()}
    out = []
    for section, figures in efficiency_sources().items():
        for figure, entry in figures.items():
            if entry["fitted_on"]:
                out.append({"section": section, "figure": figure, "input": inputs[figure],
                            "value": float(entry["value"]), "fitted_on": entry["fitted_on"], "source": entry["source"]})
    return out


def _errors(instances: list[tuple[Any, str, float]], name: str, value: float) -> list[float]:
    return [getattr(instance.variant(**{name: value}), quantity).to("s").magnitude / measured - 1
            for instance, quantity, measured in instances]


def _mean_abs(errors: list[float]) -> float:
    return sum(abs(e) for e in errors) / len(errors)


def best_value(instances: list[tuple[Any, str, float]], name: str, low: float, high: float,
               integer: bool = False, tolerance: float = 1e-4) -> float:
    """The value in [low, high] minimising the mean absolute error of ``instances`` (golden section)."""
    def cost(x: float) -> float:
        return _mean_abs(_errors(instances, name, round(x) if integer else x))

    a, b = low, high
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = cost(c), cost(d)
    while b - a > tolerance * max(1.0, abs(b)):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = cost(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = cost(d)
    best = (a + b) / 2
    if integer:
        best = min((math.floor(best), math.ceil(best)), key=cost)
    return float(best)


RANGES = {"activation_traffic": (0.0, 50.0, False), "gemm_half_rows": (0.0, 2000.0, True)}


def fit_report() -> list[dict[str, Any]]:
    """Per fitted figure: the catalog value, the refit, and per declared run its error at the catalog value
    and with the figure fitted on the other runs (leave one out)."""
    runs = {run.name: run for run in load_runs()}
    report = []
    for figure in fitted_figures():
        chosen = []
        for name in figure["fitted_on"]:
            run = runs[name]
            quantity = "iteration_time" if run.kind == "training" else "ttft"
            chosen.append((predicted(run), quantity, run.measured[quantity].to("s").magnitude))
        low, high, integer = RANGES[figure["input"]]
        fitted = best_value(chosen, figure["input"], low, high, integer)
        rows = []
        for i, name in enumerate(figure["fitted_on"]):
            others = chosen[:i] + chosen[i + 1:]
            left_out = best_value(others, figure["input"], low, high, integer)
            rows.append({"name": name, "error": _errors([chosen[i]], figure["input"], figure["value"])[0],
                         "fitted_without": left_out,
                         "loo_error": _errors([chosen[i]], figure["input"], left_out)[0]})
        report.append({**figure, "fitted": fitted, "rows": rows,
                       "mean_abs_error": _mean_abs([row["error"] for row in rows]),
                       "loo_mean_abs_error": _mean_abs([row["loo_error"] for row in rows]),
                       "loo_max_abs_error": max(abs(row["loo_error"]) for row in rows)})
    return report
