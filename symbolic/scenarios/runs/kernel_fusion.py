"""Kernel fusion: an element-wise chain run as one kernel per operation or fused into one."""

from symbolic.catalog import Constants
from symbolic.model import Input, Instance, Output, Question, Require, Scenario, Series, Sweep, powers_of_two


class KernelFusionScenario(Scenario):
    """A chain of `chain_length` element-wise operations, one kernel each or fused into one.

    Unfused, each operation reads its input from device memory and writes its output (two
    trips) and pays the host's `dispatch` plus a kernel `launch`; fused, the chain reads
    once, writes once and is launched once. The trips count memory round trips of the
    chain's tensor; the overheads are host time per chain.
    """

    assumptions = "Every operation of the chain is element-wise over one tensor of the same size; fusion keeps intermediates in registers."
    excludes = "The arithmetic itself, cache reuse between unfused kernels, and compile time of the fused kernel."
    references = (
        "Chen et al., TVM: an automated end-to-end optimizing compiler for deep learning, OSDI 2018 (operator fusion).",
        "Ansel et al., PyTorch 2: faster machine learning through dynamic Python bytecode transformation and "
        "graph compilation, ASPLOS 2024 (TorchInductor fuses element-wise chains).",
    )
    differs = {
        "dispatch": "`dispatch` and `launch` may not both be zero: the reference then divides by zero in "
                    "`overhead_speedup`; a chain with no per-kernel overhead has nothing for fusion to save.",
        "chain_length": "at least 1: the reference accepts 0 or a negative chain (a traffic ratio and speedup of 0, "
                        "negative trips).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.ElementwisePairFusion
>>> s.unfused_overhead
<Quantity(30, 'microsecond')>
>>> s.overhead_speedup
2.0
"""

    main_outputs = ("unfused_overhead", "traffic_ratio", "overhead_speedup")
    chart = Sweep(
        instance="ElementwisePairFusion", input="chain_length", values=powers_of_two(6),
        series=(Series("unfused_overhead", "one kernel per operation"), Series("fused_overhead", "fused into one kernel")),
        xlabel="operations in the chain", ylabel="host overhead per chain [µs]",
        caption="Dispatch and launch overhead of an element-wise chain, unfused and fused: unfused grows with every "
                "operation, fused stays at one launch.")
    questions = (Question(solve_for="chain_length", where="unfused_overhead", equals="100 µs"),)

    chain_length = Input(integer=True, positive=True, symbol="k", doc="Element-wise operations in the chain.")
    dispatch = Input("µs", nonnegative=True, symbol="d", doc="Host (Python) dispatch cost per launched kernel.")
    launch = Input("µs", nonnegative=True, symbol=r"\ell", doc="Kernel launch cost per kernel.")
    some_overhead = Require(dispatch + launch > 0, "dispatch and launch must not both be zero")

    unfused_trips = Output(2 * chain_length, doc="Memory trips unfused: each operation reads its input and writes its output.")
    fused_trips = Output(2, doc="Memory trips fused: one read of the input, one write of the result.")
    unfused_launches = Output(chain_length, doc="Kernels launched unfused: one per operation.")
    fused_launches = Output(1, doc="Kernels launched fused: one.")
    traffic_ratio = Output(unfused_trips / fused_trips, doc="Memory traffic unfused over fused.")
    unfused_overhead = Output(unfused_launches * (dispatch + launch), "µs", doc="Dispatch and launch time of the unfused chain.")
    fused_overhead = Output(fused_launches * (dispatch + launch), "µs", doc="Dispatch and launch time of the fused kernel.")
    overhead_speedup = Output(unfused_overhead / fused_overhead, doc="Unfused over fused overhead (equal to the chain length).")


ElementwisePairFusion = Instance(
    KernelFusionScenario,
    name="Two element-wise operations, unfused and fused",
    description="Two element-wise operations (say a bias add and a GELU) at the catalog's Python dispatch and "
                "kernel launch costs.",
    chain_length=2,
    dispatch=Constants.RuntimeOverheads.PythonDispatch,
    launch=Constants.RuntimeOverheads.KernelLaunch,
)
