"""Persistent mixed-precision Adam state of a workload, split by tensor parallelism and ZeRO."""

from symbolic.catalog import Models, Systems
from symbolic.model import (
    Group, Input, Instance, Output, Question, Scenario, Series, Sweep, WorkloadInput, powers_of_two, unit_constant,
)

byte = unit_constant("byte")


class TrainingStateScenario(Scenario):
    """Persistent mixed-precision Adam state of `workload` and its shards.

    Each parameter keeps a 16-bit weight and a 16-bit gradient, an FP32 master copy and two
    FP32 Adam moments (16 bytes in all). Tensor parallelism over `tp_size` devices divides
    every term; ZeRO shards the moments over all `tp_size` × `dp_size` devices.
    `activations` is a stated total for the whole model, divided by tensor parallelism.
    """

    assumptions = ("16-bit weights and gradients, FP32 master weights and two FP32 Adam moments per parameter; "
                   "tensor parallelism splits every tensor evenly; the activations are a stated total.")
    excludes = ("Pipeline parallelism, activation sharding by sequence parallelism, framework buffers, "
                "fragmentation and communication buffers.")
    references = (
        "Micikevicius et al., Mixed precision training, ICLR 2018 (FP16 weights and gradients, FP32 master copy).",
        "Rajbhandari et al., ZeRO: memory optimizations toward training trillion parameter models, SC 2020 "
        "(2 + 2 + 12 bytes per parameter; optimizer-state partitioning).",
        "Shoeybi et al., Megatron-LM: training multi-billion parameter language models using model "
        "parallelism, 2019 (tensor parallelism).",
    )
    differs = {
        "tp_size": "at least 1: the reference divides by zero at 0 (ZeroDivisionError from `result`) and accepts "
                   "negative degrees (negative shares).",
        "dp_size": "at least 1, as `tp_size` (the reference divides by zero at 0).",
        "activations": "a bare number is GB; the reference reads it as bits (200 gives 2.5e-8 GB).",
        "workload": "must have a parameter count: the reference fails with AttributeError on one without (DLRM).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt3TrainingStateTp8
>>> s.result.persistent_state
<Quantity(2800.0, 'gigabyte')>
>>> s.result.tp_total_per_device
<Quantity(375.0, 'gigabyte')>
"""

    main_outputs = ("result.persistent_state", "result.tp_total_per_device",
                    "result.zero_weights_and_moments_per_device")
    chart = Sweep(
        instance="Gpt3TrainingStateTp8", input="tp_size", values=powers_of_two(7),
        series=(Series("result.tp_total_per_device", "state + activations per device"),
         Series("result.tp_offloaded_per_device", "master and moments offloaded", dashed=True),
         Series("result.zero_weights_and_moments_per_device", "weights + ZeRO-sharded moments")),
        xlabel="tensor-parallel degree", ylabel="memory per device [GB]",
        caption="GPT-3's training state per device against the tensor-parallel degree (128-way data parallelism for ZeRO).")
    questions = (Question(solve_for="tp_size", where="result.tp_total_per_device", equals="80 GiB"),)

    workload = WorkloadInput(requires=("parameters",), doc="The model trained (any workload with a parameter count).")
    tp_size = Input(integer=True, positive=True, symbol="t", doc="Tensor-parallel degree: devices splitting each layer.")
    dp_size = Input(integer=True, positive=True, symbol="d", doc="Data-parallel degree: replicas ZeRO shards over.")
    activations = Input("GB", nonnegative=True, symbol="A", doc="Saved activations of the whole model (a stated total).")

    result = Group(activations, doc="The state, its tensor-parallel shares and its ZeRO shards, in GB.")

    with result:
        weights = Output(workload.size_in_bytes(2 * byte), "GB", symbol="W", doc="16-bit weights, 2 bytes per parameter.")
        gradients = Output(weights, "GB", doc="16-bit gradients, the size of the weights.")
        master_weights = Output(workload.parameters * 4 * byte, "GB", symbol="M", doc="FP32 master copy of the weights.")
        adam_moment = Output(master_weights, "GB", doc="One FP32 Adam moment.")
        optimizer_moments = Output(2 * adam_moment, "GB", doc="Both Adam moments.")
        persistent_state = Output(weights + gradients + master_weights + optimizer_moments, "GB", symbol="S",
                                  doc="Weights, gradients, master copy and moments: 16 bytes per parameter.")
        tp_weights_per_device = Output(weights / tp_size, "GB", doc="Weights per tensor-parallel device.")
        tp_gradients_per_device = Output(gradients / tp_size, "GB", doc="Gradients per tensor-parallel device.")
        tp_master_per_device = Output(master_weights / tp_size, "GB", doc="Master copy per tensor-parallel device.")
        tp_moments_per_device = Output(optimizer_moments / tp_size, "GB", doc="Moments per tensor-parallel device.")
        tp_activations_per_device = Output(activations / tp_size, "GB", doc="Activations per tensor-parallel device.")
        tp_total_per_device = Output((persistent_state + activations) / tp_size, "GB",
                                     doc="State and activations per tensor-parallel device.")
        tp_offloaded_per_device = Output((persistent_state + activations - master_weights - optimizer_moments) / tp_size,
                                         "GB", doc="Per device with the master copy and the moments moved to the host.")
        zero_moments_per_device = Output(optimizer_moments / (tp_size * dp_size), "GB",
                                         doc="Optimizer moments per device, sharded by ZeRO over every "
                                                           "tensor- and data-parallel device.")
        zero_moments_per_tp_group = Output(optimizer_moments / dp_size, "GB",
                                           doc="Moments held by one tensor-parallel group under ZeRO.")
        zero_weights_and_moments_per_device = Output(tp_weights_per_device + zero_moments_per_device, "GB",
                                                     doc="Weights and ZeRO-sharded moments per device "
                                                         "(gradients and master copy not included).")



Gpt3TrainingStateTp8 = Instance(
    TrainingStateScenario,
    name="175B training state under 8-way tensor parallelism",
    description=("GPT-3 (175B) with mixed-precision Adam, tensor parallelism across the 8 GPUs of a DGX H100 "
                 "node, 128-way data parallelism, and 200 GB of saved activations."),
    workload=Models.Language.GPT3,
    tp_size=Systems.Nodes.DGX_H100.accelerators_per_node,
    dp_size=128,
    activations=200,
)
