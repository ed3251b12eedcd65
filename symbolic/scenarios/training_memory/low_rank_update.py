"""A rank-r update to one weight matrix (LoRA), against the dense matrix."""

from symbolic.catalog import Constants
from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep, powers_of_two


class LowRankUpdateScenario(Scenario):
    """A rank-`rank` update to one `out_dim` × `in_dim` weight matrix.

    The update is the product of two thin factors, `out_dim` × r and r × `in_dim`
    (LoRA's B and A), so it has r·(d_in + d_out) parameters against the matrix's
    d_in·d_out; the same count describes a dense matrix replaced by two thin factors.
    """

    assumptions = "Both factors are dense and stored at the same width as the matrix would be."
    excludes = "Biases, the frozen matrix's own state, and the optimizer state of the factors."
    references = (
        "Hu et al., LoRA: low-rank adaptation of large language models, ICLR 2022 "
        "(W + BA with B in R^{d x r}, A in R^{r x k}: r(d + k) trainable parameters).",
    )
    bounds = {"reduction": (float("-inf"), 1)}  # an update larger than the dense parameters saves a negative share
    differs = {
        "rank": "at least 1, checked when the instance is built (the reference raises ValueError only when "
                "`update_params`, `reduction` or `compression` is read).",
        "in_dim": "at least 1: the reference accepts 0 and divides by zero in `reduction`.",
        "out_dim": "at least 1: the reference accepts 0 and divides by zero in `reduction`.",
        "bytes_per_param": "a bare number is bytes (the reference reads bits); without it `full_bytes` and "
                           "`update_bytes` name it as missing (the reference raises TypeError).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.TransformerLayerRank4Update
>>> s.update_params
6144
>>> s.compression
96.0
>>> Scenarios.Rank128Factorization4096.update_bytes
<Quantity(4.194304, 'megabyte')>
"""

    main_outputs = ("update_params", "compression")
    chart = Sweep(
        instance="Rank128Factorization4096", input="rank", values=powers_of_two(12),
        series=(Series("full_params", "dense matrix d_in × d_out", dashed=True),
                Series("update_params", "rank-r update r (d_in + d_out)")),
        xlabel="rank r", ylabel="parameters",
        caption="Parameters of a rank-r update of a 4096 × 4096 matrix against the dense matrix: the update "
        "grows linearly in r and matches the matrix at r = 2048.")
    questions = (Question(solve_for="rank", where="reduction", equals="0.99"),)

    in_dim = Input(integer=True, positive=True, symbol=r"d_{\mathrm{in}}", doc="Input width of the matrix.")
    out_dim = Input(integer=True, positive=True, symbol=r"d_{\mathrm{out}}", doc="Output width of the matrix.")
    rank = Input(integer=True, positive=True, symbol="r", doc="Rank of the update (inner width of the factors).")
    bytes_per_param = Input("byte", positive=True, default=None, symbol="v",
                            doc="Width of one parameter; optional, needed only by the byte sizes.")

    full_params = Output(in_dim * out_dim, doc="Parameters of the dense matrix.")
    update_params = Output(rank * (in_dim + out_dim), doc="Parameters of the two factors.")
    # 1 - u/f written as (f - u)/f: the counts subtract exactly, so a near-break-even rank does not cancel
    reduction = Output((full_params - update_params) / full_params,
                       doc="Fraction of the dense parameters the update saves (negative when it is larger).")
    compression = Output(full_params / update_params, doc="Dense parameters per update parameter.")
    full_bytes = Output(full_params * bytes_per_param, "MB", doc="Bytes of the dense matrix.")
    update_bytes = Output(update_params * bytes_per_param, "MB", doc="Bytes of the update.")


TransformerLayerRank4Update = Instance(
    LowRankUpdateScenario,
    name="Rank-4 update of a 768 x 768 projection",
    description="A rank-4 LoRA update of one 768 x 768 attention projection (BERT-Base or GPT-2 Small width).",
    in_dim=768,
    out_dim=768,
    rank=4,
)

Rank128Factorization4096 = Instance(
    LowRankUpdateScenario,
    name="Rank-128 factorization of a 4096 x 4096 FP32 matrix",
    description="A 4096 x 4096 FP32 matrix replaced by two rank-128 factors.",
    in_dim=4096,
    out_dim=4096,
    rank=128,
    bytes_per_param=Constants.ByteWidths.FP32,
)
