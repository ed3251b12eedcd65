"""Ring, binary tree and parameter server AllReduce at several group sizes, in the α-β model."""

from symbolic.catalog import Constants, Models, Systems
from symbolic.model import (
    CeilLog2, Group, Input, Instance, Len, ListInput, PerItem, Q, Question, Require, Scenario, Series, Sweep, index,
    log,
)

i = index("i", "group")


class AllReduceScheduleScenario(Scenario):
    """An AllReduce of `message` at each group size N of `group_sizes`: ring, tree and star, α-β model.

    A ring runs R = 2(N − 1) rounds (ReduceScatter, then AllGather), each sending one chunk
    M/N, so every rank sends 2(N − 1)/N · M and pays R startups α. A binary tree reduces up
    and broadcasts down in T = 2⌈log₂ N⌉ rounds of the whole message. A parameter server
    (star) receives all N messages on one link. The ring wins on bytes, the tree on startups;
    `crossover_exact` is the message size at which the two are equal.
    """

    assumptions = ("One link per rank of bandwidth β and per-message startup α; no overlap of rounds; "
                   "the reduction's compute is free.")
    excludes = "Topology and contention, pipelined (chunked) trees, in-network reduction."
    references = (
        "Hockney, The communication challenge for MPP: Intel Paragon and Meiko CS-2, Parallel Computing 20(3), "
        "1994 (the α-β model).",
        "Thakur, Rabenseifner and Gropp, Optimization of collective communication operations in MPICH, "
        "IJHPCA 19(1), 2005 (ring and tree AllReduce costs).",
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), 2009.",
    )
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.RingVsTreeSmallBuffer
>>> s.result.ring_rounds[64], s.result.tree_rounds[64]
(126, 12)
>>> s.result.ring_startup_time[64]
<Quantity(1260, 'microsecond')>
"""

    main_outputs = ()  # every output is per group size (a keyed list); derivations study scalars
    chart = Sweep(
        instance="RingVsTreeSmallBuffer",
        input="message",
        values=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0),
        series=(Series("result.ring_time[64]", "ring, 64 ranks"), Series("result.tree_time[64]", "tree, 64 ranks"),
                Series("result.star_byte_time[64]", "parameter server, 64 ranks (bytes only)", dashed=True)),
        xlabel="message [MB]",
        ylabel="time [s]",
        caption="AllReduce time over 64 ranks at 10 GB/s and 10 µs: the tree's fewer startups win below about "
                "1.1 MB, the ring's fewer bytes above.")
    questions = (Question(solve_for="message", where="result.ring_time[64]", equals="result.tree_time[64]"),)

    message = Input("MB", nonnegative=True, symbol="M", doc="Bytes each rank contributes.")
    group_sizes = ListInput(integer=True, minimum=2, min_length=0, unique=True, symbol="N",
                            doc="Group sizes N to compare (ranks ≥ 2; duplicates collapse).")
    alpha = Input("µs", nonnegative=True, symbol=r"\alpha", doc="Startup latency of one message.")
    bandwidth = Input("GB/s", positive=True, symbol=r"\beta", doc="Link bandwidth per rank, one direction.")
    run_steps = Input(integer=True, nonnegative=True, default=1, symbol="s", doc="Training steps, each one AllReduce.")
    time_saved_fraction = Input(nonnegative=True, default=0.0, symbol="f_s",
                                doc="Share of the ring time an optimisation saves, in [0, 1].")
    fraction_at_most_one = Require(time_saved_fraction <= 1, "time_saved_fraction must be at most 1")

    N = group_sizes
    result = Group(message, alpha, bandwidth, doc="Dicts keyed by group size N, in the order of `group_sizes`.")
    n = Len(N) - 1
    M, a, b = message, alpha, bandwidth

    per_n = {"keys": N, "group": result}  # every output: one entry per group size, keyed by it

    chunk = PerItem(M / N[i], (i, 0, n), "MB", **per_n, doc="The chunk each rank sends per ring round: the message "
                                                            "split evenly over the ranks.")
    ring_factor = PerItem(2 * (N[i] - 1) / N[i], (i, 0, n), **per_n, doc="Bytes each rank sends over the ring, as a "
                                                                         "multiple of the message: just under 2, "
                                                                         "since the ReduceScatter and the AllGather "
                                                                         "each pass all but one chunk.")
    ring_rounds = PerItem(2 * (N[i] - 1), (i, 0, n), **per_n, doc="Ring rounds: the ReduceScatter, then the "
                                                                  "AllGather, each one round short of the ring size.")
    tree_rounds = PerItem(2 * CeilLog2(N[i]), (i, 0, n), **per_n, doc="Tree rounds: the reduction up a binary tree, "
                                                                      "then the broadcast down it.")
    ring_byte_time = PerItem(ring_factor[i] * M / b, (i, 0, n), "s", **per_n,
                             doc="The ring's bandwidth term: the bytes each rank sends, at the link's bandwidth.")
    ring_startup_time = PerItem(ring_rounds[i] * a, (i, 0, n), "µs", **per_n, doc="The ring's startup term: one link "
                                                                                  "latency per round.")
    ring_time = PerItem(ring_byte_time[i] + ring_startup_time[i], (i, 0, n), "s", **per_n, doc="Ring AllReduce time.")
    tree_byte_time = PerItem(tree_rounds[i] * M / b, (i, 0, n), "s", **per_n, doc="The tree's bandwidth term: the "
                                                                                  "whole message sent once per "
                                                                                  "round.")
    tree_startup_time = PerItem(tree_rounds[i] * a, (i, 0, n), "µs", **per_n, doc="The tree's startup term: one link "
                                                                                  "latency per round.")
    tree_time = PerItem(tree_byte_time[i] + tree_startup_time[i], (i, 0, n), "s", **per_n, doc="Tree AllReduce time.")
    star_byte_time = PerItem(N[i] * M / b, (i, 0, n), "s", **per_n,
                             doc="A parameter server's bandwidth term: every rank's whole message into one link "
                                 "(startup ignored).")
    star_ring_limit = PerItem(N[i] / 2, (i, 0, n), **per_n, doc="How many times the ring's bytes a star moves as the "
                                                                "group grows: the server's link carries everyone's "
                                                                "message.")
    crossover_estimate = PerItem(N[i] * a * b / (log(N[i]) / log(2)), (i, 0, n), "byte", **per_n,
                                 doc="The rule-of-thumb message size at which ring and tree cost the same: below it "
                                     "the tree's fewer rounds win.")
    crossover_exact = PerItem((ring_rounds[i] - tree_rounds[i]) * a * b / (tree_rounds[i] - ring_factor[i]),
                              (i, 0, n), "byte", **per_n,
                              doc="The message size at which ring and tree times are equal, from both schedules' "
                                  "startup and bandwidth terms (0 for 2 or 3 ranks, where the two coincide).")
    saved_time = PerItem(ring_time[i] * time_saved_fraction, (i, 0, n), "s", **per_n,
                         doc="Ring time saved per step at `time_saved_fraction`.")
    saved_device_hours = PerItem(saved_time[i] * run_steps * N[i], (i, 0, n), "h", **per_n,
                                 doc="Device time saved over the run: the time saved per step, on every device, for "
                                     "every step.")


_ndr = {"alpha": Systems.SwitchFabric.AlphaNdr, "bandwidth": Systems.Fabrics.InfiniBand_NDR.bandwidth}
_profile = Constants.CollectiveCommunicationProfile
# The reference's dense-LLM pretraining fleet (DenseLLMPretrainingReference.system) is Training_1K.
_reference_fleet = Systems.Clusters.Training_1K.total_accelerators

DdpBucketRingNdr = Instance(
    AllReduceScheduleScenario,
    name="A 25 MB DDP gradient bucket over NDR InfiniBand, 64 and 1024 ranks",
    description="PyTorch DDP's default 25 MB bucket: the ring's 2(N − 1) startups of 1.5 µs cost more than its "
                "bytes at 1024 ranks, yet the tree's log-depth rounds each send the whole bucket.",
    message=Q("25 MB"),
    group_sizes=[64, _reference_fleet],
    **_ndr,
)

GradientBufferAllReduceNdr = Instance(
    AllReduceScheduleScenario,
    name="A 1 GB gradient buffer over NDR InfiniBand at 8, 64 and 1024 ranks",
    description="A 1 GB AllReduce: the ring stays near 2M/β = 40 ms at any group size, the tree grows with "
                "log₂ N and the parameter server linearly with N.",
    message=_profile.GradientBuffer,
    group_sizes=[8, 64, _reference_fleet],
    run_steps=_profile.TrainingRunSteps,
    **_ndr,
)

Llama2_70BGradientRing64Ndr = Instance(
    AllReduceScheduleScenario,
    name="Llama 2 70B fp16 gradients, ring AllReduce over 64 NDR ranks, half of it saved",
    description="140 GB of fp16 gradients per step over 64 ranks: 5.5 s of ring per step; saving half of it "
                "over 100 000 steps returns about 4900 device-hours.",
    message=Models.Language.Llama2_70B.size_in_bytes(Constants.ByteWidths.FP16),
    group_sizes=[64],
    run_steps=_profile.TrainingRunSteps,
    time_saved_fraction=0.5,
    **_ndr,
)

RingVsTreeSmallBuffer = Instance(
    AllReduceScheduleScenario,
    name="Ring against tree for a 1 MB buffer over 64 ranks",
    description="A 1 MB AllReduce over 64 ranks at 10 GB/s and 10 µs per message: the tree's 12 startups "
                "beat the ring's 126.",
    message=Q("1 MB"),
    group_sizes=[64],
    alpha=Q("10 µs"),
    bandwidth=Q("10 GB/s"),
)
