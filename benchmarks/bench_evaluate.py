"""Time one full evaluation of the training step: raw evaluator vs the Quantity API.

Runs both side by side in one process and prints medians (this machine is noisy, so
compare the ratio, not the absolute numbers). Not part of ``make test``.
"""

from __future__ import annotations

import statistics
import timeit

from generated import MlpTrainingStepScenario, Scenarios
from generated.mlp_training_step import evaluate


def median_seconds(func, number: int, repeat: int = 15) -> float:
    return statistics.median(timeit.repeat(func, number=number, repeat=repeat)) / number


def quantity_api_full_evaluation() -> None:
    """Build the instance from Quantities and read every output, as a user would."""
    scenario = MlpTrainingStepScenario(**inputs)
    for name in MlpTrainingStepScenario._outputs:
        value = getattr(scenario, name)
        if name == "host":
            for inner in value._outputs:
                getattr(value, inner)


if __name__ == "__main__":
    reference = Scenarios.MnistTwoLayerTrainingStepOnH100
    inputs = {name: getattr(reference, name) for name in reference.input_names()}
    args = dict(reference._args)
    raw = median_seconds(lambda: evaluate(**args), number=20000)
    api = median_seconds(quantity_api_full_evaluation, number=200)
    print(f"raw evaluator (all outputs):       {raw * 1e6:8.2f} µs")
    print(f"Quantity API (build + every attr): {api * 1e6:8.2f} µs  ({api / raw:.0f}x raw)")
