"""mlsysym: ML-systems napkin math, generated from one symbolic declaration per scenario.

The runtime API (no sympy, no jinja2; pint only when a Quantity is built):

    >>> import mlsysym
    >>> step = mlsysym.Scenarios.MnistTwoLayerTrainingStepOnH100
    >>> step.compute_time
    <Quantity(0.195531463, 'microsecond')>
    >>> step.variant(batch_size=4096).compute_time.to("ms")
    <Quantity(0.0250280272, 'millisecond')>
    >>> mlsysym.sensitivity(step, "compute_time")[0].input
    'batch_size'
    >>> out = mlsysym.sweep(step, {"batch_size": [32, 64]})
    >>> out["compute_time"].round(4).tolist(), out.units["compute_time"]
    ([0.1955, 0.3911], 'µs')

``solve``, ``scaling``, ``closed_form`` and ``derivative`` work on the symbolic
declarations and need the ``generator`` extra (``pip install 'mlsysym[generator]'``);
without it they raise ``MissingExtraError`` saying so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import generated
from generated import __all__ as _generated_names
from symbolic.runtime.model_config import workload_from_config as _from_config

if TYPE_CHECKING:
    from generated import *  # noqa: F403 (the generated runtime API, re-exported as is)
    from generated import SCENARIO_CLASSES  # noqa: F401
    from symbolic.runtime.analysis import Change, Sensitivity, compare, sensitivity  # noqa: F401
    from symbolic.runtime.errors import MissingExtraError  # noqa: F401
    from symbolic.runtime.node_file import hardware_from_file, read_node_file  # noqa: F401
    from symbolic.runtime.sweep import SweepResult, sweep  # noqa: F401

# The runtime's analysis helpers, imported on first use like the generated names.
_RUNTIME = {"Change": "symbolic.runtime.analysis", "Sensitivity": "symbolic.runtime.analysis",
            "compare": "symbolic.runtime.analysis", "sensitivity": "symbolic.runtime.analysis",
            "MissingExtraError": "symbolic.runtime.errors", "SweepResult": "symbolic.runtime.sweep",
            "sweep": "symbolic.runtime.sweep", "hardware_from_file": "symbolic.runtime.node_file",
            "read_node_file": "symbolic.runtime.node_file"}

__all__ = [*_generated_names, "SCENARIO_CLASSES", "Change", "MissingExtraError", "Sensitivity", "SweepResult",
           "closed_form", "compare", "derivative", "evaluate_declared", "hardware_from_file", "read_node_file", "scaling", "sensitivity",
           "solve", "sweep", "workload_from_config"]


def workload_from_config(source: Any, **overrides: Any) -> Any:
    """A workload record from a Hugging Face ``config.json`` (a path, or the parsed mapping): its layout,
    whose declared counts every scenario reads (``symbolic.runtime.model_config`` lists the families and
    the keys each reads). ``overrides`` set fields the config does not hold (``name=``, ``context_length=``).

    >>> llama = workload_from_config({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
    ...     "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256})
    >>> llama.parameters.magnitude, llama.kv_cache_bytes_per_token("bf16").magnitude
    (8030261248, 131072)
    """
    from generated import workloads  # start-up: the record classes load on first use

    return _from_config(source, {name: getattr(workloads, name) for name in workloads.__all__}, **overrides)


def __getattr__(name: str) -> Any:
    """The generated runtime API, read from ``generated`` on first use (so importing is cheap)."""
    if name in _generated_names or name == "SCENARIO_CLASSES":
        return getattr(generated, name)
    if name in _RUNTIME:
        from importlib import import_module

        value = getattr(import_module(_RUNTIME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mlsysym' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _analysis(name: str) -> Any:
    """``symbolic.analysis.<name>``, imported on first use (start-up): ``import mlsysym`` loads no sympy, which
    only the `generator` extra installs."""
    from importlib import import_module

    return import_module(f"symbolic.analysis.{name}")


def solve(scenario: Any, unknown: str, output: str, target: Any) -> Any:
    """Solve ``output = target`` for the input ``unknown`` (see ``symbolic.analysis.solving.solve``).

        >>> import mlsysym
        >>> fit = mlsysym.solve(mlsysym.Scenarios.PhoneFullUpdateWorkingSet, "parameters", "total",
        ...                     mlsysym.Q_(8, "GiB"))
        >>> round(fit.values[0])
        238609294
    """
    return _analysis("solving").solve(scenario, unknown, output, target)


def evaluate_declared(scenario: Any, **inputs: Any) -> Any:
    """A declared scenario (a ``Scenario`` subclass you wrote, not generated) evaluated exactly at
    ``inputs``: ``{output: (exact value, unit)}`` (see ``symbolic.analysis.exact.evaluate_declared``).
    An installed copy cannot generate (that needs a checkout), so this is how it explores a new
    scenario: exact sympy, slower than a generated evaluator, no sweeps or search."""
    return _analysis("exact").evaluate_declared(scenario, **inputs)


def scaling(scenario: Any, output: str) -> Any:
    """Leading-order growth of ``output`` in each input (see ``symbolic.analysis.derive.scaling``).

        >>> import mlsysym
        >>> mlsysym.scaling(mlsysym.Scenarios.PhoneFullUpdateWorkingSet, "total").per_input["parameters"]
        1
    """
    return _analysis("derive").scaling(scenario, output)


def closed_form(scenario: Any, output: str) -> Any:
    """``output`` as a sympy expression of the inputs only (base units)."""
    return _analysis("derive").closed_form(scenario, output)


def derivative(scenario: Any, output: str, with_respect_to: str) -> Any:
    """The exact partial derivative of ``output``'s closed form (base units)."""
    return _analysis("derive").derivative(scenario, output, with_respect_to)
