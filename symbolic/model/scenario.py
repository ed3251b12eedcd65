"""The ``Scenario`` base class: its metaclass turns a class body into a ``ScenarioModel``."""

from __future__ import annotations

import inspect
from typing import Any

from symbolic.model.arguments import close_methods
from symbolic.model.collected import ScenarioModel
from symbolic.model.declarations import Declaration, close_groups
from symbolic.model.feasibility import check_bounds
from symbolic.model.presentation import Question, Sweep
from symbolic.runtime.errors import DeclarationError


class _Namespace(dict):
    """Class-body namespace that turns each declaration into what later lines use."""

    def __init__(self, model: ScenarioModel) -> None:
        super().__init__()
        self.model = model

    def __setitem__(self, key: str, value: Any) -> None:
        if isinstance(value, Declaration):
            value = value.bind(key, self.model)
        super().__setitem__(key, value)


class _ScenarioMeta(type):
    @classmethod
    def __prepare__(mcs, name: str, bases: tuple[type, ...], **kwargs: Any) -> _Namespace:  # type: ignore[override]
        return _Namespace(ScenarioModel(name))

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: _Namespace, **kwargs: Any) -> type:
        cls = super().__new__(mcs, name, bases, dict(namespace))
        model = namespace.model
        close_groups(model)
        close_methods(model)
        model.module = namespace.get("__module__", "")
        model.doc = inspect.cleandoc(namespace.get("__doc__", "") or "")
        if "category" in namespace:
            raise DeclarationError(f"{name}: the category is the family folder the module lives in "
                                   "(symbolic/scenarios/<family>/); remove the category attribute")
        model.assumptions = namespace.get("assumptions", "")
        model.excludes = namespace.get("excludes", "")
        model.references = tuple(namespace.get("references", ()))
        model.examples = namespace.get("examples", "")
        model.main_outputs = tuple(namespace.get("main_outputs", ()))
        model.questions = tuple(namespace.get("questions", ()))
        model.chart = namespace.get("chart")
        _check_presentation(model)
        model.roofline = dict(namespace.get("roofline", {}))
        model.differs = dict(namespace.get("differs", {}))
        unknown = sorted(set(model.differs) - set(model.names) - {q.name for q in model.quantities})
        if unknown:
            raise DeclarationError(f"{name}: differs names {', '.join(unknown)}, which it does not declare")
        model.bounds = check_bounds(model, namespace.get("bounds", {}))
        model.left_out = dict(namespace.get("left_out", {}))  # reference attributes not declared, and why
        model.widest_equation = namespace.get("widest_equation")
        if model.widest_equation is not None and not (isinstance(model.widest_equation, (int, float))
                                                      and not isinstance(model.widest_equation, bool)
                                                      and model.widest_equation > 0):
            raise DeclarationError(f"{name}: widest_equation must be a width in em above 0 (the estimate its "
                                   f"widest equation is allowed), got {model.widest_equation!r}")
        declared = sorted(key for key in model.left_out if key.split(".")[-1] in model.names)
        if declared:
            raise DeclarationError(f"{name}: left_out names {', '.join(declared)}, which it declares")
        model.freeze()
        cls.model = model  # type: ignore[attr-defined]
        return cls


def _check_presentation(model: ScenarioModel) -> None:
    bad = [q for q in model.questions if not isinstance(q, Question)]
    if bad:
        raise DeclarationError(f"{model.name}: questions must be Question(solve_for=..., where=..., equals=...), "
                               f"got {bad[0]!r}")
    if model.chart is not None and not isinstance(model.chart, Sweep):
        raise DeclarationError(f"{model.name}: chart must be a Sweep(instance=..., input=..., ...), got {model.chart!r}")


class Scenario(metaclass=_ScenarioMeta):
    """Base class of scenario declarations; see the module docstring."""

    model: ScenarioModel

    def __init__(self, *args: object, **inputs: object) -> None:
        # a declaration is not the class people call: say what is (Python's "takes no arguments" does not)
        name = type(self).__name__
        raise TypeError(f"{name} is a scenario declaration, not an evaluator: in a checkout, `make generate` writes "
                        f"the class that takes keywords (generated.{name}); anywhere, "
                        f"mlsysym.evaluate_declared({name}, ...) evaluates it exactly (sympy, no generation)")

