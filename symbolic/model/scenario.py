"""The ``Scenario`` base class: its metaclass turns a class body into a ``ScenarioModel``."""

from __future__ import annotations

import inspect
from typing import Any

from symbolic.model.collected import ScenarioModel
from symbolic.model.declarations import Declaration

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
        model.module = namespace.get("__module__", "")
        model.doc = inspect.cleandoc(namespace.get("__doc__", "") or "")
        model.category = namespace.get("category", "")
        model.assumptions = namespace.get("assumptions", "")
        model.excludes = namespace.get("excludes", "")
        model.references = tuple(namespace.get("references", ()))
        model.examples = namespace.get("examples", "")
        model.main_outputs = tuple(namespace.get("main_outputs", ()))
        model.questions = tuple(namespace.get("questions", ()))
        model.chart = namespace.get("chart")
        model.roofline = dict(namespace.get("roofline", {}))
        cls.model = model  # type: ignore[attr-defined]
        return cls


class Scenario(metaclass=_ScenarioMeta):
    """Base class of scenario declarations; see the module docstring."""

    model: ScenarioModel

