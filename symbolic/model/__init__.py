"""The declaration language: a scenario is a class whose body reads like its math.

    from symbolic.model import Group, Input, Output, Scenario

    class HostDispatchScenario(Scenario):
        ops_per_block = Input(integer=True, nonnegative=True, symbol="n", doc="...")
        dispatch = Input("µs", nonnegative=True, symbol="d", doc="...")
        operations = Output(blocks * ops_per_block, doc="...")
        result = Group(doc="...")                     # outputs join it with group=result
        dispatch_time = Output(operations * dispatch, "µs", group=result, doc="...")

Inside a class body every declaration is replaced by what later lines compute with:
an input or output becomes a sympy ``Symbol`` named after its attribute; a list input
or per-item output an ``IndexedBase`` (``layer_widths[l]``); a ``Table`` a ``TableRef``
(``op_flops["relu"]``, or ``peak[k]`` for a key ``k = key("k")`` inside ``Table(..., over=k)``);
a ``Group`` a ``GroupRef`` (passed as ``group=``); a ``Sub`` a ``SubRef`` (``host.overhead_ratio``); a ``Node`` a
``NodeRef`` (``hardware.peak``). The class collects the declarations, in order, into
``cls.model`` (a ``ScenarioModel``) that the generator checks and prints. An output can
only use names declared above it, so the definitions form a DAG by construction.

How it works
------------
``declarations.py`` (inputs, outputs, tables, groups, text), ``structured.py`` (nodes,
precisions, datasets, choices, scenario inputs, requirements, contained scenarios), ``feasibility.py``
(``Fits``: what must fit where, and the outputs that exist only when it does) and
``workload.py`` (a workload input, reading a catalog record type's fields) bind each
declaration into the class's ``ScenarioModel`` (``collected.py``, immutable once the class
is built by ``scenario.py``'s metaclass); ``dependencies.py`` answers what a quantity reads.
``instances.py`` declares the registry entries, ``presentation.py`` the charts and
questions, ``functions/`` the math functions (one declaration module each: ``floor``, ``Max``, ``exp``,
``LambertW``...) and the language's own nodes (``Len``, ``MaxOver``, ``index``).
This package is a scenario file's one import surface: it also re-exports ``Q``/``literal``
(catalog values written as source) and the sympy functions the scenarios use. It sits on
``symbolic.catalog`` and ``symbolic.runtime``; the analysis and the generator sit on it.
"""

from symbolic.model.collected import (
    UNIT_SYMBOLS,
    ChoiceDecl,
    DatasetDecl,
    FitsDecl,
    GroupDecl,
    InputDecl,
    ListDecl,
    ListQuantity,
    MethodDecl,
    NodeDecl,
    OutputDecl,
    PrecisionDecl,
    Quantity,
    RequirementDecl,
    ScalarDecl,
    ScalarQuantity,
    ScenarioInputDecl,
    ScenarioModel,
    StructuredDecl,
    SubDecl,
    TableDecl,
    TextDecl,
    TextQuantity,
    WorkloadDecl,
    _symbols,
    flop,
    unit_constant,
)
from symbolic.model.declarations import (
    Declaration,
    Echo,
    Group,
    GroupRef,
    Input,
    ListInput,
    Output,
    PerItem,
    Step,
    Table,
    TableRef,
    Text,
    key,
)
from symbolic.model.arguments import Argument
from symbolic.model.feasibility import Fits
from symbolic.model.presentation import Question, Series, Sweep, decades, powers_of_two
from symbolic.model.scenario import Scenario
from symbolic.model.workload import WorkloadInput, WorkloadRef
from symbolic.model.structured import (
    Choice,
    Dataset,
    Node,
    NodeRef,
    Precision,
    Require,
    ScenarioInput,
    ScenarioInputRef,
    Sub,
    SubRef,
)

# A scenario file's whole vocabulary, beyond the declarations above: registry entries and
# their values (``Instance``, ``Q``, ``literal``), the functions sympy lacks (``Len``,
# ``index``, ...) and the sympy functions the scenarios write with, so that a scenario imports
# only ``symbolic.model`` and ``symbolic.catalog`` (and the scenarios it contains).
from sympy import Eq, Ge, Max, Min, Piecewise, Product, Rational, Sum, ceiling, floor, log, sqrt

from symbolic.catalog.refs import Q, literal
from symbolic.model.functions import EXPORTS as _DECLARED_FUNCTIONS
from symbolic.model.functions import CeilLog2, Exceeds, Len, MaxOver, index
from symbolic.model.instances import Instance

__all__ = [  # what scenario files use
    "Argument", "CeilLog2", "Choice", "Dataset", "Echo", "Eq", "Exceeds", "Fits", "Ge", "Group", "Input", "Instance", "Len", "ListInput",
    "Max", "MaxOver", "Min", "Node", "Output", "PerItem", "Piecewise", "Precision", "Product", "Q", "Question",
    "Rational", "Require", "Scenario", "ScenarioInput", "Series", "Step", "Sub", "Sum", "Sweep", "Table", "Text",
    "WorkloadInput", "ceiling", "decades", "flop", "floor", "index", "key", "literal", "log", "powers_of_two", "sqrt",
    "unit_constant",
]

# Every function declared by a module of symbolic/model/functions/ (exp, LambertW, trunc...), by its name:
# a new declaration module is importable from here with no edit of this file.
globals().update({name: node for name, node in _DECLARED_FUNCTIONS.items() if name not in globals()})
__all__ += sorted(set(_DECLARED_FUNCTIONS) - set(__all__))

__all__ += [  # what the analysis and the generator read
    "UNIT_SYMBOLS", "MethodDecl", "ChoiceDecl", "DatasetDecl", "Declaration", "FitsDecl", "GroupDecl", "GroupRef", "InputDecl", "ListDecl",
    "ListQuantity", "NodeDecl", "NodeRef", "OutputDecl", "PrecisionDecl", "Quantity", "RequirementDecl", "ScalarDecl",
    "ScalarQuantity", "ScenarioInputDecl", "ScenarioInputRef", "ScenarioModel", "StructuredDecl", "SubDecl", "SubRef",
    "TableDecl", "TableRef", "TextDecl", "TextQuantity", "WorkloadDecl", "WorkloadRef", "_symbols",
]
