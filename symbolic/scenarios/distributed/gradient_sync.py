"""One data-parallel step: compute, then a ring AllReduce of the gradients over each link."""

from symbolic.catalog import Models, Systems, storage_widths
from symbolic.catalog.workloads import STATED_SIZE_WIDTH
from symbolic.model import (
    Choice, Eq, Group, Input, Instance, Len, ListInput, Output, PerItem, Q, Question, Require, Scenario, Series, Sweep,
    WorkloadInput, decades, index, unit_constant,
)

# A ring AllReduce sends 2(N − 1)/N of the buffer per rank, 2 at large N (Literature.Communication.RingAllreduceFactor).
LARGE_N_RING_FACTOR = 2

k = index("k", "link")


class GradientSyncScenario(Scenario):
    """A data-parallel step of `workload`: `compute_time` of compute, then its gradients AllReduced over each link.

    The gradients are the weights at `precision`; a ring AllReduce over many workers sends
    about twice that per worker (2(N − 1)/N → 2), so the step over a link of bandwidth β
    takes t + 2W/β with no overlap. A faster accelerator (`compute_speedup`) shrinks only the
    compute, so the share of the step spent computing falls. Energy is the bits sent times
    the link's energy per bit.
    """

    assumptions = ("Large-N ring AllReduce (2W bytes per worker, no startup term); compute and communication do "
                   "not overlap; every link carries the whole AllReduce alone.")
    excludes = "Bucketing and overlap with the backward pass, gradient compression, hierarchical schemes."
    references = (
        "Patarasuk and Yuan, Bandwidth optimal all-reduce algorithms for clusters of workstations, JPDC 69(2), 2009.",
        "Li et al., PyTorch Distributed: experiences on accelerating data parallel training, VLDB 13(12), 2020.",
    )
    differs = {
        "energy_per_bit": "0 by default (no energy counted), where the reference takes None and returns 0 J; "
                          "a bare number is read in pJ/bit (the reference rejects it).",
        "workload": "a workload known only by its stored `model_size` (DLRM) is AllReduced at that size at a 16-bit "
                    "precision and refused by name at any other (its parameter count is unknown), where the reference "
                    "AllReduces that size at any precision.",
        "compute_speedup": "must be greater than 0 (the reference divides by it: ZeroDivisionError at 0).",
        "links": "every bandwidth must be greater than 0 (the reference divides by a zero bandwidth).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Gpt3GradientSync
>>> s.result.sync_bytes
<Quantity(7e+11, 'byte')>
>>> s.result.step_times["InfiniBand"]
<Quantity(29.2, 'second')>
"""

    main_outputs = ("result.sync_bytes", "result.energy_total")
    chart = Sweep(
        instance="Gpt3GradientSync",
        input="compute_time",
        values=decades(-1, 2, 4),
        series=(Series("result.step_times[InfiniBand]", "step over InfiniBand HDR"),
                Series("result.step_times[Ethernet]", "step over 100 GbE"),
                Series("result.transfer_times[InfiniBand]", "AllReduce over InfiniBand HDR", dashed=True),
                Series("result.transfer_times[Ethernet]", "AllReduce over 100 GbE", dashed=True)),
        xlabel="compute time per step [s]",
        ylabel="time per step [s]",
        caption="GPT-3's fp16 gradients (700 GB per step across the ring): the AllReduce dominates the step until "
                "compute reaches tens of seconds.")
    questions = (Question(solve_for="compute_time", where="result.compute_fractions[InfiniBand]", equals="0.5"),
                 Question(solve_for="steps", where="result.energy_total", equals="1 GJ"))

    workload = WorkloadInput("Workload", requires=("stored_values",), doc="The model; its weights at `precision` (P·b, or its stated 16-bit size) are the "
                                 "gradient buffer.")
    precision = Choice(storage_widths(), "byte", default="fp16", case_insensitive=True, symbol="b",
                       doc="Gradient storage precision.")
    stated_size_is_16_bit = Require(Eq(precision, 2 * unit_constant("byte")), STATED_SIZE_WIDTH, unless=workload.parameters)
    links = ListInput("Gbps", keyed=True, positive=True, min_length=0, symbol=r"\beta",
                      doc="Bandwidth of each named link, one direction, per worker.")
    compute_time = Input("s", nonnegative=True, symbol="t_c", doc="Compute time of one step before the speedup.")
    energy_per_bit = Input("pJ/bit", nonnegative=True, default=0, symbol=r"\varepsilon",
                           doc="Energy per bit sent (0: not counted).")
    steps = Input(integer=True, nonnegative=True, default=1, symbol="s", doc="Training steps.")
    compute_speedup = Input(positive=True, default=1.0, symbol=r"\sigma",
                            doc="Factor by which a faster accelerator shrinks the compute.")

    result = Group(doc="Bytes, times per link and energy of the step.")
    with result:
        sync_bytes = Output(LARGE_N_RING_FACTOR * workload.stored_values * precision, "byte", symbol="B",
                            doc="Bytes each worker sends in the ring AllReduce: about twice its gradients.")
        step_compute_time = Output(compute_time / compute_speedup, "s", field="compute_time", symbol="t",
                                   doc="Compute time of one step once compute runs `compute_speedup` times faster.")
        over_links = (k, 0, Len(links) - 1)
        transfer_times = PerItem(sync_bytes / links[k], over_links, "s", keys=links,
                                 doc="AllReduce time of the step's gradient bytes over each link.")
        step_times = PerItem(step_compute_time + transfer_times[k], over_links, "s", keys=links,
                             doc="Step time over each link: the compute, then the AllReduce (no overlap).")
        compute_fractions = PerItem(step_compute_time / step_times[k], over_links, keys=links,
                                    doc="Share of the step spent computing.")
        energy_per_step = Output(sync_bytes * energy_per_bit, "J",
                                 doc="Energy of the bits the AllReduce sends, at the link's energy per bit.")
        energy_total = Output(energy_per_step * steps, "J", doc="Energy over `steps` steps.")

Gpt3GradientSync = Instance(
    GradientSyncScenario,
    name="GPT-3's fp16 gradients synchronised over InfiniBand HDR and 100 GbE",
    description="700 GB per step across the ring: 28 s over HDR and 56 s over 100 GbE against 1.2 s of compute.",
    workload=Models.Language.GPT3,
    precision="fp16",
    links={"InfiniBand": Systems.Fabrics.InfiniBand_HDR.bandwidth, "Ethernet": Systems.Fabrics.Ethernet_100G.bandwidth},
    compute_time=Q("1.2 s"),
    energy_per_bit=Systems.NetworkEnergy.InfiniBandEnergyPerBit,
    steps=1000000,
    compute_speedup=1.0,
)

Gpt3GradientSyncFasterAccelerator = Gpt3GradientSync.variant(
    name="GPT-3's gradient sync on an accelerator twice as fast",
    description="Halving the compute (0.6 s) barely moves the step: the AllReduce is 98 % of it.",
    compute_speedup=2.0,
)
