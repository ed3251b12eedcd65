"""A synchronous pipeline schedule (GPipe, 1F1B): the bubble of fill and drain over the step."""

from symbolic.model import Input, Instance, Output, Question, Require, Scenario, Series, Sweep, powers_of_two


class PipelineScheduleScenario(Scenario):
    """`microbatches` micro-batches through `stages` pipeline stages: the idle bubble and slot counts.

    A synchronous schedule (GPipe, or 1F1B with one model chunk per device) runs each phase,
    forward and backward, in m + p − 1 slots: p − 1 slots fill the pipeline, m do work on
    every stage, and the same p − 1 drain it. Every stage therefore idles p − 1 of the
    m + p − 1 slots of each phase; that idle share is the bubble. It equals b/(1 + b) for
    Narayanan's bubble-over-ideal ratio b = (p − 1)/m.
    """

    assumptions = ("Every micro-batch takes the same time on every stage; forward and backward phases have the "
                   "same slot count; one model chunk per device (no interleaving).")
    excludes = "Interleaved (virtual) stages, stage imbalance, point-to-point transfer time between stages."
    references = (
        "Huang et al., GPipe: efficient training of giant neural networks using pipeline parallelism, "
        "NeurIPS 2019 (bubble (p - 1)/(m + p - 1)).",
        "Narayanan et al., Efficient large-scale language model training on GPU clusters using Megatron-LM, "
        "SC 2021 (bubble-over-ideal ratio (p - 1)/m).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.GPipeFourStageWalkthrough
>>> round(s.bubble, 6), s.slots, s.idle_slots
(0.428571, 14, 6)
>>> s.microbatches_for_bubble
27.0
"""

    main_outputs = ("bubble", "microbatches_for_bubble")
    chart = Sweep(
        instance="Pipeline8Stage32Micro",
        input="microbatches",
        values=powers_of_two(10),
        series=(Series("bubble", "bubble: idle share of the step"),
                Series("bubble_ratio", "bubble over ideal time, (p - 1)/m", dashed=True)),
        xlabel="micro-batches per step",
        ylabel="fraction",
        caption="The pipeline bubble of 8 stages against the micro-batch count: it falls as 7/(m + 7).")
    questions = (Question(solve_for="microbatches", where="bubble", equals="0.05"),)

    stages = Input(integer=True, positive=True, symbol="p", doc="Pipeline stages p (devices in one pipeline).")
    microbatches = Input(integer=True, positive=True, symbol="m", doc="Micro-batches per step m.")
    bubble_target = Input(positive=True, default=0.1, symbol=r"b^{*}",
                          doc="Target bubble in (0, 1] for `microbatches_for_bubble`.")
    target_at_most_one = Require(bubble_target <= 1, "bubble_target must be at most 1 (a share of the step)")

    p, m = stages, microbatches

    fill_slots = Output(p - 1, doc="Slots each phase needs to fill the pipeline (and again to drain it).")
    phase_slots = Output(m + p - 1, doc="Slots of one phase (forward or backward): fill, then m busy slots.")
    slots = Output(2 * phase_slots, doc="Slots of the step: the forward and the backward phase.")
    idle_slots = Output(2 * fill_slots, doc="Slots of the step in which a given stage idles.")
    bubble = Output(fill_slots / phase_slots, doc="Idle share of the step: the slots spent filling and draining the "
                                                  "pipeline over all slots.")
    bubble_ratio = Output(fill_slots / m, doc="Idle time over ideal (busy) time, as Narayanan et al. state the "
                                              "bubble: more micro-batches shrink it.")
    microbatches_for_bubble = Output(fill_slots * (1 - bubble_target) / bubble_target,
                                     doc="Micro-batches at which the bubble equals `bubble_target` "
                                     "(a real number; round up for a count).")


GPipeFourStageWalkthrough = Instance(
    PipelineScheduleScenario,
    name="GPipe walkthrough: four stages, four micro-batches",
    description="The textbook GPipe schedule: 4 stages and 4 micro-batches idle 3 of every 7 slots.",
    stages=4,
    microbatches=4,
)

Pipeline8Stage32Micro = Instance(
    PipelineScheduleScenario,
    name="Eight pipeline stages, 32 micro-batches",
    description="An 8-stage pipeline fed 32 micro-batches per step: a bubble of 7/39.",
    stages=8,
    microbatches=32,
)
