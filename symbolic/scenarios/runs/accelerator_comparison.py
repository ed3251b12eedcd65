"""Two accelerators side by side: peak rate, power and peak per watt, and the device-hours a job needs."""

from symbolic.catalog import Hardware
from symbolic.model import Input, Instance, Node, Output, Precision, Question, Scenario, Series, Sweep, decades


class AcceleratorComparison(Scenario):
    """`candidate` against `baseline`: peak, power, and peak per watt.

    Both nodes are read at one precision (default: each node's headline peak, dense 16-bit
    for the GPUs). The peak ratio says how much faster the candidate is at peak; over the
    ratio of their thermal design powers it says how much more work each watt buys. A job
    that took `baseline_device_hours` on the baseline takes that over the peak ratio on the
    candidate, at equal utilization.
    """

    assumptions = "Both accelerators run the job at the same fraction of their peak; power is each node's TDP."
    excludes = "Memory bandwidth and capacity, interconnect, price, and utilization that differs between generations."
    references = ("NVIDIA V100, H100 and B200 datasheets (peak dense 16-bit rates and TDPs).",)
    differs = {
        "baseline_device_hours": "a time (hours, any time unit accepted) rather than a bare number of hours; a bare "
                                 "number is still read as hours, and `candidate_device_hours` is returned in hours.",
        "candidate_device_hours": "the reference's method `equivalent_hours(h)` is "
                                  "`variant(baseline_device_hours=h).candidate_device_hours` here (one formula, one place).",
        "precision": "a key either node does not list is refused naming the keys both list (the reference raises a "
                     "bare KeyError); `None` or left out reads each node's headline peak, as in the reference.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.V100ToH100
>>> round(s.peak_ratio, 3), round(s.efficiency_ratio, 4)
(7.912, 3.3909)
>>> round(s.candidate_device_hours.magnitude, 2)
1263.9
"""

    main_outputs = ("peak_ratio", "efficiency_ratio", "candidate_device_hours")
    chart = Sweep(
        instance="V100ToH100", input="baseline_device_hours", values=decades(1, 6),
        series=(Series("candidate_device_hours", "on the H100"),),
        xlabel="device-hours on the V100", ylabel="device-hours [h]",
        caption="Device-hours on an H100 of a job measured in V100 device-hours, at equal utilization: 1/7.9 of "
                "them.")
    questions = (Question(solve_for="baseline_device_hours", where="candidate_device_hours", equals="1000 h"),)

    baseline = Node(doc="The accelerator compared against: its peak rate and TDP.")
    candidate = Node(doc="The accelerator considered: its peak rate and TDP.")
    precision = Precision(baseline, candidate, default="peak",
                          doc="One precision key for both nodes; `peak` (default, or None) is each node's headline peak.")
    baseline_device_hours = Input("h", nonnegative=True, default=None, symbol="h_b",
                                  doc="Device-hours of a job on the baseline; optional, needed by `candidate_device_hours`.")

    peak_ratio = Output(candidate.peak / baseline.peak, symbol=r"\rho", doc="Candidate over baseline peak rate.")
    tdp_ratio = Output(candidate.tdp / baseline.tdp, symbol=r"\tau", doc="Candidate over baseline TDP.")
    efficiency_ratio = Output(peak_ratio / tdp_ratio, doc="Candidate over baseline peak per watt.")
    candidate_device_hours = Output(baseline_device_hours / peak_ratio, "h",
                                    doc="Device-hours of the baseline's job on the candidate, at equal utilization.")


V100ToB200 = Instance(
    AcceleratorComparison,
    name="V100 to B200: peak, power and peak per watt",
    description="A B200 (2250 TFLOP/s dense 16-bit, 1000 W) against a V100 (125 TFLOP/s, 300 W).",
    baseline=Hardware.Cloud.V100,
    candidate=Hardware.Cloud.B200,
)

V100ToH100 = Instance(
    AcceleratorComparison,
    name="V100 to H100: a 10,000 device-hour job",
    description="An H100 (989 TFLOP/s dense 16-bit, 700 W) against a V100 (125 TFLOP/s, 300 W), for a job of "
                "10,000 V100-hours.",
    baseline=Hardware.Cloud.V100,
    candidate=Hardware.Cloud.H100,
    baseline_device_hours=10000,
)
