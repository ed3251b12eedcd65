"""How a longer context grows a kept KV cache (linearly) and the attention scores (quadratically)."""

from symbolic.catalog import Models
from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep, powers_of_two


class ContextGrowthScenario(Scenario):
    """A context grown from `base_tokens` to `tokens`: what grows with the ratio, what with its square.

    A kept key-value cache holds one entry per token, so it grows with the ratio of the two
    lengths; the attention score matrix has one entry per pair of tokens, so the work of
    computing it and the memory of storing it grow with the square of that ratio.
    """

    assumptions = "Full (unmasked, unwindowed) attention; per-token cache entries of fixed width."
    excludes = "Weights, activations other than the scores, and any sparse or windowed attention."
    references = (
        "Vaswani et al., Attention is all you need, NeurIPS 2017 (the n x n score matrix).",
        "Pope et al., Efficiently scaling transformer inference, MLSys 2023 (the KV cache grows with context).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.BertWindowToFourK
>>> s.ratio, s.score_ratio
(8.0, 64.0)
"""

    main_outputs = ("ratio", "score_ratio")
    chart = Sweep(
        instance="BertWindowToFourK",
        input="tokens",
        values=tuple(512 * v for v in powers_of_two(8)),
        series=(Series("ratio", "KV cache (linear)"), Series("score_ratio", "attention scores (quadratic)")),
        xlabel="context [tokens]",
        ylabel="growth over the base context",
        caption="Growth of the kept cache and of the score matrix as BERT's 512-token window is stretched.")
    questions = (Question(solve_for='tokens', where='score_ratio', equals='100'),)

    base_tokens = Input(integer=True, positive=True, symbol="T_0", doc="The context length grown from, in tokens.")
    tokens = Input(integer=True, positive=True, symbol="T", doc="The grown context length, in tokens.")

    ratio = Output(tokens / base_tokens, doc="Growth of anything linear in the context (a kept KV cache).")
    score_ratio = Output(ratio**2, doc="Growth of the attention scores' work and memory, quadratic in the context.")


BertWindowToFourK = Instance(
    ContextGrowthScenario,
    name="BERT's 512-token window stretched to 4096 tokens",
    description="BERT-Base's trained 512-token window grown eightfold, to 4096 tokens.",
    base_tokens=Models.Language.BERT_Base.context_length,
    tokens=4096,
)
BertWindowToOneK = BertWindowToFourK.variant(
    name="BERT's 512-token window stretched to 1024 tokens",
    description="BERT-Base's trained 512-token window doubled, to 1024 tokens.",
    tokens=1024,
)
BertWindowToTwoK = BertWindowToFourK.variant(
    name="BERT's 512-token window stretched to 2048 tokens",
    description="BERT-Base's trained 512-token window grown fourfold, to 2048 tokens.",
    tokens=2048,
)
