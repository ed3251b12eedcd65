"""A tensor × pipeline × data-parallel layout of one training step: time, efficiency and state per device."""

from symbolic.catalog import Constants, Hardware, Models, Systems, storage_widths
from symbolic.model import (
    Choice, Echo, Exceeds, Fits, Group, Input, Instance, Max, Min, Node, Output, Precision, Q, Question, Rational, Scenario,
    Series, Sub, Sweep, WorkloadInput, ceiling, floor, flop, powers_of_two, unit_constant,
)
from symbolic.scenarios.distributed.pipeline_schedule import PipelineScheduleScenario

# Mixed-precision Adam per parameter (catalog MixedPrecisionAdam): 16-bit weight and gradient (4 byte), FP32
# master weight and two moments (12 byte), 16 byte in all. A ring AllReduce over a large group sends 2 bytes per
# gradient byte (catalog Communication.RingAllreduceFactor).
WEIGHT_AND_GRADIENT_BYTES = 4
OPTIMIZER_STATE_BYTES = 12
LARGE_RING_FACTOR = 2


class ParallelLayoutScenario(Scenario):
    """One optimizer step of `workload` on t × p × d devices: tensor, pipeline and data parallelism.

    The step's φ·P_tok·D FLOPs (P_tok: the parameters that work on a token, the active ones of
    a mixture of experts) spread over all N = t·p·d devices at a fraction η of their peak;
    that compute time τ is rounded to the nearest `window_resolution`. The pipeline's bubble
    (the contained pipeline schedule of p stages and m micro-batches) stretches it to
    τ/(1 − bubble). Each data-parallel replica then AllReduces its 1/(t·p) share of the
    gradients over its link, at the large-group ring factor 2; overlap hides up to a
    fraction ω of that AllReduce behind compute, and the rest is exposed. Mixed-precision
    Adam state is 16 bytes per parameter, split t·p ways, or with ZeRO stage 1 its 12
    optimizer bytes split d ways more. A layout runs only if at least its ZeRO-1 state fits in
    a device's memory C (`fits_zero1`); its times and efficiencies exist only then. `fits`
    says whether the state fits without ZeRO.
    """

    assumptions = ("Even split of FLOPs, state and gradients; a ring AllReduce at the large-group factor 2 whenever "
                   "there are at least two replicas; overlap hides at most ω of it and never more than the compute; "
                   "mixed-precision Adam (16 byte per parameter).")
    excludes = ("Tensor- and pipeline-parallel communication, activation memory, start-up latency, interleaved "
                "pipeline stages.")
    references = (
        "Narayanan et al., Efficient large-scale language model training on GPU clusters using Megatron-LM, SC 2021.",
        "Rajbhandari et al., ZeRO: memory optimizations toward training trillion parameter models, SC 2020 "
        "(16 bytes per parameter; stage 1 partitions the 12 optimizer bytes).",
        "Huang et al., GPipe: efficient training of giant neural networks using pipeline parallelism, NeurIPS 2019.",
    )
    differs = {
        "precision": "the default `fp8|peak` reads the node's fp8 rate, else its headline peak (an A100 at its "
                     "312 TFLOP/s 16-bit headline), so every catalog node can be laid out; the reference's `fp8` "
                     "raises KeyError on a node without that key. A key the user gives is refused when the node "
                     "does not list it.",
        "result.step_flops": "φ·P_tok·D with the record's parameters per token: a mixture of experts at its active "
                             "parameters (its state and gradients stay at every parameter); the reference writes "
                             "φ·P·D with every expert (Mixtral-8x7B: 3.6× too many FLOPs).",
        "allreduce_time": "0 with one replica (d = 1): there is nothing to reduce across replicas. The reference "
                          "charges the full AllReduce even then (14 s per step for GPT-3 with d = 1), although its "
                          "own ring_bytes is 0.",
        "overlap_share": "ω with one replica (the limit of hidden/AllReduce as the AllReduce vanishes), where the "
                         "reference's value belongs to the AllReduce it wrongly charges.",
        "window_resolution": "optional as in the reference, but left out it means no rounding by construction: it "
                             "defaults to the unrounded compute time, which rounds to itself.",
        "fits_zero1": "a layout whose ZeRO-1 state exceeds a device's memory does not run: its times, efficiencies "
                      "and MFU are refused (InfeasibleError; NaN in a sweep), where the reference prices them. Two "
                      "registry entries no longer have them (C = 80 GB, the reference's label of the H100; its true "
                      "80 GiB = 85.9 GB refuses them too): Gpt3DataParallel1K, ZeRO-1 state 4·175e9 + 12·175e9/1024 "
                      "byte = 702.05 GB > 80 GB (step 14.0 s, efficiency 0.15 → does not fit); "
                      "Gpt3TensorDataParallel1K, 4·175e9/8 + 12·175e9/1024 byte = 89.55 GB > 80 GB (step 2.5375 s, "
                      "efficiency 0.8276 → does not fit). The 3D layouts fit with ZeRO-1 (23.93 GB and 5.60 GB) and "
                      "keep their values.",
        "device_memory": "defaults to the accelerator's capacity, so `min_devices_for_state` always has a value (the "
                         "reference's is None without it) and the state is checked against the device it runs on.",
        "compute_time": "rounds to the nearest multiple of the window, at least one window, ties up. The reference "
                        "rounds a compute shorter than half a window to 0 s (then the efficiency is 0 or undefined) "
                        "and ties to even; a power-of-ten window it rounds to decimal places, the same value up to "
                        "the last bit.",
    }
    examples = """\
>>> from generated import Scenarios
>>> r = Scenarios.Gpt3ThreeDParallel1K.result
>>> r.n_devices, r.compute_time, r.allreduce_time
(1024, <Quantity(2.1, 'second')>, <Quantity(0.4375, 'second')>)
>>> round(r.bubble, 6), round(r.efficiency, 6)
(0.085714, 0.872727)
>>> s = Scenarios.Gpt3DataParallel1K
>>> s.result.min_devices_for_state, s.fits_zero1, s.fits_zero1_need
(35, False, <Quantity(702.050781, 'gigabyte')>)
"""

    main_outputs = ("result.step_time", "result.efficiency", "result.zero1_state_per_device", "fits_zero1")
    chart = Sweep(
        instance="Gpt3ThreeDParallel1K",
        input="microbatches",
        values=powers_of_two(8),
        series=(Series("result.step_time", "step time"),
                Series("result.compute_time", "compute (no bubble)", dashed=True),
                Series("result.exposed_time", "exposed AllReduce", dashed=True)),
        xlabel="micro-batches per step m",
        ylabel="time [s]",
        caption="GPT-3 on 1024 H100s as 8 × 4 × 32: more micro-batches shrink the bubble of the 4-stage pipeline "
                "towards the 2.1 s of compute plus the exposed quarter of the AllReduce.")
    questions = (Question(solve_for="link_bandwidth", where="result.allreduce_time", equals="result.compute_time"),)

    workload = WorkloadInput(requires=("parameters",),
                             doc="The model: its parameter count P (state, gradient bytes) and the parameters that "
                                 "work on a token, P_tok (FLOPs).")
    tp_size = Input(integer=True, positive=True, default=1, symbol="t", doc="Tensor-parallel width.")
    pp_size = Input(integer=True, positive=True, default=1, symbol="p", doc="Pipeline stages.")
    dp_size = Input(integer=True, positive=True, symbol="d", doc="Data-parallel replicas.")
    microbatches = Input(integer=True, positive=True, default=1, symbol="m", doc="Micro-batches per step.")
    batch_tokens = Input(positive=True, symbol="D", doc="Tokens per optimizer step.")
    flops_per_param_token = Input(positive=True, symbol=r"\varphi", doc="Training FLOPs per parameter per token (6).")
    accelerator = Node(doc="The accelerator: its rate at `precision` is read.")
    precision = Precision(accelerator, default="fp8|peak",
                          doc="Key of the node's rates pricing the FLOPs (default: its fp8 rate, else its headline "
                              "peak).")
    local_efficiency = Input(positive=True, at_most=1, symbol=r"\eta", doc="Share of the peak rate attained, in (0, 1].")
    link_bandwidth = Input("GB/s", positive=True, symbol=r"\beta", doc="Each device's data-parallel link bandwidth.")
    overlap_fraction = Input(nonnegative=True, at_most=1, symbol=r"\omega",
                             doc="Largest share of the AllReduce overlap may hide behind compute, in [0, 1].")
    gradient_precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="w_g",
                                doc="Storage precision of the gradients AllReduced.")

    P, P_tok, R = workload.parameters, workload.parameters_per_token, accelerator.peak
    t, p, d = tp_size, pp_size, dp_size
    unrounded = flops_per_param_token * P_tok * batch_tokens * flop / (t * p * d * R * local_efficiency)
    window_resolution = Input("s", positive=True, default=unrounded, symbol="r",
                              doc="Window the compute time is rounded to; by default the compute time itself "
                                  "(no rounding).")
    device_memory = Input("GB", positive=True, default=accelerator.capacity, symbol="C",
                          doc="Memory of one device, which the state must fit (`fits_zero1`, `fits`) and "
                              "`min_devices_for_state` divides; by default the accelerator's capacity.")

    n_devices = Output(t * p * d, symbol="N", doc="Devices of the layout: one per combination of tensor, pipeline "
                                                  "and data-parallel rank.")
    pipeline = Sub(PipelineScheduleScenario, public=False, stages=pp_size, microbatches=microbatches)

    result = Group(Echo(n_devices), doc="The step's time, efficiency and state per device.")
    with result:
        step_flops = Output(flops_per_param_token * P_tok * batch_tokens * flop, "flop",
                            doc="FLOPs of the step: the FLOPs-per-parameter-per-token rule over the parameters that work "
                                "on a token and the step's tokens.")
        compute_time = Output(window_resolution * Max(1, floor(step_flops / (n_devices * R * local_efficiency)
                                                                 / window_resolution + Rational(1, 2))),
                              "s", symbol=r"\tau",
                              doc="The step's FLOPs at the fleet's attained rate, rounded to the nearest multiple of the "
                                  "timing window (at least one window), as the reference measures it.")
        gradient_bytes = Output(workload.size_in_bytes(gradient_precision), "GB",
                                doc="Gradient bytes of the model at the gradient precision, G.")
        dp_shard = Output(gradient_bytes / (t * p), "GB", doc="Gradient bytes one device holds: its "
                                                                            "tensor- and pipeline-parallel share of the "
                                                                            "model's gradients.")
        ring_bytes = Output(2 * (d - 1) / d * dp_shard, "GB",
                            doc="Bytes an exact ring AllReduce sends per device over the data-parallel group.")
    full_allreduce_time = Output(LARGE_RING_FACTOR * dp_shard / link_bandwidth, "s", symbol="c_1",
                                 doc="One AllReduce of a device's gradient shard at the large-group ring factor "
                                     "(twice the shard), at the link bandwidth.")
    with result:
        allreduce_time = Output(Exceeds(d, 1) * full_allreduce_time, "s", symbol="c",
                                doc="The step's AllReduce: c₁ with at least two replicas, 0 with one.")
        hidden_time = Output(Min(overlap_fraction * allreduce_time, compute_time), "s",
                             doc="AllReduce time hidden behind compute: its overlappable share, but never more than the "
                                 "compute it hides behind.")
        exposed_time = Output(Max((1 - overlap_fraction) * allreduce_time, allreduce_time - compute_time), "s",
                              doc="AllReduce time left exposed: what overlap cannot hide, added to the step.")
        bubble = Output(pipeline.bubble, doc="Idle share of the pipeline: the fill and drain slots over "
                                                           "all slots of the step.")
        step_time = Output(compute_time / (1 - bubble) + exposed_time, "s",
                           doc="Compute stretched by the bubble, plus the exposed AllReduce.")
        efficiency = Output(compute_time / step_time, doc="Compute time over step time.")
        efficiency_no_overlap = Output(compute_time / (compute_time / (1 - bubble) + allreduce_time),
                                       doc="The efficiency with nothing hidden.")
        overlap_share = Output(Exceeds(d, 1) * Min(overlap_fraction, compute_time / full_allreduce_time)
                               + Exceeds(2, d) * overlap_fraction,
                               doc="Share of the AllReduce hidden behind compute; with one replica, the overlap fraction "
                                   "itself (its limit).")
        state_total = Output((WEIGHT_AND_GRADIENT_BYTES + OPTIMIZER_STATE_BYTES) * P * unit_constant("byte"), "GB",
                             doc="Mixed-precision Adam state of the model: 16 bytes per parameter (16-bit "
                                               "weights and gradients, an FP32 master copy and two moments).")
        state_per_device = Output(state_total / (t * p), "GB", doc="Training state per device without "
                                                                                 "ZeRO: the tensor- and "
                                                                                 "pipeline-parallel share of the whole "
                                                                                 "state.")
        zero1_state_per_device = Output((WEIGHT_AND_GRADIENT_BYTES * P / (t * p)
                                         + OPTIMIZER_STATE_BYTES * P / (t * p * d)) * unit_constant("byte"), "GB",
                                        doc="Training state per device with ZeRO stage 1: weights and "
                                                          "gradients sharded by tensor and pipeline rank, the optimizer "
                                                          "state also over the data-parallel replicas.")
        fleet_mfu = Output(local_efficiency * efficiency, doc="Model FLOPs utilisation of the fleet: the "
                                                                            "scaling efficiency on top of each device's "
                                                                            "own.")
        double_counted_mfu = Output(local_efficiency * efficiency * efficiency,
                                    doc="The local efficiency counted twice, a mistake to recognise (the reference's).")
        min_devices_for_state = Output(ceiling(state_total / device_memory),
                                       doc="The fewest devices whose memory holds the state.")
    fits_zero1 = Fits(zero1_state_per_device <= device_memory,
                      "each device's training state with ZeRO stage 1 must fit in its memory", unit="GB",
                      guards=(compute_time, full_allreduce_time))
    fits = Fits(state_per_device <= device_memory,
                "each device's training state without ZeRO must fit in its memory", unit="GB")


