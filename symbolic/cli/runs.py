"""A measured run as the scenario instance that predicts it (``mlsysym validate`` and its efficiency fits).

The catalog's record types load sympy: only ``mlsysym validate`` (loaded on dispatch) imports this.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import generated
from symbolic.catalog.measurements import MeasurementError, load_runs, scenario_inputs
from symbolic.catalog.refs import value_of


def runs_of(files: list[str], own: bool = True) -> list[Any]:
    """The runs to predict: the project's own (unless ``own`` is false), then each file's, names unique."""
    runs = list(load_runs()) if own else []
    for file in files:
        for run in load_runs(Path(file)):
            clash = next((other for other in runs if other.name == run.name), None)
            if clash is not None:
                raise MeasurementError(f"{run.file}: run {run.name!r}, field 'name': already names a run of "
                                       f"{clash.file}; names must be unique")
            runs.append(run)
    return runs


def predicted(run: Any) -> Any:
    """The run's scenario instance, built from the same inputs as its registry entry."""
    scenario = getattr(generated, run.scenario)
    return scenario(name=run.name, **{key: value_of(value) for key, value in scenario_inputs(run).items()})


def predicted_quantity(instance: Any, run: Any, quantity: str) -> Any:
    """The prediction of one measured quantity: the output of that name, or for ``flops_per_gpu`` (the
    rate each GPU sustained, recomputation counted, as Narayanan et al. report it) the iteration's FLOPs
    over its time and the GPUs."""
    if quantity == "flops_per_gpu":
        return instance.iteration_flops / instance.iteration_time / run.gpus
    return getattr(instance, quantity)
