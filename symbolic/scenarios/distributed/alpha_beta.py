"""Point-to-point messages on named α-β paths: time per path and message, and each path's critical size."""

from symbolic.catalog import Hardware, Systems
from symbolic.model import Group, Instance, Len, ListInput, PerItem, Q, Scenario, Series, Sweep, decades, index

k = index("k", "path")
m = index("m", "message")


class AlphaBetaScenario(Scenario):
    """Each message of `messages` sent once over each path of `alphas`: α + M/β (Hockney's α-β model).

    A message pays a fixed startup α (software, NIC and switch latency) and then streams at
    the path's bandwidth β. Below the critical size n* = α·β the startup dominates (sending
    twice the bytes costs little more); above it the bandwidth does. Faster links raise n*:
    they shorten the streaming, not the startup.
    """

    assumptions = "One message at a time per path, no contention, a constant startup per message."
    excludes = "Protocol segmentation, congestion, eager/rendezvous switches and pipelining of large messages."
    references = (
        "Hockney, The communication challenge for MPP: Intel Paragon and Meiko CS-2, Parallel Computing 20(3), 1994.",
        "Culler et al., LogP: towards a realistic model of parallel computation, PPoPP 1993.",
    )
    differs = {
        "bandwidths": "every bandwidth must be greater than 0, checked when the instance is built (the reference "
                      "raises only when it evaluates the path); a bare number is read in Gbps. `result.bandwidths` "
                      "lists the paths of `alphas`, in their order (the reference copies the whole input dict), each a Quantity "
                      "in Gbps: the same magnitude as the reference's echo once converted, where the reference "
                      "keeps each value in the unit it was given (450.0 GB/s for NVLink).",
        "messages": "a bare number is read in bytes (the reference reads it as bits: 8000 → 1000 byte).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.AlphaBetaHdrNdrSmallMessage
>>> s.result.times["NDR"]["small"]
<Quantity(1.7e-06, 'second')>
>>> s.result.crossovers["NDR"]
<Quantity(75000.0, 'byte')>
"""

    main_outputs = ()  # every output is per path (and per message)
    chart = Sweep(
        instance="AlphaBetaNdrRoce",
        input="messages[shard]",
        values=decades(2, 9, 2),
        series=(Series("result.times[NDR][shard]", "InfiniBand NDR (α 1.5 µs, 400 Gb/s)"),
                Series("result.times[RoCE 100G][shard]", "RoCE 100 GbE (α 5 µs)"),
                Series("result.times[RoCE 400G][shard]", "RoCE 400 GbE (α 5 µs)")),
        xlabel="message [byte]",
        ylabel="time [s]",
        caption="Flat below the critical size α·β (startup-bound), linear above it (bandwidth-bound).")
    questions = ()

    alphas = ListInput("µs", keyed=True, nonnegative=True, min_length=0, symbol=r"\alpha",
                       doc="Startup latency of each named path.")
    bandwidths = ListInput("Gbps", positive=True, aligned_to=alphas, min_length=0, symbol=r"\beta",
                           doc="Bandwidth of each path, one direction (every path of `alphas` needs one).")
    messages = ListInput("byte", keyed=True, nonnegative=True, min_length=0, symbol="M",
                         doc="Sizes of the named messages.")

    result = Group(alphas, bandwidths, messages, doc="Times by path then message, and each path's critical size.")
    grid = {"keys": (alphas, messages), "group": result}
    paths_and_messages = ((k, 0, Len(alphas) - 1), (m, 0, Len(messages) - 1))
    times = PerItem(alphas[k] + messages[m] / bandwidths[k], paths_and_messages, "s", **grid,
                    doc="Point-to-point time of each message on each path: the startup latency plus the time to "
                        "stream it.")
    transmission_times = PerItem(messages[m] / bandwidths[k], paths_and_messages, "s", **grid,
                                 doc="The streaming time alone, without the startup latency: what dominates large "
                                     "messages.")
    crossovers = PerItem(alphas[k] * bandwidths[k], (k, 0, Len(alphas) - 1), "byte", keys=alphas, group=result,
                         doc="The critical message size: below it the startup latency dominates, above it the "
                             "bandwidth.")


_switch = Systems.SwitchFabric
_fabrics = Systems.Fabrics

AlphaBetaNdrRoce = Instance(
    AlphaBetaScenario,
    name="A 4 kB control message and a 350 MB shard over InfiniBand NDR and RoCE",
    description="The control message is all startup (1.6 µs on NDR, 5.3 µs on RoCE); the shard is all bandwidth "
                "(7 ms at 400 Gb/s, 28 ms at 100 Gb/s).",
    alphas={"NDR": _switch.AlphaNdr, "RoCE 100G": _switch.AlphaRoce, "RoCE 400G": _switch.AlphaRoce},
    bandwidths={"NDR": _fabrics.InfiniBand_NDR.bandwidth, "RoCE 100G": _fabrics.Ethernet_100G.bandwidth,
                "RoCE 400G": _fabrics.RoCE_400G.bandwidth},
    messages={"control": Q("4000 B"), "shard": Q("350 MB")},
)

AlphaBetaHdrNdrSmallMessage = Instance(
    AlphaBetaScenario,
    name="A 10 kB message over InfiniBand HDR and NDR at the same startup",
    description="At 10 kB the doubled bandwidth of NDR saves only 0.2 µs of 1.9: the message is below both "
                "critical sizes.",
    alphas={"HDR": _switch.AlphaNdr, "NDR": _switch.AlphaNdr},
    bandwidths={"HDR": _fabrics.InfiniBand_HDR.bandwidth, "NDR": _fabrics.InfiniBand_NDR.bandwidth},
    messages={"small": Q("10 kB")},
)

CriticalSizeByInterconnect = Instance(
    AlphaBetaScenario,
    name="The critical message size α·β of NVLink, PCIe Gen5, RoCE, HDR and NDR",
    description="Mid-range effective startups: NVLink's 450 GB/s puts its critical size at 675 kB, "
                "InfiniBand's at 75-88 kB.",
    alphas={
        "NVLink": (_switch.EffectiveAlphaNvlinkLow + _switch.EffectiveAlphaNvlinkHigh) / 2,
        "PCIe Gen5": (_switch.EffectiveAlphaPcieGen5Low + _switch.EffectiveAlphaPcieGen5High) / 2,
        "RoCE": (_switch.EffectiveAlphaRoceLow + _switch.EffectiveAlphaRoceHigh) / 2,
        "HDR": (_switch.EffectiveAlphaHdrLow + _switch.EffectiveAlphaHdrHigh) / 2,
        "NDR": _switch.AlphaNdr,
    },
    bandwidths={
        "NVLink": Hardware.Cloud.H100.nvlink.bandwidth_per_direction,
        "PCIe Gen5": Hardware.Cloud.H100.interconnect.bandwidth,
        "RoCE": _fabrics.Ethernet_100G.bandwidth,
        "HDR": _fabrics.InfiniBand_HDR.bandwidth,
        "NDR": _fabrics.InfiniBand_NDR.bandwidth,
    },
    messages={},
)
