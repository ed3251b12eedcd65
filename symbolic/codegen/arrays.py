"""Every printed form runs on arrays, checked at generation: a sweep hands the evaluator numpy arrays,
so a form that works on numbers only (``range`` over an input, a Python ``if`` on a value) must fail
here, naming the scenario, rather than first in a sweep."""

from __future__ import annotations

from typing import Any

from symbolic.analysis.exact import instance_values
from symbolic.codegen.derivations import _number
from symbolic.model import ScenarioModel
from symbolic.model.arguments import argument_spec
from symbolic.model.instances import Instance
from symbolic.runtime.errors import DeclarationError


def check_on_arrays(model: ScenarioModel, instances: tuple[Instance, ...], functions: dict[str, Any]) -> None:
    """Run the compiled ``evaluate`` on the first registry entry's numbers, each number input as an array of
    two equal values (list inputs stay lists); refuse the scenario when it raises or when an output that
    reads them is not an array."""
    if not instances:
        return
    import numpy  # not ours: numpy loads only to render

    args = {name: _number(value) for name, value in instance_values(instances[0]).items()}
    keys = {decl.name for decl in model.evaluator_inputs() if decl.argument and argument_spec(decl).key_of}
    numbers = [name for name, value in args.items()
               if isinstance(value, (int, float)) and not isinstance(value, bool) and name not in keys]  # a key is a position
    if not numbers:
        return
    arrays = {**args, **{name: numpy.array([args[name]] * 2, dtype=object if abs(args[name]) > 2**62 else None)
                         for name in numbers}}
    with numpy.errstate(all="ignore"):
        try:
            functions["evaluate"](**arrays)
        except (TypeError, ValueError, IndexError) as error:
            raise DeclarationError(
                f"{model.name}: its evaluator fails on arrays of inputs, as a sweep gives them "
                f"({type(error).__name__}: {error}), at {instances[0].key or 'its first registry entry'}: a printed "
                "form works on numbers only (a Sum, Product or MaxOver whose range is read from a list of steps, "
                "or a function whose declaration prints scalar-only Python: see symbolic/model/functions/)") from None
