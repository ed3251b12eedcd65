"""Multiply-adds of a packed query-key-value projection: one d x 3d matrix applied to every token."""

from symbolic.catalog import Models
from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep, WorkloadInput, powers_of_two


class PackedQkvProjectionScenario(Scenario):
    """`tokens` rows through `workload`'s packed query-key-value projection, one d x (p·d) matrix.

    Frameworks fuse the query, key and value projections of multi-head attention into one
    matrix of width `projections` times the model width, so one matrix multiply of the
    token rows produces all three. Each output element costs one multiply-add per input
    feature.
    """

    assumptions = "Square projections of the model width (no grouped-query narrowing of keys and values)."
    excludes = "Biases, the output projection and the attention itself."
    references = (
        "Vaswani et al., Attention is all you need, NeurIPS 2017 (query, key and value projections).",
        "Radford et al., Language models are unsupervised multitask learners, 2019 (GPT-2's packed c_attn).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt2SmallSixTokenQkvProjection
>>> s.width, s.packed_width, s.macs
(768, 2304, 10616832)
"""

    main_outputs = ("macs",)
    chart = Sweep(
        instance="Gpt2SmallSixTokenQkvProjection",
        input="tokens",
        values=powers_of_two(12),
        series=(Series("macs", "multiply-adds"),),
        xlabel="tokens",
        ylabel="multiply-adds",
        caption="Multiply-adds of GPT-2 Small's packed QKV projection against the number of token rows: linear.")
    questions = (Question(solve_for='tokens', where='macs', equals='1e9'),)

    workload = WorkloadInput("TransformerWorkload", "SSMWorkload", "EmbodiedWorkload", requires=("hidden_dim",),
                             doc="The model; its `hidden_dim` d is read.")
    tokens = Input(integer=True, positive=True, symbol="n", doc="Token rows projected.")
    projections = Input(integer=True, positive=True, default=3, symbol="p",
                        doc="Square projections packed side by side (query, key, value: 3).")

    width = Output(workload.hidden_dim, doc="Model width d: the projection's input features.")
    packed_width = Output(projections * width, doc="Output features of the packed matrix: one model width per "
                                                   "projection it packs.")
    macs = Output(tokens * width * packed_width, doc="Multiply-adds of the packed product: one per token, input "
                                                     "feature and output feature.")


Gpt2SmallSixTokenQkvProjection = Instance(
    PackedQkvProjectionScenario,
    name="GPT-2 Small's packed QKV projection of six tokens",
    description="Six token rows through GPT-2 Small's 768 x 2304 packed query-key-value projection.",
    workload=Models.Language.GPT2_Small,
    tokens=6,
    projections=3,
)
