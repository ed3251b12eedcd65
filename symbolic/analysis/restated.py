"""Output docs that restate their own formula: a second, unchecked copy of the expression.

A doc says what a quantity means and why; the equation is rendered from the expression, so
``doc="Weight bytes, P·e."`` for ``bytes_per_value * workload.parameters`` repeats by hand
what the page already prints (and goes stale when the expression changes). ``restatements``
finds such fragments: a run of operands joined by operators (``·``, ``×``, ``/``, ``+``, ``−``,
``^``, ``=``, or a number written against a symbol, ``2M``, ``2(N − 1)``) in which at least two
operands are the expression's own symbols (as the page writes them: ``P``, ``β_o``, ``t_c``),
or one symbol and one of its integer coefficients.

What it cannot see: a restatement in words (``saved time × steps × N`` names one symbol), or
with symbols the scenario does not declare. What it does not flag: a product the quantity is
measured in (``bytes per s·b·h element`` when ``s`` and ``h`` are not in the expression), or a
name such as ``Q·Kᵀ``. Symbols are compared with the expression's inputs and its closed form
(``2B/b`` for an intensity written as ``flops_per_step / weight_bytes`` is caught).
"""

from __future__ import annotations

import re

import sympy

from symbolic.analysis.closed import closed_form
from symbolic.model import ScenarioModel
from symbolic.runtime.errors import DeclarationError

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
          "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
          "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
          "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
          "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ"}
_LETTER = r"A-Za-zα-ωΑ-Ωℓ"
# an operand: a number, a symbol or word (subscripts included: B_t, β_o), or a bracketed group
_OPERAND = rf"(?:\d+(?:\.\d+)?|[{_LETTER}][\w]*|[(⌈⌊][^()⌈⌉⌊⌋]*[)⌉⌋])[²³ᵀ]*"
# what joins two operands: an operator with optional spaces, or a number written against a symbol
_JOIN = rf"(?:\s*[·×*/+−^=]\s*|\s+-\s+|(?<=\d)(?=[{_LETTER}(⌈⌊])|(?<=[)⌉⌋])(?=[{_LETTER}(⌈⌊\d]))"
_RUN = re.compile(rf"{_OPERAND}(?:{_JOIN}{_OPERAND})+")
_TOKEN = re.compile(rf"\d+(?:\.\d+)?|[{_LETTER}][\w]*")


def written(latex: str) -> str | None:
    """How a doc writes a symbol whose LaTeX is ``latex`` (``\\beta_o`` -> ``β_o``,
    ``{P}_{\\mathrm{workload}}`` -> ``P``); None for a name spelled out (``\\mathrm{weights}``)."""
    owner = re.fullmatch(r"\{(.+)\}_\{\\mathrm\{[^{}]+\}\}", latex)  # a structured input's field: {P}_{workload}
    text = owner.group(1) if owner else latex
    if "\\mathrm" in text:
        return None
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(0)), text)
    text = text.replace("{", "").replace("}", "").replace(" ", "")
    return None if "\\" in text or not text else text


def _symbol_names(model: ScenarioModel) -> dict[sympy.Basic, str]:
    names: dict[sympy.Basic, str] = {}
    declared: list[tuple[sympy.Basic, str]] = [(d.symbol, d.latex) for d in model.inputs]
    declared += [(q.symbol, q.latex) for q in model.quantities]
    for symbol, latex in declared:
        name = written(latex)
        if name is not None:
            names[symbol] = name
            if isinstance(symbol, sympy.IndexedBase):
                names[symbol.label] = name
    return names


def _reads(expr: sympy.Basic) -> set[sympy.Basic]:
    found = set(expr.free_symbols)
    found |= {e.base for e in expr.atoms(sympy.Indexed)} | {e.base.label for e in expr.atoms(sympy.Indexed)}
    return found


def _coefficients(expr: sympy.Basic) -> set[str]:
    numbers = set()
    for atom in expr.atoms(sympy.Rational):
        numbers |= {str(abs(int(atom.p))), str(abs(int(atom.q)))}
    return numbers - {"0", "1"}


def restated(doc: str, symbols: set[str], coefficients: set[str]) -> list[str]:
    """The fragments of ``doc`` that write the expression again: runs of operands with two of
    ``symbols`` (as written), or one of them and one of ``coefficients``."""
    found = []
    for run in _RUN.finditer(doc):
        tokens = _TOKEN.findall(run.group(0))
        named = {t for t in tokens if t in symbols or t.replace("_", "") in symbols}
        numbers = {t for t in tokens if t in coefficients}
        if len(named) >= 2 or (named and numbers):
            found.append(run.group(0).strip())
    return found


def restatements(model: ScenarioModel) -> list[tuple[str, str]]:
    """``(output, fragment)`` for every output doc of ``model`` that restates its formula."""
    names = _symbol_names(model)
    found = []
    seen: set[str] = set()
    for quantity in model.quantities:
        if quantity.hidden or quantity.bound_input or quantity.sub or not quantity.doc or quantity.doc in seen:
            continue
        seen.add(quantity.doc)  # a table's entries share one doc
        if quantity.kind == "text":  # a list joined as text has no formula to restate
            continue
        exprs = [quantity.expr]
        try:
            exprs.append(closed_form(model, quantity, simplify=False))
        except Exception:  # noqa: BLE001 (a form the closed forms cannot take is read as declared)
            pass
        symbols: set[str] = set()
        coefficients: set[str] = set()
        for expr in exprs:
            if isinstance(expr, sympy.Basic):
                symbols |= {names[s] for s in _reads(expr) if s in names}
                coefficients |= _coefficients(expr)
        symbols |= {s.replace("_", "") for s in symbols}
        for fragment in restated(quantity.doc, symbols, coefficients):
            found.append((quantity.name, fragment))
    return found


def check_docs(model: ScenarioModel) -> None:
    """Raise ``DeclarationError`` naming every output doc that restates its formula."""
    found = restatements(model)
    if found:
        listed = "; ".join(f"{name}: {fragment!r}" for name, fragment in found)
        raise DeclarationError(f"{model.name}: output docs restate their formula ({listed}); the page renders the "
                               "equation from the expression, so say what the quantity means and why instead")
