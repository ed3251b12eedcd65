"""Sustained throughput: device-hours planned at peak, paid at a sustained fraction of it."""

from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep


class SustainedThroughputScenario(Scenario):
    """Device-hours planned at peak throughput, run at `sustained_fraction` of that peak.

    A budget planned from peak throughput stretches by the inverse of the fraction of
    peak the run sustains.
    """

    assumptions = "The run sustains one fixed fraction of peak throughput for its whole length."
    excludes = "Failures, restarts and queueing (see the training-run scenario's overheads)."
    references = (
        "Chowdhery et al., PaLM: scaling language modeling with pathways, 2022 (model FLOPs utilization: "
        "sustained over peak throughput).",
    )
    differs = {
        "planned_device_hours": "a time (hours, any time unit accepted) rather than a bare number of hours; a bare "
                                "number is still read as hours, and `required_device_hours` is returned in hours.",
    }
    examples = """\
>>> from generated import Scenarios
>>> Scenarios.PeakPlannedTrainingBudget.required_device_hours
<Quantity(2500.0, 'hour')>
>>> Scenarios.PeakPlannedTrainingBudget.stretch
2.5
"""

    main_outputs = ("required_device_hours", "stretch")
    chart = Sweep(
        instance="PeakPlannedTrainingBudget", input="sustained_fraction", values=tuple(k / 20 for k in range(2, 21)),
        series=(Series("required_device_hours", "device-hours needed"),),
        xlabel="sustained fraction of peak", ylabel="device-hours [h]",
        caption="Device-hours a 1000-hour peak plan really needs against the fraction of peak sustained.")
    questions = (Question(solve_for="sustained_fraction", where="required_device_hours", equals="2000 h"),)

    planned_device_hours = Input("h", nonnegative=True, symbol="H", doc="Device-hours planned at peak throughput.")
    sustained_fraction = Input(positive=True, at_most=1, symbol=r"\sigma",
                               doc="Fraction of peak throughput the run sustains.")

    required_device_hours = Output(planned_device_hours / sustained_fraction, "h",
                                   doc="Device-hours at the sustained throughput.")
    stretch = Output(1 / sustained_fraction, doc="How much longer than planned the run takes.")


PeakPlannedTrainingBudget = Instance(
    SustainedThroughputScenario,
    name="Training budget planned from peak throughput",
    description="1000 device-hours planned at peak, run at 40 percent of peak.",
    planned_device_hours=1000.0,
    sustained_fraction=0.4,
)
