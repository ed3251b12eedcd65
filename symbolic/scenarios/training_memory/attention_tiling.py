"""One attention head's storage, whole or in square tiles: standard against FlashAttention."""

from symbolic.catalog import Constants
from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep, floor, powers_of_two


class AttentionTilingScenario(Scenario):
    """One head's attention at `seq_len` tokens, whole or in square `tile` × `tile` tiles.

    Standard attention stores the score and the probability matrices (S² values each)
    beside the Q, K, V and output tensors (S × d each); FlashAttention streams square
    tiles through on-chip memory and stores only per-row running statistics (the
    maximum and the sum of the softmax) instead of the S² matrices.
    """

    assumptions = ("Every stored value has the same width; one head at a time (`all_heads_scores` scales the score "
                   "matrix by the head count); tiles are square and only whole tiles are counted.")
    excludes = "On-chip SRAM capacity, recomputation cost in the backward pass, masking and dropout state."
    references = (
        "Dao et al., FlashAttention: fast and memory-efficient exact attention with IO-awareness, NeurIPS 2022 "
        "(tiling, online softmax statistics, O(S) extra storage).",
        "Vaswani et al., Attention is all you need, NeurIPS 2017 (the S x S score matrix).",
    )
    differs = {
        "tile": "at least 1: the reference divides by zero at 0.",
        "seq_len": "at least 1 (the reference accepts 0 and then divides by zero in `stored_ratio`).",
        "head_dim": "at least 1 (the reference accepts 0 or a negative width).",
        "heads": "at least 1 (the reference accepts 0 or a negative count).",
        "io_tensors": "at least 1, so FlashAttention's storage is never 0: the reference accepts 0 and divides by "
                      "zero in `stored_ratio` when `row_statistics` is 0 too.",
        "stored_square_matrices": "at least 0 (the reference accepts negative counts).",
        "row_statistics": "at least 0 (the reference accepts negative counts).",
        "bytes_per_value": "a bare number is bytes; the reference reads it as bits.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.AttentionScores4096TokensFp32
>>> s.score_matrix
<Quantity(67.108864, 'megabyte')>
>>> s.tile_count
1024
>>> round(s.stored_ratio, 6)
32.744186
"""

    main_outputs = ("stored_standard", "stored_flash", "stored_ratio")
    chart = Sweep(
        instance="AttentionScores4096TokensFp32", input="seq_len", values=powers_of_two(17)[7:],
        series=(Series("stored_standard", "standard attention: Q, K, V, O + scores + probabilities"),
                Series("stored_flash", "FlashAttention: Q, K, V, O + row statistics"),
                Series("io_bytes", "Q, K, V and output only", dashed=True)),
        xlabel="sequence length [tokens]", ylabel="stored bytes per head [MB]",
        caption="Storage of one head's attention against sequence length: the S² matrices of standard attention "
        "overtake the linear tensors within a few thousand tokens; FlashAttention stays linear.")
    questions = (Question(solve_for="seq_len", where="all_heads_scores", equals="80 GiB"),)

    seq_len = Input(integer=True, positive=True, symbol="S", doc="Tokens in the sequence.")
    head_dim = Input(integer=True, positive=True, symbol="d", doc="Width of one head.")
    tile = Input(integer=True, positive=True, symbol=r"\tau", doc="Side of a square tile, in tokens.")
    heads = Input(integer=True, positive=True, symbol="H", doc="Attention heads (for `all_heads_scores`).")
    bytes_per_value = Input("byte", positive=True, symbol="v", doc="Width of one stored value.")
    io_tensors = Input(integer=True, positive=True, default=4, symbol=r"n_{\mathrm{io}}",
                       doc="S × d tensors stored by both kernels: Q, K, V and the output.")
    stored_square_matrices = Input(integer=True, nonnegative=True, default=2, symbol=r"n_{\mathrm{sq}}",
                                   doc="S × S matrices standard attention stores: scores and probabilities.")
    row_statistics = Input(integer=True, nonnegative=True, default=2, symbol=r"n_{\mathrm{rs}}",
                           doc="Per-row values FlashAttention stores instead: running maximum and sum.")

    score_matrix = Output(seq_len**2 * bytes_per_value, "MB", doc="One head's score matrix: a score for every pair "
                                                                  "of tokens.")
    all_heads_scores = Output(heads * score_matrix, "GB", doc="The score matrices of all heads.")
    tile_bytes = Output(tile**2 * bytes_per_value, "KB", doc="One tile of the score matrix, the block a kernel holds "
                                                             "at a time.")
    tiles_per_side = Output(floor(seq_len / tile), doc="Whole tiles along one side of the score matrix.")
    tile_count = Output(tiles_per_side**2, doc="Whole tiles covering the score matrix.")
    qkv_bytes = Output(3 * seq_len * head_dim * bytes_per_value, "MB", doc="Query, key and value of the head.")
    io_bytes = Output(io_tensors * seq_len * head_dim * bytes_per_value, "MB",
                      doc="The per-token tensors both kernels store (their inputs and output, one row per token).")
    stored_standard = Output(io_bytes + stored_square_matrices * score_matrix, "MB",
                             doc="Standard attention's stored bytes: the per-token tensors and the full score "
                                 "matrices, which grow with the square of the sequence.")
    stored_flash = Output(io_bytes + row_statistics * seq_len * bytes_per_value, "MB",
                          doc="FlashAttention's stored bytes: the per-token tensors and per-row softmax statistics; "
                              "the score matrix is only ever held a tile at a time.")
    stored_ratio = Output(stored_standard / stored_flash, doc="Standard over FlashAttention storage.")


AttentionScores4096TokensFp32 = Instance(
    AttentionTilingScenario,
    name="One attention head at 4,096 tokens in FP32, in 128 x 128 tiles",
    description=("One head of width 64 (GPT-2 XL's 1600 / 25) at 4,096 tokens in FP32, tiled 128 x 128; "
                 "16 heads for the all-heads score total."),
    seq_len=4096,
    head_dim=64,
    tile=128,
    heads=16,
    bytes_per_value=Constants.ByteWidths.FP32,
)
