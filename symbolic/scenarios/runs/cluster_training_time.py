"""A workload's published training compute on n devices: time, steps, energy and rental cost."""

from symbolic.catalog import Constants, Hardware, Models, Systems
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.model import (
    Input, Instance, Node, Output, Precision, Question, Scenario, Series, Sweep, WorkloadInput, powers_of_two,
)

class ClusterTrainingTimeScenario(Scenario):
    """Training `workload` on `n_devices` × `hardware` at one end-to-end utilization (compute-bound).

    The workload's published training compute C, over n devices each delivering a fraction η
    of its peak rate p, takes C/(n·p·η). With a step of `tokens_per_step` tokens (the model's
    training FLOPs per token each, 6·P_tok: the 6PD rule at the parameters that work on a
    token) the run becomes steps; with an hourly price, its device-hours become
    a rental cost; every device drawing its TDP for the whole run gives the energy.
    """

    assumptions = "Compute-bound at one utilization for the whole run; every device draws its TDP throughout."
    excludes = "Communication, failures and restarts (see the training-run scenario), cooling and PUE, storage."
    references = (
        "Kaplan et al., Scaling laws for neural language models, arXiv:2001.08361, 2020 (6 FLOPs per parameter "
        "per token).",
        "Narayanan et al., Efficient large-scale language model training on GPU clusters using Megatron-LM, SC 2021 "
        "(training time = 6PD / (n·p·utilization)).",
    )
    differs = {
        "training_tokens": "a mixture of experts is priced at its active parameters (6·P_a FLOPs per token, the "
                           "record's `training_flops_per_token`); the reference divides by 6·P with every expert, "
                           "which gives a mixture of experts P/P_a too few tokens (Mixtral-8x7B: 3.6×).",
        "step_operations": "6·P_tok·B_t at the parameters that work on a token (the reference: 6·P with every "
                           "expert); `steps` follows.",
        "peak_rate": "in TFLOP/s for every node and precision; the reference returns the rate as stored (TFLOPs/s, "
                     "TOPS, ...).",
        "peak_precision": "a key the node does not list is refused naming the listed ones (the reference raises a bare "
                          "KeyError); `None` or left out reads the headline peak, as in the reference.",
        "efficiency": "within (0, 1] for every output; the reference does not check it in `delivered_rate`.",
        "hourly_price": "a price per time in dollars; another currency is not silently read as dollars.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt3TrainingTime1KA100
>>> round(s.training_time.magnitude, 3)
25.278
>>> round(Scenarios.Gpt2XlRunOnOneH100.rental_cost.magnitude, 2)
3370.41
"""

    main_outputs = ("training_time", "device_hours", "energy")
    chart = Sweep(
        instance="Gpt3TrainingTime1KA100", input="n_devices", values=powers_of_two(15),
        series=(Series("training_time", "training time"),),
        xlabel="A100s", ylabel="training time [d]",
        caption="GPT-3's 3.14e23 FLOPs on A100s at 45 percent utilization: the time halves with every doubling.")
    questions = (Question(solve_for="n_devices", where="training_time", equals="30 d"),)

    workload = WorkloadInput(TransformerWorkload, requires=("parameters",),
                             doc="The model: its published `training_ops` C and training FLOPs per token are read.")
    hardware = Node(doc="The accelerator: its peak rate and (for the energies) TDP.")
    n_devices = Input(integer=True, positive=True, symbol="n", doc="Accelerators training together.")
    efficiency = Input(positive=True, at_most=1, symbol=r"\eta", doc="End-to-end utilization: delivered over peak.")
    tokens_per_step = Input(integer=True, positive=True, default=None, symbol="B_t",
                            doc="Tokens of one optimizer step; optional, needed by the step outputs.")
    hourly_price = Input("USD/h", positive=True, default=None, symbol="c_h",
                         doc="Rental price of one device-hour; optional, needed by `rental_cost`.")
    peak_precision = Precision(hardware, default="peak",
                               doc="Key of the node's rates; `peak` (default, or None) is its headline peak.")

    peak_rate = Output(hardware.peak, "TFLOP/s", symbol="p", doc="Peak rate of one device.")
    delivered_rate = Output(n_devices * peak_rate * efficiency, "TFLOP/s", doc="Rate the devices deliver together.")
    training_time = Output(workload.training_ops / delivered_rate, "d", symbol="T", doc="The run's wall-clock time.")
    training_tokens = Output(workload.training_ops / workload.training_flops_per_token,
                             doc="Tokens the published compute covers at the model's training FLOPs per token.")
    step_operations = Output(workload.training_flops_per_token * tokens_per_step, "TFLOP", symbol="S",
                             doc="FLOPs of one step: the forward and backward passes for each token of the batch.")
    step_time = Output(step_operations / delivered_rate, "s", doc="Time of one step.")
    steps = Output(workload.training_ops / step_operations, doc="Steps in the run.")
    energy = Output(n_devices * hardware.tdp * training_time, "kWh", doc="Every device at its TDP for the run.")
    step_energy = Output(n_devices * hardware.tdp * step_time, "J", doc="Every device at its TDP for one step.")
    device_hours = Output(n_devices * training_time, "h", doc="Device-hours of the run.")
    rental_cost = Output(device_hours * hourly_price, "USD", doc="Device-hours at the hourly price.")


_gpt2, _gpt3 = Models.Language.GPT2, Models.Language.GPT3

Gpt2XlRunOnOneH100 = Instance(
    ClusterTrainingTimeScenario,
    name="GPT-2 XL's training run on one H100",
    description="GPT-2 XL's 1.5e21 FLOPs on one H100 at 50 percent utilization, steps of 32 sequences of 1024 "
                "tokens, at 4 dollars per device-hour.",
    workload=_gpt2,
    hardware=Hardware.Cloud.H100,
    n_devices=1,
    efficiency=Constants.Training.MfuHigh,
    tokens_per_step=32 * _gpt2.context_length,
    hourly_price=Constants.Pricing.GpuTrainingPerHour,
)
Gpt2XlRunOnOneDgxH100 = Gpt2XlRunOnOneH100.variant(
    name="GPT-2 XL's training run on one DGX H100",
    description="The same run on the eight H100s of one DGX H100.",
    n_devices=Systems.Nodes.DGX_H100.accelerators_per_node,
)
Gpt2XlRunOnOneH100Fp32 = Gpt2XlRunOnOneH100.variant(
    name="GPT-2 XL's training run on one H100 at its FP32 rate",
    description="The one-H100 run priced at the H100's FP32 rate (67 TFLOP/s) instead of its dense 16-bit peak.",
    peak_precision="fp32",
)
Gpt2XlRunOnOneH100Tf32 = Gpt2XlRunOnOneH100.variant(
    name="GPT-2 XL's training run on one H100 at its TF32 rate",
    description="The one-H100 run priced at the H100's TF32 rate (494.5 TFLOP/s).",
    peak_precision="tf32",
)
Gpt3TrainingTime1KA100 = Instance(
    ClusterTrainingTimeScenario,
    name="GPT-3's training run on 1,024 A100s",
    description="GPT-3's published 3.14e23 FLOPs on 1,024 A100s at 45 percent utilization.",
    workload=_gpt3,
    hardware=Hardware.Cloud.A100,
    n_devices=Systems.Clusters.Training_1K.total_accelerators,
    efficiency=0.45,
)
Gpt3TrainingTime1KA100HigherUtilization = Gpt3TrainingTime1KA100.variant(
    name="GPT-3's training run on 1,024 A100s at 60 percent utilization",
    description="The same run with the utilization raised from 45 to 60 percent.",
    efficiency=0.60,
)
