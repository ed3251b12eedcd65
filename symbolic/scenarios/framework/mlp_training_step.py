"""One eager training step of a one-hidden-layer MLP, operator by operator."""

from symbolic.catalog import Constants, Datasets, Hardware
from symbolic.model import (
    Eq, Input, Instance, Max, Min, Node, Output, Piecewise, Precision, Question, Scenario, Series, Sub, Sweep, Table, flop, key,
    powers_of_two,
)
from symbolic.scenarios.framework.host_dispatch import HostDispatchScenario

FORWARD = ("matmul1", "relu", "matmul2", "loss")
BACKWARD = ("grad_w2", "grad_h", "grad_w1", "relu_backward", "loss_backward")


def _cached_roofline(flops, traffic, peak, efficiency, dram, cache, capacity):
    """Σ over the operators of max(FLOPs at their attained rate, bytes / bandwidth of the level the bytes fit in)."""
    return sum(Max(flops[op] / (peak * efficiency[op]),
                   traffic[op] / Piecewise((cache, traffic[op] <= capacity), (dram, True)))
               for op in FORWARD + BACKWARD)


def _gemm_efficiency(rows, inner, cols, half, half_inner, rank_one):
    """Share of the peak a (rows, inner) x (inner, cols) multiply attains: the lower of what its fewer rows
    or columns and what its inner dimension allow (each on its own half-rate curve), or ``rank_one`` for an
    outer product (inner dimension 1)."""
    few = Min(rows, cols)
    return Piecewise((rank_one, Eq(inner, 1)), (Min(few / (few + half), inner / (inner + half_inner)), True))


