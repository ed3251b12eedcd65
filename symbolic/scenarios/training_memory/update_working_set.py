"""The working set and DRAM traffic of a full on-device update with Adam."""

from symbolic.catalog import Constants, Hardware
from symbolic.model import Input, Instance, Output, Piecewise, Question, Require, Scenario, Series, Sweep, decades


class UpdateWorkingSetScenario(Scenario):
    """A full on-device update with Adam: its working set and the DRAM bytes of one step.

    Gradients equal the weights; the optimizer keeps `optimizer_moments` weight-sized
    arrays; saved activations are `activation_factor` times the weight bytes
    (`activation_factor_high` bounds the quoted range). Traffic counts one DRAM crossing
    per tensor use with no cache reuse: the forward pass reads the weights and writes the
    saved activations; the backward pass reads activations and weights and writes the
    gradients; the optimizer reads weights, gradients and state and writes weights and state.

    How the optimizer is implemented is declared: `optimizer_values_moved` values per parameter
    cross DRAM (the fused floor above unless given: a for-loop implementation rereads and
    rewrites its temporaries), `optimizer_ops` operations are issued per parameter tensor at
    `dispatch` each (fused: one), and `temporaries` parameter-sized results are written into
    fresh memory at `allocation_cost` per MB. `optimizer_time` prices one optimizer step so, its
    traffic at `bandwidth`, or at `cache_bandwidth` when the persistent state (weights, gradients,
    moments) fits in `cache_capacity`: at 1e5-1e6 parameters it lives in a CPU's L2 or L3.
    """

    assumptions = ("Gradients use the weight width; optimizer moments are weight-sized arrays; "
                   "activation factors are declared inputs.")
    excludes = "Master-weight precision differences, allocator reserve, and runtime workspace."
    references = (
        "Kingma and Ba, Adam: a method for stochastic optimization, ICLR 2015 (two moments per parameter).",
        "Rajbhandari et al., ZeRO: memory optimizations toward training trillion parameter models, "
        "SC 2020 (working set of weights, gradients and optimizer state).",
    )
    examples = """\
>>> from generated import Scenarios
>>> scenario = Scenarios.PhoneFullUpdateWorkingSet
>>> round(scenario.amplification, 6)
9.0
>>> scenario.step_floor
<Quantity(15.625, 'millisecond')>
"""

    main_outputs = ("total", "step_traffic", "step_floor")
    chart = Sweep(
        instance="PhoneFullUpdateWorkingSet",
        input="parameters",
        values=decades(6, 10),
        series=(Series("total", "working set"), Series("persistent", "weights + gradients + optimizer state"),
         Series("activations", "saved activations"), Series("weights", "weights")),
        xlabel="parameters",
        ylabel="memory [MB]",
        caption="The working set of a full update and its parts against the parameter count.")
    questions = (Question(solve_for="parameters", where="total", equals="8 GiB"),)

    parameters = Input(positive=True, symbol="N", doc="Trainable scalars (a count; 1e7 may be written as a float).")
    bytes_per_param = Input("byte", positive=True, symbol="v", doc="Storage width of each weight (and gradient).")
    optimizer_moments = Input(integer=True, nonnegative=True, symbol="m",
                              doc="Weight-sized arrays the optimizer keeps (Adam: 2).")
    activation_factor = Input(nonnegative=True, symbol="a", doc="Saved activation bytes per weight byte.")
    activation_factor_high = Input(nonnegative=True, symbol=r"a_{\mathrm{hi}}",
                                   doc="Upper end of the quoted activation-factor range.")
    bandwidth = Input("GB/s", positive=True, default=None, symbol=r"\beta",
                      doc="DRAM bandwidth; optional, needed only by `step_floor`.")
    optimizer_values_moved = Input(positive=True, default=3 + 2 * optimizer_moments, symbol="q",
                                   doc="Values per parameter the optimizer step reads and writes (default: "
                                       "the fused floor, each tensor crossing DRAM once).")
    optimizer_ops = Input(integer=True, positive=True, default=1, symbol="n_o",
                          doc="Operations issued per parameter tensor by one optimizer step (fused: 1).")
    parameter_tensors = Input(integer=True, positive=True, default=1, symbol="n_t",
                              doc="Parameter tensors the optimizer steps over.")
    dispatch = Input("µs", nonnegative=True, default=0, symbol="d", doc="Host cost per issued operation.")
    temporaries = Input(nonnegative=True, default=0, symbol="n_f",
                        doc="Parameter-sized results per step written into fresh memory (fused: none).")
    allocation_cost = Input("µs/MB", nonnegative=True, default=0, symbol=r"\alpha",
                            doc="Cost of faulting in and zeroing fresh memory per MB (measured: `mlsysym calibrate`).")
    cache_capacity = Input("byte", positive=True, default=None, symbol="C",
                           doc="Capacity of a cache level the optimizer's state may fit in; optional.")
    cache_bandwidth = Input("GB/s", positive=True, default=None, symbol=r"\beta_C",
                            doc="Bandwidth of that cache level (measured: `mlsysym calibrate`); optional, with "
                                "`cache_capacity`.")
    high_bounds_nominal = Require(activation_factor_high >= activation_factor,
                                  "activation_factor_high must be at least activation_factor")

    weights = Output(parameters * bytes_per_param, "MB", doc="Parameter storage in decimal MB.")
    gradients = Output(weights, "MB", doc="Gradient storage, equal to the weight storage.")
    optimizer_state = Output(optimizer_moments * weights, "MB", doc="`optimizer_moments` weight-sized arrays.")
    activations = Output(activation_factor * weights, "MB", doc="Saved activations at the nominal factor.")
    persistent = Output(weights + gradients + optimizer_state, "MB",
                        doc="Activation-free state: weights, gradients and optimizer state.")
    total = Output(persistent + activations, "MB", doc="Working set: persistent state plus saved activations.")
    amplification = Output(total / weights, doc="Working set over weight bytes: how many times the weights the "
                                                "update needs in memory.")
    floor = Output(persistent / weights, doc="Persistent state over weight bytes, before activations: the least the "
                                             "update can fit in.")
    ceiling = Output(floor + activation_factor_high, doc="Working set over weight bytes at the high activation factor.")
    forward_traffic = Output(weights + activations, "MB", doc="Forward pass: read the weights, write saved activations.")
    backward_traffic = Output(activations + weights + gradients, "MB",
                              doc="Backward pass: read activations and weights, write gradients.")
    optimizer_traffic = Output((weights + gradients + optimizer_state) + (weights + optimizer_state), "MB",
                               doc="Optimizer step: read weights, gradients and state; write weights and state.")
    step_traffic = Output(forward_traffic + backward_traffic + optimizer_traffic, "MB",
                          doc="DRAM bytes of one update step, one crossing per tensor use.")
    weight_reads = Output(3 * weights, "MB", doc="The weight reads within the step traffic (forward, backward, optimizer).")
    traffic_ratio = Output(step_traffic / weights, doc="Step traffic over weight bytes.")
    weight_read_share = Output(weight_reads / step_traffic, doc="Fraction of the step traffic that reads weights.")
    step_floor = Output(step_traffic / bandwidth, "ms",
                        doc="Traffic-only time floor of one step at `bandwidth` (no compute, no overlap).")
    implementation_traffic = Output(optimizer_values_moved * weights, "MB",
                                    doc="DRAM bytes of one optimizer step as the implementation moves them.")
    optimizer_bandwidth = Output(Piecewise((cache_bandwidth, persistent <= cache_capacity), (bandwidth, True)),
                                 "GB/s", otherwise=bandwidth,
                                 doc="Bandwidth the optimizer's traffic moves at: the cache level's when the "
                                     "persistent state fits in it, else (and without a cache level) `bandwidth`.")
    optimizer_time = Output(implementation_traffic / optimizer_bandwidth + optimizer_ops * parameter_tensors * dispatch
                            + temporaries * weights * allocation_cost, "ms",
                            doc="One optimizer step: its traffic at `optimizer_bandwidth`, its host work and its fresh-memory "
                                "faults, with no overlap.")


