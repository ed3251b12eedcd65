"""A published training run: its compute spread over its accelerators and days, against their peak."""

from symbolic.catalog import Hardware, Models
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.model import Input, Instance, Node, Output, Question, Scenario, Series, Sweep, WorkloadInput, decades


class PublishedRunScenario(Scenario):
    """A published training run: its total compute spread over its accelerators and days.

    The run's compute (the published `training_ops`, else 6·P·D) over its accelerator-time
    (stated, else the published accelerator count times the published days) is the rate each
    accelerator delivered on average; over the accelerator's headline peak, the share of
    peak the run sustained. Accelerator-time at a per-device power gives the energy.
    """

    assumptions = "Every accelerator of the run was busy for the whole run; power is constant per device."
    excludes = "Cooling and PUE, idle and failed accelerators, and compute spent on abandoned runs."
    references = (
        "Brown et al., Language models are few-shot learners, NeurIPS 2020 (GPT-3: 3.14e23 FLOPs).",
        "Patterson et al., Carbon emissions and large neural network training, arXiv:2104.10350, 2021 (GPT-3 on "
        "10,000 V100s for 14.8 days).",
    )
    differs = {
        "accelerator_hours": "when not given, the published accelerators times the published days, and the run's "
                             "compute over it as in the reference; the reference then reads `training_ops` only, so "
                             "a workload stating tokens but no `training_ops` fails there and uses 6PD here.",
        "energy": "available without stated hours too (the published accelerator-time at `device_power`); the "
                  "reference needs both stated.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt3PublishedRun
>>> round(s.achieved_rate.magnitude, 4)
24.5558
>>> round(s.peak_fraction, 4)
0.1964
"""

    main_outputs = ("achieved_rate", "peak_fraction")
    chart = Sweep(
        instance="Gpt3PublishedRun", input="accelerator_hours", values=decades(5, 8),
        series=(Series("achieved_rate", "average delivered rate"),),
        xlabel="accelerator-hours", ylabel="rate per accelerator [TFLOP/s]",
        caption="GPT-3's 3.14e23 FLOPs spread over more accelerator-hours: the rate each accelerator delivered falls "
                "in proportion.")
    questions = (Question(solve_for="accelerator_hours", where="peak_fraction", equals="1/2"),)

    workload = WorkloadInput(TransformerWorkload, requires=("parameters",),
                             doc="The model: its published training compute (or P and D) and reference fleet and days.")
    accelerator = Node(doc="The accelerator of the run: its headline peak rate is read.")
    accelerator_hours = Input("h", positive=True,
                              default=workload.training_accelerators_ref * workload.training_days_ref, symbol="H",
                              doc="Accelerator-time of the run; else the published accelerators times days.")
    device_power = Input("W", positive=True, default=None, symbol="W_d",
                         doc="Power of one accelerator; optional, needed by `energy`.")

    training_operations = Output(workload.training_compute, "flop", symbol="C",
                                 doc="The run's compute: the published `training_ops`, else the estimate of six "
                                     "FLOPs per parameter per token.")
    achieved_rate = Output(training_operations / accelerator_hours, "TFLOP/s",
                           doc="Average rate each accelerator delivered.")
    energy = Output(accelerator_hours * device_power, "GWh", doc="Accelerator-time at the per-device power.")
    peak_fraction = Output(achieved_rate / accelerator.peak_flops, doc="Delivered over headline peak rate.")


Gpt3PublishedRun = Instance(
    PublishedRunScenario,
    name="GPT-3 175B as trained",
    description="GPT-3's published 3.14e23 FLOPs on 10,000 V100s over 14.8 days.",
    workload=Models.Language.GPT3,
    accelerator=Hardware.Cloud.V100,
)
