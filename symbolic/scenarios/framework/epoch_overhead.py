"""One training epoch on a host CPU and on an accelerator: batched work against fixed overhead."""

from symbolic.catalog import Constants, Hardware
from symbolic.model import (
    Group, Input, Instance, Min, Node, Output, Precision, Question, Require, Scenario, ScenarioInput, Series, Sub,
    Sweep, Table, key, powers_of_two,
)
from symbolic.scenarios.framework.dense_network import DenseNetworkScenario, MnistDenseNetwork


class EpochOverheadScenario(Scenario):
    """One training epoch of `network` on a host CPU and an accelerator: work against fixed overhead.

    Every launched operation pays `dispatch` (the framework's Python-side cost); on the
    accelerator it also pays `launch`. Each machine runs the step's training FLOPs at its
    roofline rate, the lower of its peak and its bandwidth times the forward pass's
    arithmetic intensity, evaluated at the network's batch and at batch 1 (the same
    network, composed twice). `flop_energy` and `dram_energy_per_byte` price arithmetic
    against data movement.
    """

    assumptions = "The dataset supplies an epoch size; per-operation overhead and energy inputs are held fixed."
    excludes = "Measured overlap, dynamic power, and training quality."
    references = (
        "Williams, Waterman and Patterson, Roofline, CACM 52(4), 2009 (attainable rate = min(peak, bandwidth x intensity)).",
        "Horowitz, Computing's energy problem (and what we can do about it), ISSCC 2014 (45 nm energies).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.MnistEpochCpuVersusH100
>>> s.network.result.steps_per_epoch > 0
True
>>> s.result.ops_per_step
12
>>> s.result.work_speedup
67.0
"""

    main_outputs = ("result.total_time[host]", "result.total_time[accelerator]", "result.work_speedup")
    chart = Sweep(
        instance="MnistEpochCpuVersusH100",
        input="network_batch_size",
        values=powers_of_two(12),
        series=(Series("result.total_time[host]", "CPU: total", color="#1f77b4"),
         Series("result.total_time[accelerator]", "accelerator: total", color="#d62728"),
         Series("result.work_time[host]", "CPU: work only", dashed=True, color="#1f77b4"),
         Series("result.work_time[accelerator]", "accelerator: work only", dashed=True, color="#d62728")),
        xlabel="batch size",
        ylabel="epoch time [ms]",
        caption="Epoch time on the CPU and on the accelerator against batch size: per-operation overhead "
        "shrinks with fewer, larger steps, and the accelerator wins only once it does.")
    roofline = {"batch": "batched.result.intensity", "batch 1": "single.result.intensity"}
    questions = (Question(solve_for="launch", where="result.total_time[accelerator]", equals="result.total_time[host]"),)

    network = ScenarioInput(DenseNetworkScenario, doc="The network, its batch and its dataset (which must be given).")
    host = Node(doc="The host CPU.")
    accelerator = Node(doc="The accelerator.")
    precision = Precision(host, accelerator, default="fp32", doc="One precision key, listed by both nodes.")
    dispatch = Input("µs", nonnegative=True, symbol="d", doc="Python dispatch cost per operation (both machines).")
    launch = Input("µs", nonnegative=True, symbol=r"\ell", doc="Kernel launch cost per operation (accelerator).")
    ops_per_layer = Input(integer=True, positive=True, default=4, symbol="n_L",
                          doc="Launched operations per layer and step (default 4, the reference's count: forward, "
                              "backward, ReLU mask, update); eager frameworks issue more (`mlsysym validate --here`).")
    step_overhead = Input("µs", nonnegative=True, default=0, symbol="c_0",
                          doc="Fixed host cost per step beyond its operations (a `backward()` call, the loop); 0 "
                              "by default.")
    dram_energy_per_byte = Input("pJ/byte", positive=True, symbol="e_D", doc="Energy of moving one byte from DRAM.")
    flop_energy = Input("pJ/flop", positive=True, symbol="e_F", doc="Energy of one FLOP.")
    epoch_has_a_batch = Require(network.dataset_training_examples >= network.batch_size,
                                "the network's dataset must have at least batch_size training examples")

    batched = Sub(DenseNetworkScenario, public=False, **network.inputs())
    single = Sub(DenseNetworkScenario, public=False, **network.inputs(batch_size=1))

    result = Group(doc="Per-machine dicts keyed host and accelerator, and the comparisons between them.")
    with result:
        steps = Output(batched.steps_per_epoch, doc="Training steps per epoch.")
        step_flops = Output(batched.training_step_flops, "flop", doc="Training FLOPs of one step.")
        ops_per_step = Output(ops_per_layer * batched.layers,
                              doc="Launched operations per step: every layer's forward and backward kernels, the ReLU "
                                  "masks between layers, the loss and the update.")
        k = key("k")  # a machine: host or accelerator
        peak = Table({"host": host.peak, "accelerator": accelerator.peak}, "flop/s",
                     doc="Peak rate at `precision`.")
        bandwidth = Table({"host": host.bandwidth, "accelerator": accelerator.bandwidth}, "byte/s",
                          doc="Memory bandwidth.")
        ridge = Table(peak[k] / bandwidth[k], "flop/byte", over=k,
                      doc="Intensity at which the machine turns from memory- to compute-bound.")
        rate_batch1 = Table(Min(peak[k], bandwidth[k] * single.intensity), "flop/s", over=k,
                            doc="Roofline rate at the batch-1 intensity.")
        rate = Table(Min(peak[k], bandwidth[k] * batched.intensity), "flop/s", over=k,
                     doc="Roofline rate at the batch's intensity.")
        batching_speedup = Table(rate[k] / rate_batch1[k], over=k,
                                 doc="How much faster the machine runs work at the batch than at batch 1.")
        work_time = Table(steps * step_flops / rate[k], "ms", over=k,
                          doc="Time of the epoch's training FLOPs at the roofline rate.")
        per_op_cost = Table({"host": dispatch, "accelerator": dispatch + launch}, "µs",
                            doc="Fixed cost of one launched operation.")
        overhead_time = Table(steps * (ops_per_step * per_op_cost[k] + step_overhead), "ms", over=k,
                              doc="Fixed per-operation and per-step cost of the epoch.")
        total_time = Table(work_time[k] + overhead_time[k], "ms", over=k,
                           doc="Work plus overhead (no overlap).")
        work_speedup = Output(work_time["host"] / work_time["accelerator"], doc="Host over accelerator work time.")
        overhead_share_accelerator = Output(overhead_time["accelerator"] / total_time["accelerator"],
                                            doc="Share of the accelerator's epoch spent on fixed overhead.")
        movement_to_arithmetic_energy = Output(dram_energy_per_byte / batched.intensity / flop_energy,
                                               doc="DRAM energy per FLOP over arithmetic energy per FLOP, at the batch.")
        movement_to_arithmetic_energy_batch1 = Output(dram_energy_per_byte / single.intensity / flop_energy,
                                                      doc="The same at batch 1.")


_energy = Constants.Energy

MnistEpochCpuVersusH100 = Instance(
    EpochOverheadScenario,
    name="One MNIST training epoch on a desktop CPU and on an H100, FP32",
    description=("The 784-128-64-10 MNIST classifier at batch 32 for one epoch (1875 steps) on the reference "
                 "desktop CPU and on an H100; one FLOP costs half an FP32 multiply-accumulate of energy."),
    network=MnistDenseNetwork,
    host=Hardware.Cloud.ReferenceCPU,
    accelerator=Hardware.Cloud.H100,
    precision="fp32",
    dispatch=Constants.RuntimeOverheads.PythonDispatch,
    launch=Constants.RuntimeOverheads.KernelLaunch,
    dram_energy_per_byte=_energy.DramPerByte,
    flop_energy=(_energy.Fp32Multiply + _energy.Fp32Add) / 2,
)