PhoneFullUpdateWorkingSet = Instance(
    UpdateWorkingSetScenario,
    name="Full fine-tune of a 10M-parameter FP32 model with Adam on a flagship phone",
    description=("A 10M-parameter FP32 model updated in full with Adam (two moments), saved activations "
                 "5x the weights (8x at the high end), at the iPhone 15 Pro's DRAM bandwidth."),
    parameters=1e7,
    bytes_per_param=Constants.ByteWidths.FP32,
    optimizer_moments=2,
    activation_factor=5.0,
    activation_factor_high=8.0,
    bandwidth=Hardware.Mobile.iPhone15Pro.memory_bandwidth,
)

# PyTorch's Adam on this machine (one thread, 1e7 FP32 parameters in one tensor), as `mlsysym validate
# --here` traces it from the aten operations of one step (PyTorch 2.13): the for-loop implementation
# issues 11 operations moving 19 values per parameter, two of them fresh parameter-sized results; the
# fused one 4 operations moving 8 values, none fresh.
_cpu = Constants.MeasuredCpu
AdamForLoopOnThisCpu = PhoneFullUpdateWorkingSet.variant(
    name="PyTorch's for-loop Adam over 10M FP32 parameters on this machine's CPU",
    description="PyTorch's Adam with foreach=False, as traced and measured on the project's 2-vCPU EPYC: "
                "the traffic, operations and fresh temporaries of the implementation, not the fused floor.",
    bandwidth=_cpu.StreamTriad,
    optimizer_values_moved=19,
    optimizer_ops=11,
    dispatch=_cpu.EagerTorchOp,
    temporaries=2,
    allocation_cost=_cpu.FreshAllocation,
)
AdamFusedOnThisCpu = AdamForLoopOnThisCpu.variant(
    name="PyTorch's fused Adam over 10M FP32 parameters on this machine's CPU",
    description="PyTorch's Adam with fused=True on the project's 2-vCPU EPYC: one fused kernel near the "
                "7-value floor, no fresh temporaries.",
    optimizer_values_moved=8,
    optimizer_ops=4,
    temporaries=0,
)
