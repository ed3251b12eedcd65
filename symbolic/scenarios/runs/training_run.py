"""A training run on a fleet: from the time at peak to the delivered wall-clock time."""

from symbolic.catalog import Constants, Models, Systems
from symbolic.catalog.workloads import TransformerWorkload
from symbolic.model import (
    Group, Input, Instance, Len, ListInput, Node, Output, PerItem, Precision, Product, Question, Scenario, Series,
    Sweep, WorkloadInput, index,
)

j = index("j", "stage")
i = index("i", "stage")


class TrainingRunScenario(Scenario):
    """Training `workload` on `fleet`: from time at peak to delivered wall-clock time.

    The run's 6PD FLOPs on every accelerator of the fleet at its peak take the peak time;
    divided by the local efficiency (utilization of one device) and then by the scaling
    efficiency (what communication and synchronisation leave at this scale), the scaled
    time; each overhead (checkpointing, failures, maintenance, ...) then adds its share of
    the subtotal before it.
    """

    assumptions = "Efficiencies and overheads are fixed shares of the run; every accelerator of the fleet trains."
    excludes = "Data loading, evaluation runs, and restarts beyond the stated failure overhead."
    references = (
        "Kaplan et al., Scaling laws for neural language models, arXiv:2001.08361, 2020 (6 FLOPs per parameter "
        "per token).",
        "Narayanan et al., Efficient large-scale language model training on GPU clusters using Megatron-LM, SC 2021.",
    )
    differs = {
        "result.total_flops": "6·P_tok·D with the record's training FLOPs per token: a mixture of experts at its "
                              "active parameters (DeepSeek-V3: 6·3.7e10·1.48e13 = 3.29e24 flop), where the reference "
                              "writes 6·P with every expert (6·6.71e11·1.48e13 = 5.96e25, 18× more).",
        "precision": "the default `fp8|peak` reads the accelerator's fp8 rate, else its headline peak, as the "
                     "reference does silently (an A100 fleet is priced at its 312 TFLOP/s 16-bit headline; the "
                     "hardware page lists the names each node answers to). A key the user gives that the "
                     "accelerator does not list is refused naming the listed ones, where the reference falls back "
                     "to the peak.",
        "scaling_efficiency": "within (0, 1] like `local_efficiency`; the reference checks neither bound of it (0 "
                              "divides by zero, 1.5 makes the run faster than compute).",
        "overheads": "each at least 0: the reference accepts negative overheads (−1 makes the run take no time).",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Gpt3PretrainingFrontier8K.result
>>> round(r.total_time.magnitude, 3)
25.48
>>> round(r.delivered_fraction, 4)
0.2118
"""

    main_outputs = ("result.total_time", "result.delivered_fraction")
    chart = Sweep(
        instance="Gpt3PretrainingFrontier8K", input="scaling_efficiency", values=tuple(k / 20 for k in range(4, 21)),
        series=(Series("result.total_time", "wall-clock"), Series("result.scaled_time", "before overheads", dashed=True),
                Series("result.peak_time", "at peak", dashed=True)),
        xlabel="scaling efficiency", ylabel="time [h]",
        caption="GPT-3 on 8,192 H100s at FP8: the wall-clock time against the scaling efficiency, with the time "
                "at peak and before the overheads.", logy=False)
    questions = (Question(solve_for="scaling_efficiency", where="result.total_time", equals="24 h"),)

    workload = WorkloadInput(TransformerWorkload, requires=("parameters", "training_tokens"),
                             doc="The model: its parameter count P and training tokens D are read.")
    fleet = Node(fleet=True, doc="The fleet (or one node): its accelerator's peak rate and how many there are.")
    precision = Precision(fleet, default="fp8|peak",
                          doc="Key of the accelerator's rates the run is priced at (default: its fp8 rate, else its "
                              "headline peak).")
    local_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_l", doc="Utilization of one device.")
    scaling_efficiency = Input(positive=True, at_most=1, symbol=r"\eta_s",
                               doc="Share of the local rate left at the fleet's scale.")
    overheads = ListInput(nonnegative=True, keyed=True, min_length=0, symbol="f",
                          doc="Overheads by name, in order; each adds its share of the subtotal before it.")

    result = Group(doc="The run's times, as the reference's TrainingRunResult.")
    with result:
        total_flops = Output(workload.training_flops_per_token * workload.training_tokens, "flop", symbol="F",
                             doc="The run's training FLOPs, over all its training tokens.")
        peak_time = Output(total_flops / (fleet.accelerators * fleet.peak), "h",
                           doc="Every accelerator at its peak.")
        compute_time = Output(peak_time / local_efficiency, "h", doc="At the local efficiency.")
        scaled_time = Output(compute_time / scaling_efficiency, "h", symbol="t_0",
                             doc="At the scaling efficiency too.")
        stage_times = PerItem(scaled_time * Product(1 + overheads[i], (i, 0, j)), (j, 0, Len(overheads) - 1), "h",
                              keys=overheads, doc="The subtotal after each overhead, in order.")
        total_time = Output(scaled_time * Product(1 + overheads[i], (i, 0, Len(overheads) - 1)), "h",
                            doc="Wall-clock time: the subtotal after the last overhead.")
        delivered_fraction = Output(peak_time / total_time, doc="Time at peak over wall-clock time.")


_overheads = Constants.TrainingRunOverheads

Gpt3PretrainingFrontier8K = Instance(
    TrainingRunScenario,
    name="175B pretraining on 8,192 H100s",
    description="GPT-3's 6PD FLOPs at FP8 on the 8,192 H100s of the Frontier cluster, at 45 percent local and 56 "
                "percent scaling efficiency, with checkpoint, failure and maintenance overheads.",
    workload=Models.Language.GPT3,
    fleet=Systems.Clusters.Frontier_8K,
    precision="fp8",
    local_efficiency=Constants.TrainingScaleProfiles.LocalComputeEfficiency,
    scaling_efficiency=Constants.TrainingScaleProfiles.Eff8192Gpu,
    overheads={"checkpoint": _overheads.Checkpoint, "failures": _overheads.FailureRecovery,
               "maintenance": _overheads.Maintenance},
)
