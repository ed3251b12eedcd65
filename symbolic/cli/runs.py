"""A measured run as the scenario instance that predicts it (``mlsysym validate`` and its efficiency fits).

The catalog's measurement loader is imported on first use (start-up): it reads the record types, which load
sympy, and most commands never read a run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import generated


def runs_of(files: list[str], own: bool = True) -> list[Any]:
    """The runs to predict: the project's own (unless ``own`` is false), then each file's, names unique."""
    from symbolic.catalog.measurements import MeasurementError, load_runs  # start-up: the catalog's record types load sympy

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
    from symbolic.catalog.measurements import scenario_inputs  # start-up: the catalog's record types load sympy
    from symbolic.catalog.refs import value_of  # start-up: the catalog's record types load sympy

    scenario = getattr(generated, run.scenario)
    return scenario(name=run.name, **{key: value_of(value) for key, value in scenario_inputs(run).items()})


def predicted_quantity(instance: Any, run: Any, quantity: str) -> Any:
    """The prediction of one measured quantity: the output of that name, or for ``flops_per_gpu`` (the
    rate each GPU sustained, recomputation counted, as Narayanan et al. report it) the iteration's FLOPs
    over its time and the GPUs."""
    if quantity == "flops_per_gpu":
        return instance.iteration_flops / instance.iteration_time / run.gpus
    return getattr(instance, quantity)
