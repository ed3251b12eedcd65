"""One point on a node's roofline: the attainable rate at an arithmetic intensity, and its share of peak."""

from symbolic.catalog import Constants, Hardware, Models
from symbolic.model import (
    Input, Instance, Max, Min, Node, Output, Piecewise, Precision, Q, Question, Scenario, Series, Sweep, literal, powers_of_two,
)


class RooflinePointScenario(Scenario):
    """A workload of `intensity` on `hardware`'s roofline: attainable rate and share of peak.

    A kernel doing I FLOPs per byte of memory traffic runs at most at the node's peak rate
    and at most at its memory bandwidth times I; the smaller bound is the attainable rate.
    The ridge point, peak over bandwidth, is the intensity where the two bounds meet. A
    measured kernel is placed from its achieved rate over its achieved bandwidth instead,
    and its achieved bandwidth over the node's says how close it runs to the memory roof.
    """

    assumptions = ("One level of memory at its peak bandwidth, or the cache level the working set fits in; the "
                   "kernel overlaps its memory traffic and arithmetic.")
    excludes = ("Launch overhead and the host's cost of a call (unless `dispatch` is given), the latency of small "
                "kernels, and caches other than the one given.")
    references = ("Williams, Waterman and Patterson, Roofline: an insightful visual performance model for "
                  "multicore architectures, CACM 52(4), 2009.",)
    bounds = {"bandwidth_utilization": (0, 1)}  # a kernel cannot move more than the node's memory bandwidth
    differs = {
        "bandwidth_utilization": "at most 1: an achieved bandwidth above the node's is refused naming "
                                 "`achieved_bandwidth` (the reference reports a utilisation of 3e29 for one).",
        "peak": "in TFLOP/s for every node; the reference returns the rate as stored (TFLOPs/s, TOPS, PFLOPs/s).",
        "attainable": "in TFLOP/s like `peak` (the reference gives flop/s); the same rate.",
        "precision": "`None` or left out reads the node's headline peak as in the reference; a key the node does "
                     "not list is refused naming the listed ones (the reference raises a bare KeyError).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.KernelAt200FlopPerByteH100
>>> s.attainable
<Quantity(670.0, 'teraflop / second')>
>>> round(s.ridge.magnitude, 4)
295.2239
"""

    main_outputs = ("attainable", "peak_fraction", "ridge")
    chart = Sweep(
        instance="KernelAt200FlopPerByteH100", input="intensity", values=powers_of_two(12),
        series=(Series("attainable", "attainable rate"), Series("peak", "peak", dashed=True)),
        xlabel="arithmetic intensity [flop/byte]", ylabel="rate [TFLOP/s]",
        caption="The H100's roofline at its headline peak: the attainable rate grows with the intensity up to the "
                "ridge near 295 flop/byte, then stays at the peak.")
    questions = (Question(solve_for="intensity", where="memory_roof", equals="peak"),
                 Question(solve_for="intensity", where="peak_fraction", equals="1/2"))
    roofline = {"": "point_intensity"}

    hardware = Node(doc="The node: its peak rate and memory bandwidth.")
    precision = Precision(hardware, default="peak",
                          doc="Key of the node's rates; `peak` (default, or None) is its headline peak.")
    achieved_rate = Input("TFLOP/s", nonnegative=True, default=None, symbol="r_a",
                          doc="Measured rate of the kernel; optional, with `achieved_bandwidth` it places the point.")
    achieved_bandwidth = Input("TB/s", positive=True, default=None, symbol=r"\beta_a",
                               doc="Measured memory bandwidth of the kernel; optional, needed by "
                                   "`bandwidth_utilization`.")
    intensity = Input("flop/byte", nonnegative=True, default=achieved_rate / achieved_bandwidth, symbol="I",
                      doc="FLOPs per byte of memory traffic; else `achieved_rate` / `achieved_bandwidth`.")
    working_set = Input("byte", positive=True, default=None, symbol="S",
                        doc="Bytes the kernel touches; optional, with a cache level it picks the memory roof.")
    cache_capacity = Input("byte", positive=True, default=None, symbol="C",
                           doc="Capacity of a cache level; optional, with `working_set` and `cache_bandwidth`.")
    cache_bandwidth = Input("TB/s", positive=True, default=None, symbol=r"\beta_C",
                            doc="Bandwidth of that cache level (measured: `mlsysym calibrate`); optional.")
    dispatch = Input("µs", nonnegative=True, default=0, symbol="d",
                     doc="Host cost of issuing the kernel once (a Python call on a CPU); 0 by default, as the "
                         "roofline prices none. Used by `kernel_time`.")

    point_intensity = Output(intensity, "flop/byte", doc="The intensity the point sits at.")
    bandwidth_utilization = Output(achieved_bandwidth / hardware.bandwidth,
                                   doc="Achieved over the node's memory bandwidth.")
    peak = Output(hardware.peak, "TFLOP/s", doc="The node's peak rate at `precision`.")
    ridge = Output(peak / hardware.bandwidth, "flop/byte", doc="Peak over bandwidth: where the roof bends.")
    memory_roof = Output(hardware.bandwidth * point_intensity, "TFLOP/s",
                         doc="The memory roof at this intensity: bandwidth times intensity.")
    attainable = Output(Min(peak, memory_roof), "TFLOP/s", doc="The smaller of the peak and the memory roof.")
    level_bandwidth = Output(Piecewise((cache_bandwidth, working_set <= cache_capacity), (hardware.bandwidth, True)),
                             "TB/s", otherwise=hardware.bandwidth,
                             doc="Bandwidth of the memory level the working set fits in: the cache level's when "
                                 "it fits, else (and without a cache level) the node's memory.")
    level_attainable = Output(
        Min(peak, Piecewise((cache_bandwidth, working_set <= cache_capacity), (hardware.bandwidth, True))
            * point_intensity), "TFLOP/s", if_missing="none",
        doc="The attainable rate with the memory roof of the level the working set fits in; None without a "
            "cache level.")
    peak_fraction = Output(attainable / peak, doc="Attainable rate over the peak.")
    kernel_flops = Output(working_set * point_intensity, "flop",
                          doc="FLOPs of one call over the working set, each of its bytes moved once; needs "
                              "`working_set`.")
    kernel_memory_time = Output(
        working_set * Piecewise((1 / cache_bandwidth, working_set <= cache_capacity), (1 / hardware.bandwidth, True)),
        "µs", otherwise=working_set / hardware.bandwidth, symbol="T_m",
        doc="The working set's bytes at the bandwidth of the level they fit in (the node's memory without a cache "
            "level); needs `working_set`.")
    kernel_time = Output(Max(kernel_flops / peak, kernel_memory_time) + dispatch, "µs", symbol="T_k",
                         doc="One call: the longer of its FLOPs at the peak and `kernel_memory_time`, plus "
                             "`dispatch`; needs `working_set`.")
    kernel_rate = Output(kernel_flops / kernel_time, "GFLOP/s",
                         doc="FLOPs per second of one call, its host cost included (what a timed loop of calls "
                             "measures); needs `working_set`.")


_gpt2 = Models.Language.GPT2

Gpt2XlDecodeH100Roofline = Instance(
    RooflinePointScenario,
    name="GPT-2 XL decode on the H100 roofline",
    description="GPT-2 XL's forward FLOPs per token over its FP16 weight bytes (1 flop/byte) on an H100.",
    hardware=Hardware.Cloud.H100,
    intensity=(_gpt2.inference_flops / _gpt2.size_in_bytes(Constants.ByteWidths.FP16)).to("flop/byte"),
)

# The reference takes these two intensities from entries of classes outside this project's specs, so they
# are computed here from the same counts. An unfused LayerNorm over T prefill tokens: 2T FLOPs per (T + 1) bytes,
# at T = 8,192 tokens (8 sequences of GPT-2's 1,024-token window).
_prefill_tokens = _gpt2.context_length * 8
Gpt2XlLayerNormH100Roofline = Gpt2XlDecodeH100Roofline.variant(
    name="GPT-2 XL's unfused LayerNorm in prefill on the H100 roofline",
    description="An unfused LayerNorm of a GPT-2 XL prefill over 8,192 tokens: 2T/(T + 1) ≈ 2 flop/byte, deep in "
                "the memory-bound region.",
    intensity=Q(2 * _prefill_tokens, "flop") / Q(_prefill_tokens + 1, "byte"),
)
# ResNet-50's classifier head at batch B: a B × K by K × N matmul (K = 2,048 pooled features, N = 1,000 ImageNet
# classes), 2BKN FLOPs over the 16-bit weights, inputs and outputs, (KN + BK + BN) values.
_batch, _features, _classes = literal(32), literal(2048), literal(1000)
ResNet50ClassifierHeadH100Roofline = Gpt2XlDecodeH100Roofline.variant(
    name="ResNet-50's classifier head at batch 32 on the H100 roofline",
    description="The 2,048 → 1,000 dense layer of ResNet-50 at batch 32 in FP16: about 30.5 flop/byte, still "
                "memory-bound on an H100.",
    intensity=(Q(2 * _batch * _features * _classes, "flop")
               / ((_features * _classes + _batch * _features + _batch * _classes) * Constants.ByteWidths.FP16)
               ).to("flop/byte"),
)

KernelAt200FlopPerByteA100 = Instance(
    RooflinePointScenario,
    name="A kernel at 200 flop/byte on the A100 roofline",
    description="200 flop/byte is past the A100's ridge (153 flop/byte): compute-bound.",
    hardware=Hardware.Cloud.A100,
    intensity=Q("200 flop/byte"),
)

KernelAt200FlopPerByteH100 = KernelAt200FlopPerByteA100.variant(
    name="A kernel at 200 flop/byte on the H100 roofline",
    description="The same kernel on an H100, whose ridge (295 flop/byte) it does not reach: memory-bound.",
    hardware=Hardware.Cloud.H100,
)

LayerNormMeasuredH100 = Instance(
    RooflinePointScenario,
    name="A measured LayerNorm kernel on the H100 roofline",
    description="A LayerNorm measured at 5 TFLOP/s while moving 2.8 TB/s on an H100.",
    hardware=Hardware.Cloud.H100,
    achieved_rate=Q("5 TFLOP/s"),
    achieved_bandwidth=Q("2.8 TB/s"),
)