Gpt3DataParallel1K = Instance(
    ParallelLayoutScenario,
    name="GPT-3 on 1024 H100s, data parallelism only",
    description="GPT-3 replicated on all 1024 H100s of the reference training cluster, 2M tokens per step at FP8 "
                "and half of peak, gradients AllReduced over NDR InfiniBand with 75 % overlap.",
    workload=Models.Language.GPT3,
    dp_size=Systems.Clusters.Training_1K.total_accelerators,
    batch_tokens=2e6,
    flops_per_param_token=Constants.Chinchilla.ComputeConstant,
    accelerator=Hardware.Cloud.H100,
    precision="fp8",
    local_efficiency=0.5,
    link_bandwidth=Systems.Fabrics.InfiniBand_NDR.bandwidth,
    overlap_fraction=0.75,
    gradient_precision="fp16",
    window_resolution=Q("0.1 s"),
    # The H100's 80 GiB read as 80 decimal GB, as the reference labels it.
    device_memory=Q(Hardware.Cloud.H100.memory_capacity.to("GiB").magnitude, "GB"),
)
_gpus_per_node = Systems.Nodes.DGX_H100.accelerators_per_node
Gpt3TensorDataParallel1K = Gpt3DataParallel1K.variant(
    name="GPT-3 on 1024 H100s, tensor parallel within each DGX, data parallel across 128",
    description="GPT-3 split 8 ways by tensor parallelism inside each DGX H100 and replicated over 128 nodes.",
    tp_size=_gpus_per_node,
    dp_size=Systems.Clusters.Training_1K.total_accelerators // _gpus_per_node,
)
Gpt3ThreeDParallel1K = Gpt3DataParallel1K.variant(
    name="GPT-3 on 1024 H100s, 8-way tensor × 4-stage pipeline × 32 replicas",
    description="GPT-3 in 3D parallelism: 8-way tensor parallel, 4 pipeline stages fed 32 micro-batches, 32 "
                "data-parallel replicas.",
    tp_size=_gpus_per_node,
    pp_size=4,
    dp_size=Systems.Clusters.Training_1K.total_accelerators // (4 * _gpus_per_node),
    microbatches=32,
)
Gpt3ThreeDParallel16K = Gpt3ThreeDParallel1K.variant(
    name="GPT-3 on 16384 H100s, 8-way tensor × 16-stage pipeline × 128 replicas",
    description="The same 2M-token step spread over 16384 H100s: 16 pipeline stages of 32 micro-batches, 128 "
                "replicas; the bubble and the AllReduce now weigh on a 0.1 s compute.",
    pp_size=16,
    dp_size=128,
)
