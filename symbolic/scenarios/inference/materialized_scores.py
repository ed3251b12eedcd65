"""Attention scores stored in full: S² per head, every head of every layer."""

from symbolic.catalog import Constants, Hardware
from symbolic.model import Input, Instance, Node, Output, Question, Rational, Scenario, Series, Sweep, decades


class MaterializedScoresScenario(Scenario):
    """Attention scores stored in full: `seq_len`² per head, `heads` per layer, `layers` layers.

    Unfused attention writes the score matrix of every head before the softmax reads it
    back: one value per (query, key) pair. With `hardware`, one layer's scores are compared
    with the device's memory as labeled (its capacity in GiB read as decimal GB, the way the
    reference library divides: an 80 GiB H100 counts as 80 GB).
    """

    assumptions = "Every score of every head is stored at once, at `bytes_per_score` each; no tiling or recomputation."
    excludes = "Softmax outputs and dropout masks kept beside the scores, the KV cache and the weights."
    references = (
        "Vaswani et al., Attention is all you need, NeurIPS 2017 (the n x n score matrix per head).",
        "Dao et al., FlashAttention: fast and memory-efficient exact attention with IO-awareness, "
        "NeurIPS 2022 (why tiled kernels avoid storing it).",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.TwelveHeadScoresAt100kTokens
>>> s.scores_per_layer
120000000000
>>> s.layer_bytes
<Quantity(240.0, 'gigabyte')>
>>> round(s.layer_device_multiple, 12)
3.0
"""

    main_outputs = ("layer_bytes", "total_bytes", "layer_device_multiple")
    chart = Sweep(
        instance="TwelveHeadScoresAt100kTokens",
        input="seq_len",
        values=decades(3, 6),
        series=(Series("layer_bytes", "one layer's scores"), Series("total_bytes", "every layer's scores"),
         Series("device_memory", "H100 memory (as labeled)", dashed=True)),
        xlabel="sequence length [tokens]",
        ylabel="memory [GB]",
        caption="Stored attention scores of 12 heads at FP16 against the sequence length: quadratic growth, "
        "past one device's memory for a single layer near 58k tokens.")
    questions = (Question(solve_for="seq_len", where="layer_device_multiple", equals="1"),)

    seq_len = Input(integer=True, positive=True, symbol="S", doc="Tokens in the sequence (queries and keys).")
    heads = Input(integer=True, positive=True, symbol="n_h", doc="Attention heads per layer.")
    layers = Input(integer=True, positive=True, symbol="n_L", doc="Layers whose scores are stored.")
    bytes_per_score = Input("byte", positive=True, symbol="e", doc="Storage width of one score.")
    hardware = Node(optional=True, doc="Optional device whose memory one layer's scores are compared with.")

    scores_per_layer = Output(seq_len**2 * heads, doc="Scores of one layer: S² per head.")
    layer_bytes = Output(scores_per_layer * bytes_per_score, "GB", doc="Bytes of one layer's scores.")
    total_bytes = Output(layer_bytes * layers, "GB", doc="Bytes of every layer's scores.")
    device_memory = Output(hardware.capacity * Rational(10**9, 2**30), "GB",
                           doc="The device's memory as labeled: its capacity in GiB read as decimal GB "
                           "(80 GiB counts as 80 GB, as the reference library divides).")
    layer_device_multiple = Output(layer_bytes / device_memory, doc="One layer's scores over the device's memory.")


TwelveHeadScoresAt100kTokens = Instance(
    MaterializedScoresScenario,
    name="Twelve heads' attention scores at 100k tokens, FP16, against an H100",
    description=("A 32-layer model with 12 heads per layer storing every FP16 attention score of a "
                 "100,000-token sequence, compared with one H100's memory."),
    seq_len=100000,
    heads=12,
    layers=32,
    bytes_per_score=Constants.ByteWidths.FP16,
    hardware=Hardware.Cloud.H100,
)
