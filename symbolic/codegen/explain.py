"""``explain``: one output of an instance as definition -> closed form -> numbers -> result.

The same derivation backs ``mlsysym explain`` and ``scenario.explain(output)`` in a notebook:
``Explanation`` prints as the command's text and renders its equations as LaTeX in Jupyter
(``_repr_latex_``). Each step is one sympy expression printed twice (text and LaTeX), so the
two cannot disagree. In the numbers step every list (input or output) appears entry by
entry, and sums and maxima over the ranges the instance fixes are written out term by term
(``derive.unrolled``), so every number the result depends on is visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from symbolic.analysis import derive  # first: it names the extra to install when sympy is missing

import sympy  # noqa: E402 (after derive's check for the extra)

from symbolic.analysis.dimensions import scale_of_unit  # noqa: E402
from symbolic.codegen.breaking import fit  # noqa: E402
from symbolic.codegen.latex import DocsLatexPrinter, latex_names  # noqa: E402
from symbolic.model import UNIT_SYMBOLS, ListQuantity  # noqa: E402
from symbolic.runtime.analysis import flat_outputs  # noqa: E402
from symbolic.runtime.display import absent_or_shown, keyed, number_text, shown  # noqa: E402
from symbolic.runtime.scenario import ScenarioBase  # noqa: E402
from symbolic.runtime.units import label  # noqa: E402

STEPS = ("definition", "closed form", "numbers", "result")
BASE_UNITS_NOTE = "(the closed form is in base units: s, B, flop)"


@dataclass(frozen=True)
class Explanation:
    """One output explained: ``steps`` as text (``name = ...``), ``latex`` as LaTeX, by step."""

    output: str
    doc: str
    steps: dict[str, str]
    latex: dict[str, str]

    def text(self) -> str:
        """What ``mlsysym explain`` prints."""
        return (f"{self.output}: {self.doc}\n" + "\n".join(f"  {k:<12} {v}" for k, v in self.steps.items())
                + f"\n  {BASE_UNITS_NOTE}")

    def as_dict(self) -> dict[str, str]:
        """What ``mlsysym --json explain`` prints."""
        return {"output": self.output, "doc": self.doc, **self.steps}

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    def _repr_latex_(self) -> str:
        """The four steps as one aligned display, each labelled (Jupyter renders it with MathJax)."""
        rows = [rf"\text{{{_text_latex(step)}:}} \quad & {self.latex[step]}" for step in STEPS]
        return r"$$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$$"


def explain(scenario: ScenarioBase, output: str) -> Explanation:
    """Explain ``output`` (a scalar output's path: ``compute_time``, ``host.overhead_ratio``,
    ``result.rate[host]``) of the instance ``scenario``.

        >>> from generated import Scenarios
        >>> print(explain(Scenarios.MnistTwoLayerTrainingStepOnH100, "compute_time").steps["numbers"])
        compute_time = (13100608 flop)/(67 Tflop/s)
    """
    model = derive.model_of(type(scenario).__name__)
    quantity = derive.quantity(model, output)
    flat = {**flat_outputs(scenario, everything=True), **_step_values(model, scenario)}
    value, unit = flat[quantity.name]
    # Every symbol, by what it stands for: outputs (contained scenarios' and table entries too)
    # by their path in the instance, inputs by the instance's argument; a list entry by entry.
    numbers: dict[Any, tuple[str, str]] = {}  # symbol -> (text, LaTeX)
    integers: dict[Any, int] = {}
    lengths: dict[Any, int] = {}

    def record(symbol: Any, value: Any, unit: str, first: Any = 0) -> None:
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, (list, tuple)):  # entry k is symbol[first + k] (a per-item output may start at 1)
            lengths[symbol] = len(value)
            if getattr(first, "is_Integer", isinstance(first, int)):
                numbers.update({symbol[int(first) + k]: _both(v, unit) for k, v in enumerate(value)})
            return
        numbers[symbol] = _both(value, unit)
        if isinstance(value, int) and not isinstance(value, bool):
            integers[symbol] = value

    for other in model.quantities:
        if other.name in flat and flat[other.name][0] is not None:
            start = other.limits[1:2] if isinstance(other, ListQuantity) else ()
            record(other.symbol, *flat[other.name], *start)
    for decl in model.evaluator_inputs():
        if scenario._args.get(decl.name) is not None:
            record(decl.symbol, scenario._args[decl.name], label(decl.spec.unit))
    closed = derive.closed_form(model, quantity.name)
    # a choice's number is shown with its label, as `show` gives it (fits = 1 (True))
    choice = keyed(scenario, quantity.name, value)
    choice_text = f" ({choice})" if isinstance(choice, (bool, str)) else ""
    substituted = derive.unrolled(quantity.expr, integers, lengths)
    text_numbers = {symbol: text for symbol, (text, _) in numbers.items()}
    latex_numbers = {symbol: tex for symbol, (_, tex) in numbers.items()}
    steps = {
        "definition": f"{quantity.name} = {derive.printed(quantity.expr)}",
        "closed form": f"{quantity.name} = {derive.printed(closed)}",
        "numbers": f"{quantity.name} = {derive.printed(substituted, text_numbers)}",
        "result": f"{quantity.name} = {absent_or_shown(scenario, quantity.name, value, unit)}{choice_text}",
    }
    names = latex_names(model)
    symbol = quantity.latex
    latex = {
        "definition": f"{symbol} = {_BaseUnitsLatexPrinter(names, {}).doprint(quantity.expr)}",
        "closed form": f"{symbol} = {_BaseUnitsLatexPrinter(names, {}).doprint(closed)}",
        "numbers": f"{symbol} = {_BaseUnitsLatexPrinter(names, latex_numbers).doprint(substituted)}",
        "result": f"{symbol} = " + (value_latex(value, unit) if value is not None else
                                     rf"\text{{{_text_latex(absent_or_shown(scenario, quantity.name, value, unit))}}}") + (rf"\quad \text{{{_text_latex(choice_text)}}}" if choice_text else ""),
    }
    return Explanation(quantity.name, quantity.doc, steps, {step: fit(tex) for step, tex in latex.items()})


def _step_values(model: Any, scenario: ScenarioBase) -> dict[str, tuple[Any, str]]:
    """The private steps' values (``Step``: not attributes, so not among the instance's outputs), from their
    closed forms at the instance's numbers, in their units."""
    steps = [q for q in model.quantities if q.private]
    if not steps:
        return {}
    values = derive.base_values(model, scenario._args)
    found: dict[str, tuple[Any, str]] = {}
    for step in steps:
        exact = derive.substitute(derive.closed_form(model, step.name, simplify=False), values) / scale_of_unit(step.unit)
        if exact.is_number:
            found[step.name] = (int(exact) if exact.is_Integer else float(exact), label(step.unit))
    return found