class MlpTrainingStepScenario(Scenario):
    """One eager training step of a one-hidden-layer MLP, operator by operator.

    Forward: `x @ W1`, ReLU, `h @ W2`, and a combined cross-entropy loss
    (`loss_flops_per_logit` operations per logit). Backward: the weight gradients of both
    layers and the hidden-activation gradient (raw inputs need no gradient), the ReLU
    derivative, and the loss derivative, which reads saved probabilities and integer labels
    of `label_bytes` each. Bias adds are folded into their matrix multiplies. Every value
    is `bytes_per_value` wide. Times are ideal lower bounds on `hardware`; the host issues
    one Python entry per forward operator plus one for `backward()`, and launches one
    kernel per operator.

    What an eager framework really issues is declared, not assumed: `forward_ops` and
    `backward_ops` default to the four forward and five backward operators above (the
    reference's counts), while eager PyTorch issues more (`mlsysym validate --here` counts
    them); `backward()` runs `autograd_nodes` graph nodes at `backward_per_node` each plus
    `backward_fixed` (zero by default: the reference prices no autograd engine). On a CPU
    `launch` is zero. `step_time` adds to the host term each operator's roofline time, the
    larger of its FLOPs at its attained rate and its bytes at the bandwidth of the level it fits in
    (`cache_bandwidth` when its bytes fit in `cache_capacity`, else DRAM), and the cost of
    results written into freshly mapped memory (`fresh_bytes` at `allocation_cost`). A matrix
    multiply with a small dimension (few rows, or a short inner dimension such as the batch of a
    weight gradient at batch 1-16) starves the BLAS kernel: its share of the peak falls with its
    smallest dimension, to half at `gemm_half_rows` (0 by default: every multiply at the peak); an
    outer product (inner dimension 1) runs at `rank_one_efficiency` of it.
    """

    assumptions = (
        "A dense two-layer network, separate eager operators, and the operation-count "
        "conventions above: a dense multiply costs two FLOPs per multiply-accumulate."
    )
    excludes = ("Cross-operator fusion, cache reuse between operators, optimizer FLOPs, and (unless `gemm_half_rows` "
                "is given) the efficiency of small matrix multiplies below the peak.")
    references = (
        "Williams, Waterman and Patterson, Roofline: an insightful visual performance model "
        "for multicore architectures, CACM 52(4), 2009 (compute and memory time floors).",
    )
    examples = """\
>>> from generated import Scenarios
>>> scenario = Scenarios.MnistTwoLayerTrainingStepOnH100
>>> round(float(scenario.op_flops['matmul1'].magnitude), 4)
6422528.0
>>> scenario.host.overhead_ratio
172.30957747796606
"""

    main_outputs = ("total_flops", "total_bytes", "compute_time", "memory_time", "host.overhead_ratio")
    chart = Sweep(
        instance="MnistTwoLayerTrainingStepOnH100",
        input="batch_size",
        values=powers_of_two(16),
        series=(Series("compute_time", "compute floor: FLOPs at peak"), Series("memory_time", "memory floor: bytes at bandwidth"),
         Series("host.host_time", "host: dispatch and launch")),
        xlabel="batch size",
        ylabel="time per step [µs]",
        caption="Compute, memory and host time of one step against batch size (the registry instance marked): "
        "host work is fixed, so it dominates until the batch is large.")
    roofline = {"": "intensity"}
    questions = (Question(solve_for="batch_size", where="compute_time", equals="memory_time"),)

    batch_size = Input(integer=True, positive=True, symbol="b", doc="Examples per step.")
    input_width = Input(integer=True, positive=True, symbol="i", doc="Input features per example.")
    hidden_width = Input(integer=True, positive=True, symbol="h", doc="Hidden units.")
    output_width = Input(integer=True, positive=True, symbol="o", doc="Output logits (classes).")
    bytes_per_value = Input("byte", positive=True, symbol="v", doc="Width of every stored value.")
    label_bytes = Input("byte", nonnegative=True, symbol="y", doc="Width of one integer label.")
    loss_flops_per_logit = Input(integer=True, nonnegative=True, symbol="c",
                                 doc="Operations per logit of the combined softmax cross-entropy.")
    optimizer_values_moved = Input(integer=True, nonnegative=True, symbol="m",
                                   doc="Values read and written per parameter by one optimizer step (Adam: 7).")
    hardware = Node(doc="The accelerator: its peak rate at `precision` and its memory bandwidth.")
    precision = Precision(hardware, default="fp32", doc="Key into the node's `precision_flops` (exact, case-sensitive).")
    forward_ops = Input(integer=True, nonnegative=True, default=len(FORWARD), symbol="f",
                        doc="Forward operators issued from Python (default: the four above; eager PyTorch issues more).")
    backward_ops = Input(integer=True, nonnegative=True, default=len(BACKWARD), symbol="g",
                         doc="Kernels launched by `backward()` (default: the five above).")
    dispatch = Input("µs", nonnegative=True, symbol="d", doc="Python dispatch cost per operation.")
    launch = Input("µs", nonnegative=True, symbol=r"\ell", doc="Kernel launch cost per kernel (0 on a CPU).")
    autograd_nodes = Input(integer=True, nonnegative=True, default=backward_ops, symbol="N",
                           doc="Graph nodes `backward()` runs; one per backward kernel unless given.")
    backward_fixed = Input("µs", nonnegative=True, default=0, symbol="c_0",
                           doc="Fixed host cost of one `backward()` call (0: not priced, as in the reference).")
    backward_per_node = Input("µs", nonnegative=True, default=0, symbol="c_n",
                              doc="Host cost of the autograd engine per graph node (0: not priced).")
    cache_capacity = Input("byte", positive=True, default=None, symbol="C",
                           doc="Bytes an operator may touch and still run at `cache_bandwidth`; optional.")
    cache_bandwidth = Input("GB/s", positive=True, default=None, symbol=r"\beta_C",
                            doc="Bandwidth of that cache level; optional, with `cache_capacity`.")
    fresh_bytes = Input("byte", nonnegative=True, default=0, symbol="A",
                        doc="Result bytes the step writes into freshly mapped memory (results past the "
                            "allocator's mmap threshold, 32 MiB for glibc); 0 by default.")
    allocation_cost = Input("µs/MB", nonnegative=True, default=0, symbol=r"\alpha",
                            doc="Cost of faulting in and zeroing fresh memory per MB (measured: `mlsysym calibrate`).")
    gemm_half_rows = Input(nonnegative=True, default=0, symbol="M_{1/2}",
                           doc="Smallest matrix-multiply dimension at which the attained rate is half the peak "
                               "(measured: `mlsysym calibrate`); 0 by default, every multiply at the peak.")
    gemm_half_inner = Input(nonnegative=True, default=gemm_half_rows, symbol="K_{1/2}",
                            doc="Inner dimension at which a matrix multiply attains half the peak (a weight "
                                "gradient's is the batch; measured: `mlsysym calibrate`); `gemm_half_rows` by "
                                "default, one curve for every dimension.")
    rank_one_efficiency = Input(positive=True, at_most=1, default=1 / (1 + gemm_half_inner), symbol=r"\eta_1",
                                doc="Share of the peak an outer product (inner dimension 1: a weight gradient at "
                                    "batch 1) attains; BLAS may run it far below the `gemm_half_rows` curve "
                                    "(measured: `mlsysym calibrate`). Default: that curve at 1.")

    b, i, h, o = batch_size, input_width, hidden_width, output_width
    v, y, c = bytes_per_value, label_bytes, loss_flops_per_logit

    op_flops = Table(
        {
            "matmul1": 2 * b * i * h * flop,
            "relu": b * h * flop,
            "matmul2": 2 * b * h * o * flop,
            "loss": c * b * o * flop,
            "grad_w2": 2 * h * b * o * flop,
            "grad_h": 2 * b * o * h * flop,
            "grad_w1": 2 * i * b * h * flop,
            "relu_backward": b * h * flop,
            "loss_backward": 2 * b * o * flop,
        },
        "flop",
        doc="Per-operator FLOPs: a (m,k)x(k,n) multiply costs 2mkn; ReLU one per element, "
        "its derivative one per element; the loss `loss_flops_per_logit` per logit, its derivative two.",
    )
    op_bytes = Table(
        {
            "matmul1": (b * i + i * h + b * h) * v,
            "relu": 2 * b * h * v,
            "matmul2": (b * h + h * o + b * o) * v,
            "loss": 2 * b * o * v,
            "grad_w2": (b * h + b * o + h * o) * v,
            "grad_h": (b * o + h * o + b * h) * v,
            "grad_w1": (b * i + b * h + i * h) * v,
            "relu_backward": 3 * b * h * v,
            "loss_backward": 2 * b * o * v + b * y,
        },
        "byte",
        doc="Per-operator bytes read and written (input values plus output values), each "
        "operator separately; the loss derivative also reads one integer label per example.",
    )
    op_efficiency = Table(
        {
            "matmul1": _gemm_efficiency(b, i, h, gemm_half_rows, gemm_half_inner, rank_one_efficiency),
            "relu": 1,
            "matmul2": _gemm_efficiency(b, h, o, gemm_half_rows, gemm_half_inner, rank_one_efficiency),
            "loss": 1,
            "grad_w2": _gemm_efficiency(h, b, o, gemm_half_rows, gemm_half_inner, rank_one_efficiency),
            "grad_h": _gemm_efficiency(b, o, h, gemm_half_rows, gemm_half_inner, rank_one_efficiency),
            "grad_w1": _gemm_efficiency(i, b, h, gemm_half_rows, gemm_half_inner, rank_one_efficiency),
            "relu_backward": 1,
            "loss_backward": 1,
        },
        doc="Share of the peak each operator's FLOPs run at, a matrix multiply's from its smallest dimension "
            "(elementwise operators: all of it).",
    )
    forward_flops = Output(op_flops.sum(FORWARD), "flop", doc="FLOPs of the forward operators.")
    backward_flops = Output(op_flops.sum(BACKWARD), "flop", doc="FLOPs of the backward operators.")
    forward_bytes = Output(op_bytes.sum(FORWARD), "byte",
                           doc="Bytes of the forward operators, without cross-operator cache reuse.")
    backward_bytes = Output(op_bytes.sum(BACKWARD), "byte", doc="Bytes of the backward operators, without fusion.")
    total_flops = Output(forward_flops + backward_flops, "flop",
                         doc="Forward plus backward FLOPs per batch; optimizer work is not included.")
    total_bytes = Output(forward_bytes + backward_bytes, "byte",
                         doc="Forward plus backward bytes per batch; optimizer traffic is accounted separately.")
    forward_matmuls = op_flops["matmul1"] + op_flops["matmul2"]
    dense_training_ratio = Output(
        (forward_matmuls + op_flops["grad_w2"] + op_flops["grad_h"] + op_flops["grad_w1"]) / forward_matmuls,
        doc="Matrix-multiply work of the whole step over the forward matrix multiplies "
        "(raw inputs need no gradient, so it is below 3).",
    )
    parameters = Output(i * h + h + h * o + o, doc="Trainable scalars: both weight matrices and their biases.")
    optimizer_step_bytes = Output(parameters * optimizer_values_moved * v, "byte",
                                  doc="Bytes moved by one optimizer update.")
    intensity = Output(total_flops / total_bytes, "flop/byte",
                       doc="Arithmetic intensity of the step: FLOPs per byte of tensor traffic.")
    peak_rate = Output(hardware.peak, "TFLOP/s", doc="Peak FLOP/s of `hardware` at `precision`, without derating.")
    compute_time = Output(total_flops / peak_rate, "µs", doc="Ideal time of the step's FLOPs at the peak rate.")
    memory_time = Output(total_bytes / hardware.bandwidth, "µs",
                         doc="Ideal time of the step's tensor traffic at peak memory bandwidth.")
    host = Sub(
        HostDispatchScenario,
        title="Host work of: {name}",
        description="Python entries and kernel launches of the step.",
        doc="The host's dispatch and launch work against the step's ideal device time "
        "(compute plus memory floors): one Python entry per forward operator plus one for "
        "`backward()`, one kernel per operator, and `backward()`'s fixed and per-node cost.",
        ops_per_block=forward_ops + 1,
        launches_per_block=forward_ops + backward_ops,
        dispatch=dispatch,
        launch=launch,
        device_time=compute_time + memory_time,
        backward_nodes=autograd_nodes,
        per_node=backward_per_node,
        fixed=backward_fixed,
    )
    k = key("k")
    op_time = Table(Max(op_flops[k] / (peak_rate * op_efficiency[k]), op_bytes[k] / hardware.bandwidth), "µs",
                    over=k, doc="Each operator's roofline time with DRAM as its only memory level.")
    roofline_time = Output(
        _cached_roofline(op_flops, op_bytes, peak_rate, op_efficiency, hardware.bandwidth, cache_bandwidth,
                         cache_capacity),
        "µs", otherwise=op_time.sum(), symbol="T_r",
        doc="Device time of the step operator by operator, each at its roofline; an operator that fits in the "
            "cache level reads it at the cache's bandwidth (without `cache_capacity`, DRAM for all).")
    allocation_time = Output(fresh_bytes * allocation_cost, "µs", doc="Time spent faulting in fresh result memory.")
    step_time = Output(host.host_time + roofline_time + allocation_time, "µs", symbol="T_s",
                       doc="Predicted wall time of one step: host work, then each operator at its roofline, then "
                           "fresh-memory faults, with no overlap (what `mlsysym validate --here` measures).")


_mnist = Datasets.MNIST

MnistTwoLayerTrainingStepOnH100 = Instance(
    MlpTrainingStepScenario,
    name="One eager training step of a 784-128-10 MNIST MLP at batch 32 on an H100, FP32",
    description=(
        "A 784-128-10 MLP on 28x28 MNIST digits, batch 32, FP32 values and INT64 labels, "
        "Adam (7 values moved per parameter), issued eagerly on an H100."
    ),
    batch_size=32,
    input_width=_mnist.image_width * _mnist.image_height * _mnist.image_channels,
    hidden_width=128,
    output_width=_mnist.num_classes,
    bytes_per_value=Constants.ByteWidths.FP32,
    label_bytes=Constants.ByteWidths.INT64,
    loss_flops_per_logit=3,
    optimizer_values_moved=7,
    hardware=Hardware.Cloud.H100,
    precision="fp32",
    forward_ops=len(FORWARD),
    backward_ops=len(BACKWARD),
    dispatch=Constants.RuntimeOverheads.PythonDispatch,
    launch=Constants.RuntimeOverheads.KernelLaunch,
)
