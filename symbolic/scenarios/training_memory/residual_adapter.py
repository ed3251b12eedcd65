"""Residual bottleneck adapters: a down- and an up-projection with biases, at several sites."""

from symbolic.catalog import Constants
from symbolic.model import Input, Instance, Output, Question, Scenario, Series, Sweep, powers_of_two


class ResidualAdapterScenario(Scenario):
    """Residual bottleneck adapters of `width` to `bottleneck`, one at each of `sites`.

    Each adapter is a down-projection d → r and an up-projection r → d, each with a bias,
    added to the residual stream: 2·d·r weights, r + d biases.
    """

    assumptions = "Every site has the same width; both projections carry a bias; widths are uniform."
    excludes = "Layer-norm parameters inside the adapter, the frozen backbone and optimizer state."
    references = (
        "Houlsby et al., Parameter-efficient transfer learning for NLP, ICML 2019 "
        "(bottleneck adapters: 2md + d + m parameters per adapter).",
    )
    differs = {
        "width": "at least 1: the reference accepts 0 (an adapter of r parameters) and negative widths (negative "
                 "counts, -149 for width -5 at bottleneck 16).",
        "bottleneck": "at least 1, checked when the instance is built (the reference raises ValueError when a count "
                      "is read).",
        "sites": "at least 0 (the reference accepts negative counts).",
        "bytes_per_param": "a bare number is bytes; the reference reads it as bits.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.CompactEncoderResidualAdapters
>>> s.params_per_adapter
25360
>>> s.total_bytes
<Quantity(0.60864, 'megabyte')>
"""

    main_outputs = ("params_total", "total_bytes")
    chart = Sweep(
        instance="CompactEncoderResidualAdapters", input="bottleneck", values=powers_of_two(9),
        series=(Series("total_bytes", "all adapters"),),
        xlabel="bottleneck r", ylabel="adapter bytes [MB]",
        caption="Bytes of the twelve adapters of a 768-wide encoder against the bottleneck width: linear in r.")
    questions = (Question(solve_for="bottleneck", where="total_bytes", equals="1 MB"),)

    width = Input(integer=True, positive=True, symbol="d", doc="Width of the residual stream.")
    bottleneck = Input(integer=True, positive=True, symbol="r", doc="Width of the adapter's bottleneck.")
    sites = Input(integer=True, nonnegative=True, symbol="n", doc="Adapters inserted (e.g. one per layer).")
    bytes_per_param = Input("byte", positive=True, symbol="v", doc="Width of one adapter parameter.")

    params_per_adapter = Output(2 * width * bottleneck + bottleneck + width,
                                doc="Down and up projection weights plus their biases.")
    params_total = Output(params_per_adapter * sites, doc="Parameters of all adapters.")
    adapter_bytes = Output(params_per_adapter * bytes_per_param, "KB", doc="Bytes of one adapter.")
    total_bytes = Output(params_total * bytes_per_param, "MB", doc="Bytes of all adapters.")


CompactEncoderResidualAdapters = Instance(
    ResidualAdapterScenario,
    name="Bottleneck-16 adapters in a 12-layer 768-wide encoder, FP16",
    description="One 768 -> 16 -> 768 residual adapter in each of 12 layers, stored in FP16.",
    width=768,
    bottleneck=16,
    sites=12,
    bytes_per_param=Constants.ByteWidths.FP16,
)