def _both(value: Any, unit: str) -> tuple[str, str]:
    return f"({shown(value, unit, rescale=False)})", rf"\left({value_latex(value, unit)}\right)"  # as substituted


class _BaseUnitsLatexPrinter(DocsLatexPrinter):
    """The docs' LaTeX printer with the unit markers as 1 (every symbol in base units, as the
    text says) and chosen symbols printed as given LaTeX (their numbers)."""

    def __init__(self, names: dict[sympy.Basic, str], shown: dict[sympy.Basic, str]) -> None:
        super().__init__(names)
        self.shown = shown

    def doprint(self, expr: Any) -> str:
        return str(super().doprint(expr.xreplace({s: sympy.S.One for s in UNIT_SYMBOLS})))

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if isinstance(expr, sympy.Basic) and expr in self.shown:  # before dispatch: Indexed prints itself
            return self.shown[expr]
        return super()._print(expr, **kwargs)


_UNIT_LATEX = {"µ": r"\mu ", "μ": r"\mu ", "·": r"\cdot ", "²": "^{2}", "³": "^{3}", "%": r"\%", "_": r"\_",
               "$": r"\$", "&": r"\&", "#": r"\#", " ": r"\ "}


def unit_latex(unit: str) -> str:
    r"""A unit label as LaTeX: ``µs`` -> ``\mathrm{\mu s}``, ``Tflop/s`` -> ``\mathrm{Tflop/s}``."""
    return r"\mathrm{" + "".join(_UNIT_LATEX.get(char, char) for char in unit) + "}" if unit else ""


def value_latex(value: Any, unit: str = "") -> str:
    r"""A value as LaTeX, 6 significant digits as in the text: ``1.2e+09`` -> ``1.2 \times 10^{9}``."""
    if value is None:
        return r"\text{(needs an input not given)}"
    if isinstance(value, (list, tuple)):
        body = r"\left[" + ", ".join(value_latex(v) for v in value) + r"\right]"
    elif isinstance(value, str):
        return rf"\text{{{_text_latex(value)}}}"
    else:
        body = _number_latex(number_text(value))
    return rf"{body}\,{unit_latex(unit)}" if unit else body


def _number_latex(text: str) -> str:
    mantissa, e, exponent = text.partition("e")
    if not e:
        return text
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def _text_latex(text: str) -> str:
    """Text for ``\\text{...}``: TeX's special characters escaped."""
    special = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
               "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\~{}"}
    return "".join(special.get(char, char) for char in text)
