"""Host dispatch: the host-side cost of issuing an eager step against its device work."""

from symbolic.catalog import Constants, Hardware
from symbolic.model import Input, Instance, Output, Q, Question, Scenario, Series, Sweep, decades


class HostDispatchScenario(Scenario):
    """The host's work to issue one eager step against `device_time` of accelerator work.

    Every Python-level operation pays `dispatch` (the framework's Python-side cost) and
    every kernel launch pays `launch`. An autograd `backward()` call adds `fixed` once and
    `per_node` for each of its `backward_nodes` graph nodes (its engine's own host work,
    beside the kernels it launches); on a CPU, with no kernels to launch, `launch` is 0 and
    these are the whole host term. The model is additive: host and device work do not
    overlap, so `speedup_limit` is the most that removing all host work could give.
    """

    assumptions = (
        "Host work and device work do not overlap; every operation pays the same dispatch "
        "cost and every launched kernel the same launch cost."
    )
    excludes = "Asynchronous overlap, CUDA graphs and kernel fusion, and measured dispatch variance."
    references = (
        "PyTorch eager-mode dispatch and kernel-launch overheads are each on the order of "
        "microseconds per operation; see the runtime constants in the catalog.",
    )
    examples = """\
>>> from generated import Scenarios
>>> Scenarios.SmallKernelDispatch.overhead_ratio
15.0
>>> Scenarios.Gpt2XlEagerDecodeDispatch.host_time
<Quantity(8640, 'microsecond')>
"""

    main_outputs = ("host_time", "overhead_ratio", "host_share")
    chart = Sweep(
        instance="SmallKernelDispatch",
        input="device_time",
        values=decades(-1, 5, 4),
        series=(Series("host_share", "host share of the step"), Series("launch_ratio", "launch time / device time", dashed=True)),
        xlabel="device time per step [µs]",
        ylabel="fraction",
        caption="The host's share of the step against the device work it issues (one operation).",
        logy=False)
    questions = (Question(solve_for="device_time", where="overhead_ratio", equals="1"),)

    ops_per_block = Input(integer=True, nonnegative=True, symbol="n",
                          doc="Python-level operations per block; each pays `dispatch`.")
    blocks = Input(integer=True, positive=True, default=1, symbol="k",
                   doc="Number of identical blocks (e.g. transformer layers) issued.")
    launches_per_block = Input(integer=True, nonnegative=True, default=ops_per_block, symbol=r"\lambda",
                               doc="Kernels launched per block; one per operation unless given.")
    dispatch = Input("µs", nonnegative=True, symbol="d", doc="Python dispatch cost per operation.")
    launch = Input("µs", nonnegative=True, symbol=r"\ell", doc="Kernel launch cost per launch.")
    device_time = Input("µs", positive=True, symbol="T", doc="Accelerator work of the step.")
    backward_nodes = Input(integer=True, nonnegative=True, default=0, symbol="N",
                           doc="Autograd graph nodes a `backward()` call runs in the step (0: no autograd).")
    per_node = Input("µs", nonnegative=True, default=0, symbol="c_n",
                     doc="Host cost of the autograd engine per graph node (measured: `mlsysym calibrate`).")
    fixed = Input("µs", nonnegative=True, default=0, symbol="c_0",
                  doc="Fixed host cost per step beyond the per-operation costs, e.g. one `backward()` call's.")

    operations = Output(blocks * ops_per_block, doc="Python-level operations issued in the step.")
    launches = Output(blocks * launches_per_block, doc="Kernels launched in the step.")
    per_op_cost = Output(dispatch + launch, "µs", doc="Host cost of one operation that launches one kernel.")
    dispatch_time = Output(operations * dispatch, "µs", doc="Host time spent in Python dispatch.")
    launch_time = Output(launches * launch, "µs", doc="Host time spent launching kernels.")
    backward_time = Output(fixed + backward_nodes * per_node, "µs",
                           doc="Host time of the autograd engine's own work, beside dispatch and launches.")
    host_time = Output(dispatch_time + launch_time + backward_time, "µs", doc="Total host time to issue the step.")
    overhead_ratio = Output(host_time / device_time, doc="Host time per unit of device time.")
    launch_ratio = Output(launch_time / device_time, doc="Launch time per unit of device time.")
    host_share = Output(host_time / (host_time + device_time),
                        doc="Fraction of the step's wall time spent on the host (no overlap).")
    speedup_limit = Output((host_time + device_time) / device_time,
                           doc="Wall time over device time: the speedup from removing all host work.")


