"""The iron law of one task: memory, compute and overhead, sequential and overlapped."""

from symbolic.model import (
    Echo, Group, Input, Instance, Max, Output, Q, Question, Scenario, Series, Sweep, powers_of_two,
)



class IronLawScenario(Scenario):
    """The iron law's three terms for one task, and an upgrade to the memory or compute term.

    The memory term is stated, or `data_volume` over `bandwidth`; the compute term is
    stated, or `operations` over `effective_rate` (peak times utilization). Sequential, the
    terms add; overlapped, memory and compute hide each other and only the larger remains.
    An upgrade divides the memory term by `memory_speedup` and the compute term by
    `compute_speedup`; the naive estimate divides the whole sequential time by both.
    """

    assumptions = "The task's time is memory plus compute plus a fixed overhead; an upgrade scales one term only."
    excludes = "Partial overlap, caches, and contention between the terms."
    references = (
        "Williams, Waterman and Patterson, Roofline, CACM 52(4), 2009 (memory and compute time floors).",
        "Hennessy and Patterson, Computer Architecture: a Quantitative Approach, 6th ed., 2017 (Amdahl's law "
        "for an upgrade to one part).",
    )
    bounds = {"result.sequential_reduction": (float("-inf"), 1)}  # an upgrade slower than before removes a negative share
    differs = {
        "memory_time": "one display unit (ms) for stated and derived terms; the reference returns a stated time in "
                       "the unit it was given and a derived one in the overhead's unit.",
        "memory_time_stated": "greater than 0 (the spec allows 0): the reference accepts a zero term, and with a "
                              "zero overhead and a zero compute term `result.sequential_reduction` is then 0/0.",
        "compute_time_stated": "greater than 0, for the same reason as `memory_time_stated`.",
        "data_volume": "greater than 0 (the spec allows 0): a zero volume is a zero memory term, refused as above.",
        "operations": "greater than 0 (the spec allows 0): zero operations are a zero compute term, refused as above.",
        "bandwidth": "greater than 0, as are `effective_rate`, `memory_speedup` and `compute_speedup`: the reference "
                     "divides by each and raises ZeroDivisionError at 0; we refuse it when the instance is built.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.IronLawMemoryBoundExample
>>> s.result.sequential_time
<Quantity(35.0, 'millisecond')>
>>> round(s.result.sequential_reduction, 6)
0.285714
"""

    main_outputs = ("result.sequential_time", "result.overlapped_time", "result.sequential_reduction")
    chart = Sweep(
        instance="IronLawMemoryBoundExample", input="memory_speedup", values=powers_of_two(6),
        series=(Series("result.upgraded_sequential_time", "sequential"),
                Series("result.upgraded_overlapped_time", "overlapped"),
                Series("result.naive_upgraded_time", "naive: whole time divided", dashed=True)),
        xlabel="memory speedup", ylabel="task time [ms]",
        caption="The memory-bound task's time against a faster memory system: the compute term and the overhead "
                "remain, so the gain flattens.", logy=False)
    questions = (Question(solve_for="memory_speedup", where="result.upgraded_sequential_time", equals="20 ms"),)

    overhead = Input("ms", nonnegative=True, symbol="o", doc="Fixed overhead of the task (launch, host work).")
    data_volume = Input("GB", positive=True, default=None, symbol="V", doc="Bytes the task moves; optional.")
    bandwidth = Input("GB/s", positive=True, default=None, symbol=r"\beta", doc="Memory bandwidth; optional.")
    memory_time_stated = Input("ms", positive=True, default=data_volume / bandwidth, symbol="m",
                               doc="The memory term stated directly; else `data_volume` / `bandwidth`.")
    operations = Input("GFLOP", positive=True, default=None, symbol="W", doc="Operations of the task; optional.")
    effective_rate = Input("GFLOP/s", positive=True, default=None, symbol="R",
                           doc="Delivered rate (peak times utilization); optional.")
    compute_time_stated = Input("ms", positive=True, default=operations / effective_rate, symbol="c",
                                doc="The compute term stated directly; else `operations` / `effective_rate`.")
    memory_speedup = Input(positive=True, default=1, symbol="s_m", doc="Factor the upgrade speeds the memory term by.")
    compute_speedup = Input(positive=True, default=1, symbol="s_c", doc="Factor the upgrade speeds the compute term by.")

    memory_time = Output(memory_time_stated, "ms", doc="The memory term.")
    compute_time = Output(compute_time_stated, "ms", doc="The compute term.")
    upgraded_bandwidth = Output(bandwidth * memory_speedup, "GB/s", doc="Bandwidth after the memory upgrade.")
    result = Group(Echo(memory_time), Echo(compute_time), overhead,
                   doc="The iron law's terms before and after the upgrade, as the reference's IronLawResult.")
    with result:
        sequential_time = Output(memory_time + compute_time + overhead, "ms", doc="The terms one after another.")
        overlapped_time = Output(Max(memory_time, compute_time) + overhead, "ms",
                                 doc="Memory and compute overlapped: the larger term plus the overhead.")
        upgraded_memory_time = Output(memory_time / memory_speedup, "ms", doc="The memory term after the upgrade.")
        upgraded_compute_time = Output(compute_time / compute_speedup, "ms", doc="The compute term after the upgrade.")
        upgraded_sequential_time = Output(upgraded_memory_time + upgraded_compute_time + overhead, "ms",
                                          doc="Sequential time after the upgrade.")
        upgraded_overlapped_time = Output(Max(upgraded_memory_time, upgraded_compute_time) + overhead, "ms",
                                          doc="Overlapped time after the upgrade.")
        naive_upgraded_time = Output(sequential_time / (memory_speedup * compute_speedup), "ms",
                                     doc="The naive estimate: the whole sequential time divided by both speedups.")
        sequential_reduction = Output(1 - upgraded_sequential_time / sequential_time,
                                      doc="Share of the sequential time the upgrade removes.")


IronLawMemoryBoundExample = Instance(
    IronLawScenario,
    name="A memory-bound task on one accelerator",
    description="2 GB at 100 GB/s against 1 GFLOP at 100 GFLOP/s with 5 ms of overhead; memory twice as fast.",
    data_volume=Q("2 GB"),
    bandwidth=Q("100 GB/s"),
    operations=Q("1 GFLOP"),
    effective_rate=Q("100 GFLOP/s"),
    overhead=Q("5 ms"),
    memory_speedup=2.0,
)

IronLawComputeHeavyExample = Instance(
    IronLawScenario,
    name="A compute-heavy task with a faster arithmetic rate",
    description="A stated 2 s memory term, 8 s compute term and 1 s overhead; arithmetic twice as fast.",
    memory_time_stated=Q("2 s"),
    compute_time_stated=Q("8 s"),
    overhead=Q("1 s"),
    compute_speedup=2.0,
)
