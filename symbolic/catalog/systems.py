# mypy: ignore-errors
# (a DSL, like the scenario modules mypy skips: a `Field` in a class body is bound to a sympy symbol)
"""The systems and link types (the schema of ``systems.toml`` and of the nodes' links).

Type and field names are the reference library's (mlsysim 0.3.0): ``Node``, ``NetworkFabric``,
``Fleet`` (what ``Systems.Clusters`` hold), ``IOInterconnect`` (a node's ``interconnect`` and
``nvlink``), ``MemorySystem`` (a node's ``memory``) and ``StorageTier``.
"""

from __future__ import annotations

from symbolic.catalog.schema import Derived, Field, Linked, Record, unit_constant


class IOInterconnect(Record):
    """A link: its bandwidth, counted per direction or as the total of both directions."""

    name = Field(text=True, required=True, doc="Display name.")
    bandwidth = Field("byte/s", positive=True, required=True, symbol=r"\beta",
                      doc="Bandwidth as published (per direction, or both directions summed).")
    direction = Field(choices={"per_direction": 1, "bidirectional_total": 2}, required=True, symbol="n_{dir}",
                      doc="How `bandwidth` is counted: `per_direction` (stands for 1) or `bidirectional_total` "
                          "(both directions summed; stands for 2).")
    latency = Field("ns", positive=True, doc="One-way latency of the link.")

    bandwidth_per_direction = Derived(bandwidth / direction, "byte/s", symbol=r"\beta_{dir}",
                                      doc="Bandwidth one way: a bidirectional total halved.")


class MemorySystem(Record):
    """A node's memory: capacity and bandwidth."""

    capacity = Field("byte", positive=True, symbol="M", doc="Device memory, as published (mostly GiB).")
    bandwidth = Field("byte/s", positive=True, required=True, symbol=r"\beta_{mem}", doc="Memory bandwidth.")

    labeled_capacity = Derived(capacity * unit_constant("GB") / unit_constant("GiB"), "byte", symbol="M_{label}",
                               doc="The capacity's number of GiB read as decimal GB (an \"80 GB\" part holds "
                                   "80 GiB): the share some reference formulas divide by, 7.4 % below the capacity.")


class StorageTier(Record):
    """A storage or host-memory tier feeding the accelerators."""

    name = Field(text=True, required=True, doc="Display name.")
    bandwidth = Field("byte/s", positive=True, required=True, symbol=r"\beta", doc="Sustained read bandwidth.")


class Node(Record):
    """A server: accelerators of one kind and the links between them."""

    name = Field(text=True, required=True, doc="Display name.")
    accelerator = Field(record="HardwareNode", required=True, doc="The accelerator (a `Hardware` node).")
    accelerators_per_node = Field(integer=True, positive=True, required=True, symbol="g",
                                  doc="Accelerators in one node.")
    intra_node_bw = Field("byte/s", positive=True, required=True, symbol=r"\beta_{intra}",
                          doc="Accelerator-to-accelerator bandwidth inside the node, one way.")
    nics_per_node = Field(integer=True, positive=True, fallback=1, doc="Network interfaces (1 when unset).")

    intra_node_aggregate_bw = Derived(accelerators_per_node * intra_node_bw, "byte/s",
                                      doc="Every accelerator's one-way link bandwidth, summed.")


class NetworkFabric(Record):
    """The network between nodes."""

    name = Field(text=True, required=True, doc="Display name.")
    topology = Field(text=True, doc="Topology (`fat-tree` in every catalog entry).")
    bandwidth = Field("byte/s", positive=True, required=True, symbol=r"\beta", doc="Bandwidth per port.")
    latency = Field("µs", positive=True, symbol=r"\alpha", doc="Per-message latency.")
    oversubscription_ratio = Field(positive=True, fallback=1, symbol="o",
                                   doc="Edge to core bandwidth ratio (1 when unset: non-blocking).")

    bisection_share = Derived(bandwidth / oversubscription_ratio, "byte/s", symbol=r"\beta_{core}",
                              doc="Bandwidth per port left at the core when every port sends at once.")


class Fleet(Record):
    """A cluster: nodes of one kind on one fabric."""

    name = Field(text=True, required=True, doc="Display name.")
    node = Field(record="Node", required=True, doc="The node (a `Systems.Nodes` entry).")
    count = Field(integer=True, positive=True, required=True, symbol="N", doc="Nodes.")
    fabric = Field(record="NetworkFabric", required=True, doc="The fabric (a `Systems.Fabrics` entry).")
    region = Field(text=True, doc="Region.")
    datacenter = Field(text=True, doc="Data center.")
    mtbf_hours = Field("hour", positive=True, doc="Mean time between failures of the fleet.")

    accelerators_per_node = Linked("node", "accelerators_per_node", integer=True, positive=True, symbol="g",
                                   doc="The node's accelerators.")
    total_accelerators = Derived(count * accelerators_per_node, symbol="G", doc="Accelerators in the fleet.")


SYSTEM_TYPES = (Node, NetworkFabric, Fleet, StorageTier)
LINK_TYPES = (IOInterconnect, MemorySystem)
SYSTEM_TIERS = ("Nodes", "Fabrics", "Clusters", "Storage", "TechStorage")
