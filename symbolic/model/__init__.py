"""The declaration API: a scenario is a class whose body reads like its math.

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
"""

from symbolic.model.collected import (
    UNIT_SYMBOLS,
    ChoiceDecl,
    DatasetDecl,
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
    Table,
    TableRef,
    Text,
    key,
)
from symbolic.model.arguments import Argument
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

__all__ = [
    "Argument", "MethodDecl", "UNIT_SYMBOLS", "Choice", "Dataset", "Declaration", "Echo", "Group", "Input", "InputDecl", "ListInput", "Node",
    "NodeRef",
    "Output", "OutputDecl", "PerItem", "Precision", "PrecisionDecl", "Quantity", "Require", "RequirementDecl",
    "Scenario", "ScenarioInput", "ScenarioInputRef", "ScenarioModel", "StructuredDecl", "NodeDecl", "WorkloadDecl",
    "ChoiceDecl", "DatasetDecl", "ScenarioInputDecl", "ScalarDecl", "ListDecl", "TextDecl", "ScalarQuantity", "ListQuantity", "TextQuantity", "TableDecl", "GroupDecl",
    "SubDecl", "Sub", "SubRef", "Table",
    "TableRef", "Text", "WorkloadInput", "WorkloadRef", "_symbols", "flop", "unit_constant", "Series", "Sweep", "decades", "powers_of_two",
    "GroupRef", "Question", "key",
]
