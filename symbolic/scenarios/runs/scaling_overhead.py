"""Scaling overhead: the speedup left after a share of the planned gain goes to coordination."""

from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep


class ScalingOverheadScenario(Scenario):
    """A planned speedup of `planned_speedup` of which `overhead_fraction` is lost to overhead.

    Coordination (synchronisation, communication, stragglers) eats a fixed share of the
    planned gain: the realized speedup is the planned one times the share that remains.
    """

    assumptions = "The overhead is a fixed share of the planned speedup, independent of the scale."
    excludes = "How the overhead grows with the number of workers (see the parallelism scenarios)."
    references = (
        "Amdahl, Validity of the single processor approach to achieving large scale computing capabilities, "
        "AFIPS 1967 (a fixed overhead caps the realized speedup).",
    )
    differs = {
        "overhead_fraction": "within [0, 1]: the reference checks nothing, and an overhead above the whole gain "
                             "gives a negative realized speedup.",
        "planned_speedup": "greater than 0: the reference accepts zero and negative speedups.",
    }
    examples = """\
>>> from generated import Scenarios
>>> round(Scenarios.CoordinationOverheadExample.realized_speedup, 12)
1.8
"""

    main_outputs = ("realized_speedup",)
    chart = Sweep(
        instance="CoordinationOverheadExample", input="overhead_fraction", values=tuple(k / 20 for k in range(21)),
        series=(Series("realized_speedup", "realized speedup"),),
        xlabel="overhead fraction", ylabel="speedup",
        caption="The realized speedup of a planned 3x against the share lost to overhead.", logy=False)
    questions = (Question(solve_for="overhead_fraction", where="realized_speedup", equals="1"),)

    planned_speedup = Input(positive=True, symbol="s", doc="Speedup the plan promises (e.g. from more devices).")
    overhead_fraction = Input(nonnegative=True, at_most=1, symbol="f",
                              doc="Share of the planned speedup lost to coordination overhead.")

    realized_speedup = Output(planned_speedup * (1 - overhead_fraction), doc="Speedup that remains after the overhead.")


CoordinationOverheadExample = Instance(
    ScalingOverheadScenario,
    name="A planned 3x speedup with 40 percent overhead",
    description="Three times the devices promise 3x; coordination takes 40 percent of the gain.",
    planned_speedup=3.0,
    overhead_fraction=0.40,
)
