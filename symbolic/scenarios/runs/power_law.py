"""A power-law term A·R^-α: what a multiple of the resource buys, and the multiple a target costs."""

from symbolic.catalog import Constants
from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep, decades


class PowerLawScenario(Scenario):
    """A power-law term A·R^−α and the resource multiple that halves it.

    Scaling laws write loss (or its reducible part) as A·R^−α in a resource R (compute,
    data, parameters). Multiplying R by m multiplies the term by m^−α, whatever A is;
    halving the term takes a multiple of 2^(1/α), and reducing it by a fraction r takes
    (1/(1 − r))^(1/α). A small α makes every gain expensive.
    """

    assumptions = "The term follows one power law over the whole range; the constant A cancels in every ratio."
    excludes = "The irreducible loss floor and the range where the law stops holding."
    references = (
        "Kaplan et al., Scaling laws for neural language models, arXiv:2001.08361, 2020 (L ∝ C^-0.050).",
        "Hoffmann et al., Training compute-optimal large language models, NeurIPS 2022.",
    )
    bounds = {"multiple_reduction": (float("-inf"), 1)}  # a multiple below 1 grows the term: a negative reduction
    differs = {
        "exponent": "must be greater than 0 for every output; the reference checks it only for the halving and "
                    "reduction multiples and accepts 0 or a negative exponent in `multiple_factor`.",
    }
    examples = """\
>>> from generated import Scenarios
>>> Scenarios.KaplanTenPercentLowerLoss.halving_multiple
1048576.0
>>> round(Scenarios.KaplanComputeDoubling.multiple_factor, 6)
0.965936
"""

    main_outputs = ("multiple_factor", "halving_multiple", "reduction_multiple")
    chart = Sweep(
        instance="KaplanComputeDoubling", input="resource_multiple", values=decades(0, 8),
        series=(Series("multiple_factor", "term after the multiple, relative"),),
        xlabel="resource multiple", ylabel="relative term",
        caption="The power-law term relative to today against a multiple of compute at Kaplan's α = 0.05: a "
                "millionfold more compute halves it.", logy=False)
    questions = (Question(solve_for="resource_multiple", where="multiple_factor", equals="0.5"),)

    exponent = Input(positive=True, symbol=r"\alpha", doc="Power-law exponent α of the term A·R^−α.")
    loss_reduction = Input(positive=True, below=1, default=None, symbol="r",
                           doc="Fraction by which to reduce the term; optional, needed by `reduction_multiple`.")
    resource_multiple = Input(positive=True, default=None, symbol="m",
                              doc="Multiple of the resource; optional, needed by `multiple_factor` and `multiple_reduction`.")

    multiple_factor = Output(resource_multiple ** -exponent, doc="The term after the multiple, relative to before.")
    multiple_reduction = Output(1 - multiple_factor, doc="Fraction of the term the multiple removes.")
    halving_multiple = Output(2 ** (1 / exponent), doc="Multiple of the resource that halves the term.")
    reduction_multiple = Output((1 / (1 - loss_reduction)) ** (1 / exponent),
                                doc="Multiple of the resource that reduces the term by `loss_reduction`.")


KaplanTenPercentLowerLoss = Instance(
    PowerLawScenario,
    name="Ten percent lower loss under Kaplan's compute law",
    description="The compute multiple that lowers the loss term by 10 percent, and the one that halves it, at "
                "Kaplan et al.'s compute exponent 0.05.",
    exponent=Constants.KaplanScalingLaws.ComputeExponent,
    loss_reduction=0.1,
)

KaplanComputeDoubling = KaplanTenPercentLowerLoss.variant(
    name="Doubling compute under Kaplan's compute law",
    description="What twice the compute does to the loss term at Kaplan et al.'s compute exponent 0.05.",
    loss_reduction=None,
    resource_multiple=2.0,
)