_overheads = Constants.RuntimeOverheads

SmallKernelDispatch = Instance(
    HostDispatchScenario,
    name="One small eager operation: a short element-wise kernel",
    description="A 1 µs element-wise kernel issued eagerly: host work is 15x the device work.",
    ops_per_block=1,
    dispatch=_overheads.PythonDispatch,
    launch=_overheads.KernelLaunch,
    device_time=Q("1 µs"),
)

LargeKernelDispatch = SmallKernelDispatch.variant(
    name="One large eager operation: a long matrix multiply",
    description="A 100 µs matrix multiply issued eagerly: host work is a small fraction.",
    device_time=Q("100 µs"),
)

SmallMlpDispatch = SmallKernelDispatch.variant(
    name="A small MLP's eager step: six operations, 2.6 us of device work",
    description="Six eager operations around 2.6 µs of device work: dominated by the host.",
    ops_per_block=6,
    device_time=Q("2.6 µs"),
)

# One GPT-2/GPT-3 transformer block issues 12 eager operations (layer norms, QKV,
# attention, projection, MLP, residual adds), the count the reference library uses.
GPT_BLOCK_OPS = 12
GPT2_XL_LAYERS = 48
GPT2_XL_PARAMETERS = Q("1.5e9 param")

Gpt3BlockDispatch = SmallKernelDispatch.variant(
    name="One GPT-3-scale transformer block over a large batch, eager",
    description="A transformer block with 100 ms of device work: host overhead is negligible.",
    ops_per_block=GPT_BLOCK_OPS,
    device_time=Q("100 ms"),
)

Gpt2XlEagerDecodeDispatch = Instance(
    HostDispatchScenario,
    name="Eager host work to issue one GPT-2 XL decode step on an H100",
    description=(
        "48 blocks of 12 eager operations against the memory-bound decode step of GPT-2 XL "
        "(1.5e9 FP16 parameters read once at the H100's 3.35 TB/s)."
    ),
    ops_per_block=GPT_BLOCK_OPS,
    blocks=GPT2_XL_LAYERS,
    dispatch=_overheads.PythonDispatch,
    launch=_overheads.KernelLaunch,
    device_time=GPT2_XL_PARAMETERS * Constants.ByteWidths.FP16 / Hardware.Cloud.H100.memory_bandwidth,
)

# Eager PyTorch's MLP step on this machine's CPU, as `mlsysym validate --here` traces it (PyTorch 2.13):
# 9 aten operations forward, backward() over 11 autograd graph nodes, no kernel launches; the device
# time is the step's 13,100,608 FLOPs (the 784-128-10 step at batch 32) at one thread's matmul rate.
_cpu = Constants.MeasuredCpu
EagerTorchMlpStepHostOnThisCpu = Instance(
    HostDispatchScenario,
    name="Host work of eager PyTorch's 784-128-10 MLP step at batch 32 on this machine's CPU",
    description="The operation counts PyTorch really issues and backward()'s costs as measured on the "
                "project's 2-vCPU EPYC, against the step's FLOPs at one thread's measured matmul rate.",
    ops_per_block=9 + 1,
    launches_per_block=0,
    dispatch=_cpu.EagerTorchOp,
    launch=Q("0 µs"),
    backward_nodes=11,
    per_node=_cpu.BackwardPerNode,
    fixed=_cpu.BackwardFixed,
    device_time=Q("13100608 flop") / _cpu.MatmulFp32,
)
