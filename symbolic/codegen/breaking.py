r"""Long equations broken across lines, for the site (KaTeX) and the handbook (pdflatex) alike.

The printers write one line per equation; a closed form in the inputs can run to a thousand
characters of LaTeX and off any page. ``fit`` estimates how wide a formula is typeset
(``width``, in units of about one italic letter: a subscript counts 0.7, a fraction its
wider part, an ``aligned`` block its widest row) and, past ``BUDGET``, rewrites it as an
``aligned`` block: broken before top-level relations and ``+``/``-`` (continuation lines
indented by ``\quad``), and where one term is still too wide, inside its widest part (a
fraction's numerator or denominator, the body of ``\left( ... \right)``, a case of a
``cases``), recursively. Both KaTeX and amsmath typeset ``aligned`` anywhere in math, so
one rewrite serves both outputs. The parser reads the subset of LaTeX that sympy's printer
and ours write; anything it does not know is one unbreakable letter-wide atom.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BUDGET = 60.0  # ≈ a 17 cm handbook line at 11 pt (an estimate that runs ~20% narrow), and the site's column

_TOKEN = re.compile(r"\\[a-zA-Z]+\s*|\\.|\s+|.", re.DOTALL)
_ONE_ARGUMENT = {"mathrm", "text", "operatorname", "mathit", "mathbf", "textrm", "mathtt", "mathcal",
                 "boldsymbol", "overline", "hat", "tilde", "bar", "vec", "textit", "textbf", "sqrt", "mathsf"}
_TWO_ARGUMENTS = {"frac", "dfrac", "tfrac", "binom"}
_LIMITS = {"sum", "prod", "max", "min", "lim", "sup", "inf"}
_RELATIONS = {"=", r"\approx", r"\le", r"\ge", r"\leq", r"\geq", r"\ne", "<", ">"}
_BINARY = {"+", "-", r"\cdot", r"\times", r"\pm"}
_SPACES = {r"\,": 0.3, r"\;": 0.4, r"\:": 0.35, r"\!": -0.3, r"\ ": 0.5, "~": 0.5, r"\quad": 2.0, r"\qquad": 4.0}
_NARROW = set("()[]|.,;:'!/")


@dataclass
class Node:
    """A parsed piece of LaTeX: ``kind`` is atom, group, script, command, leftright or env."""

    kind: str
    text: str = ""  # an atom's or command's source (a command: its name with the backslash)
    children: list[list[Node]] = field(default_factory=list)  # groups, arguments, bodies, env content
    close: str = ""  # the source after the children: "}", "\right)", "\end{cases}"


def parse(tex: str) -> list[Node]:
    tokens = [t for t in _TOKEN.findall(tex)]
    nodes, end = _sequence(tokens, 0, ())
    if end != len(tokens):
        raise ValueError(f"unbalanced LaTeX at token {end}: {tex[:80]!r}")
    return nodes


def _sequence(tokens: list[str], i: int, stops: tuple[str, ...]) -> tuple[list[Node], int]:
    nodes: list[Node] = []
    while i < len(tokens):
        token = tokens[i]
        name = token.strip()
        if name in stops or (name == r"\end" and r"\end" in stops):
            return nodes, i
        node, i = _item(tokens, i)
        nodes.append(node)
    return nodes, i


def _item(tokens: list[str], i: int) -> tuple[Node, int]:
    token = tokens[i]
    name = token.strip()
    if name == "{":
        body, j = _sequence(tokens, i + 1, ("}",))
        return Node("group", "{", [body], "}"), j + 1
    if name in ("^", "_"):
        argument, j = _argument(tokens, i + 1)
        return Node("script", token, [argument]), j
    if name == r"\left":
        delimiter = tokens[i + 1]
        body, j = _sequence(tokens, i + 2, (r"\right",))
        close = tokens[j] + tokens[j + 1]
        return Node("leftright", token + delimiter, [body], close), j + 2
    if name == r"\begin":
        environment = "".join(tokens[i + 1:tokens.index("}", i) + 1])
        j = tokens.index("}", i) + 1
        if j < len(tokens) and tokens[j] == "[":  # aligned[t]
            k = tokens.index("]", j) + 1
            environment += "".join(tokens[j:k])
            j = k
        body, j = _sequence(tokens, j, (r"\end",))
        k = tokens.index("}", j) + 1
        return Node("env", token + environment, [body], "".join(tokens[j:k])), k
    command = name[1:] if name.startswith("\\") and name[1:].isalpha() else ""
    if command in _ONE_ARGUMENT or command in _TWO_ARGUMENTS:
        arguments = []
        j = i + 1
        if command == "sqrt" and j < len(tokens) and tokens[j] == "[":
            j = tokens.index("]", j) + 1  # the root's index: narrow, left out of the width
        for _ in range(2 if command in _TWO_ARGUMENTS else 1):
            argument, j = _argument(tokens, j)
            arguments.append(argument)
        return Node("command", token, arguments), j
    return Node("atom", token), i + 1


def _argument(tokens: list[str], i: int) -> tuple[list[Node], int]:
    while i < len(tokens) and tokens[i].isspace():  # TeX skips spaces before an argument
        i += 1
    node, j = _item(tokens, i)
    return [node], j


def source(nodes: list[Node]) -> str:
    """The LaTeX of parsed nodes (their source, as read)."""
    return "".join(_source(node) for node in nodes)


def _source(node: Node) -> str:
    if node.kind == "atom":
        return node.text
    if node.kind == "script":
        return node.text + _braced(node.children[0])
    if node.kind == "command":
        return node.text + "".join(_braced(argument) for argument in node.children)
    return node.text + source(node.children[0]) + node.close


def _braced(argument: list[Node]) -> str:
    if len(argument) == 1 and argument[0].kind == "group":
        return _source(argument[0])
    return "{" + source(argument) + "}"


# -- width ------------------------------------------------------------------------------------
def width(tex: str) -> float:
    """How wide ``tex`` typesets, in italic letters (an estimate, good to about a tenth)."""
    return _width(parse(tex))


def _width(nodes: list[Node]) -> float:
    total = 0.0
    script = 0.0  # the wider of a sub- and superscript on one base
    limits = False  # scripts of \sum, \max...: set under and over it in display
    base = 0.0
    for node in nodes:
        if node.kind == "script":
            w = 0.7 * _width(node.children[0])
            if limits:
                stacked = max(base, w, script)
                total += stacked - max(base, script)
                script = max(script, w)
            else:
                total += max(0.0, w - script)
                script = max(script, w)
            continue
        script, limits = 0.0, False
        base = _node_width(node)
        total += base
        if node.kind == "atom" and node.text.strip()[1:] in _LIMITS:
            limits = True
    return total


def _node_width(node: Node) -> float:
    if node.kind == "atom":
        token = node.text.strip()
        if not token:
            return 0.0
        if token in _SPACES:
            return _SPACES[token]
        if token in _RELATIONS or token in _BINARY:
            return 2.4  # the sign and the medium or thick space on each side
        if token == r"\_":
            return 1.4
        if token in ("&", r"\\"):
            return 0.0
        if token.startswith("\\") and token[1:].isalpha():
            name = token[1:]
            if name in ("left", "right", "limits", "displaystyle", "big", "Big", "bigl", "bigr", "Bigl", "Bigr"):
                return 0.0 if name in ("limits", "displaystyle") else 0.8
            if name in ("sum", "prod"):
                return 1.8
            if name in ("min", "max", "log", "exp", "sin", "cos", "lim", "sup", "inf", "ln"):
                return len(name)
            return 1.0
        return 0.6 if token in _NARROW else 1.0
    if node.kind == "group":
        return _width(node.children[0])
    if node.kind == "command":
        name = node.text.strip()[1:]
        widths = [_width(argument) for argument in node.children]
        if name in _TWO_ARGUMENTS:
            return max(widths) + 0.8
        if name == "sqrt":
            return widths[0] + 1.2
        return widths[0]
    if node.kind == "leftright":
        return _width(node.children[0]) + 1.6
    if node.kind == "env":
        cases = "cases" in node.text  # its columns are a quad apart; aligned's pairs touch
        rows = _rows(node.children[0])
        widest = max((sum(_width(cell) for cell in row) + (2.0 if cases else 0.0) * (len(row) - 1) for row in rows),
                     default=0.0)
        return widest + (2.0 if cases else 0.0)
    return 1.0


def _rows(nodes: list[Node]) -> list[list[list[Node]]]:
    """An environment's content as rows of cells (split at ``\\`` and ``&``)."""
    rows: list[list[list[Node]]] = [[[]]]
    for node in nodes:
        token = node.text.strip() if node.kind == "atom" else ""
        if token == r"\\":
            rows.append([[]])
        elif token == "&":
            rows[-1].append([])
        else:
            rows[-1][-1].append(node)
    return rows


# -- breaking ---------------------------------------------------------------------------------
def fit(tex: str, budget: float = BUDGET) -> str:
    """``tex`` unchanged when it is at most ``budget`` wide, else broken into an ``aligned`` block
    (an equation ``a = b + c = d`` aligned at its relations). Always one line of source."""
    nodes = parse(tex)
    if _width(nodes) <= budget:
        return tex
    return _aligned(nodes, budget, top=True)


def _split(nodes: list[Node]) -> list[tuple[str, list[Node]]]:
    """``(operator, term)`` pieces at this level's relations and ``+``/``-`` (the first has "")."""
    pieces: list[tuple[str, list[Node]]] = [("", [])]
    for node in nodes:
        token = node.text.strip() if node.kind == "atom" else ""
        previous = pieces[-1][1]
        if (token in _RELATIONS or token in ("+", "-")) and (previous or token in _RELATIONS):
            pieces.append((token, []))
        else:
            previous.append(node)
    return pieces


def _aligned(nodes: list[Node], budget: float, top: bool = False) -> str:
    pieces = _split(nodes)
    if len(pieces) == 1:  # nothing to break between: break inside the widest part
        narrowed = _narrowed(nodes, budget)
        if _width(narrowed) > budget and any(n.kind == "atom" and n.text.strip() == "," for n in nodes):
            return _list_lines(nodes, budget)  # the arguments of a min or max, one a line
        return source(narrowed)
    lines: list[str] = []
    current = ""
    start = 0
    if top and len(pieces) > 1 and pieces[1][0] in _RELATIONS:  # "lhs &= first term" opens the block
        lhs = source(pieces[0][1]).strip()
        room = budget - width(lhs) - 3.0  # the relation and its spaces
        first = _narrowed(pieces[1][1], room)
        if _width(first) <= room or width(lhs) <= 12.0:
            current = f"{lhs} &{pieces[1][0]} {source(first).strip()}"
        else:  # too wide beside its name: the right-hand side starts on a line of its own
            lines.append(f"& {lhs}")
            current = rf"& \quad {pieces[1][0]} {source(_narrowed(pieces[1][1], budget - 4.0)).strip()}"
        start = 2
    for operator, term in pieces[start:]:
        text = source(_narrowed(term, budget - 4.0)).strip()
        if not current:
            current = f"& {text}"
            continue
        joined = f"{current} {operator} {text}"
        if width(_strip_marks(joined)) <= budget:
            current = joined
        else:
            lines.append(current)
            indent = "" if operator in _RELATIONS else r"\quad "
            current = f"& {indent}{operator} {text}"
    lines.append(current)
    return r"\begin{aligned} " + r" \\ ".join(lines) + r" \end{aligned}"


def _list_lines(nodes: list[Node], budget: float) -> str:
    """A comma-separated list (a function's arguments), one item a line, each narrowed."""
    items: list[list[Node]] = [[]]
    for node in nodes:
        if node.kind == "atom" and node.text.strip() == ",":
            items.append([])
        else:
            items[-1].append(node)
    lines = [source(_narrowed(item, budget - 2.0)).strip() for item in items]
    return r"\begin{aligned} " + r" \\ ".join(f"& {line}," for line in lines[:-1]) + rf" \\ & {lines[-1]} \end{{aligned}}"


def _strip_marks(line: str) -> str:
    return line.replace("&", "")


def _narrowed(term: list[Node], budget: float) -> list[Node]:
    """``term`` with its widest breakable parts broken until the term fits (or nothing is left to break)."""
    exhausted: set[tuple[int, int]] = set()
    for _ in range(12):
        total = _width(term)
        if total <= budget:
            break
        candidate = _widest_part(term, exhausted)
        if candidate is None:
            break
        node, index, part_width = candidate
        exhausted.add((id(node), index))
        whole = _node_width(node)
        beside = 0.8 if node.kind == "command" else whole - part_width  # a fraction's parts stack
        room = max(24.0, budget - (total - whole) - beside)
        inner = node.children[index]
        if _width(inner) > room:
            node.children[index] = parse(_aligned(inner, room))
    return term if _width(term) <= budget else _factors(term, budget)


def _factors(term: list[Node], budget: float) -> list[Node]:
    """A product still too wide, broken between its factors (a continued line starts with
    ``\times``). Only where that keeps the meaning: never inside an argument list (a top-level
    comma), after a sum or product sign (the rest is its body), between a function and its
    argument, or around a dot (``network.b``)."""
    if any(node.kind == "atom" and node.text.strip() == "," for node in term):
        return term
    factors: list[list[Node]] = []
    for node in term:
        if factors and not _starts_factor(node, factors[-1]):
            factors[-1].append(node)
        else:
            factors.append([node])
        if node.kind == "atom" and node.text.strip()[1:] in _LIMITS | {"log", "exp", "ln"}:
            if node.text.strip()[1:] in ("sum", "prod"):
                factors[-1].extend(term[term.index(node) + 1:])  # the sign's body, whole
                break
    if len(factors) < 2:
        return term
    lines = [""]
    for factor in factors:
        text = source(factor).strip()
        joined = f"{lines[-1]} {text}".strip()
        if not lines[-1] or width(_strip_marks(lines[-1])) < 6.0 or width(_strip_marks(joined)) <= budget:
            lines[-1] = joined  # a coefficient stays beside what it multiplies
        else:
            lines.append(rf"\times {text}")
    if len(lines) < 2:
        return term
    return parse(r"\begin{aligned} " + r" \\ ".join("& " + line for line in lines) + r" \end{aligned}")


def _starts_factor(node: Node, factor: list[Node]) -> bool:
    """Whether ``node`` may begin a new factor after ``factor``."""
    last = next((n for n in reversed(factor) if n.kind != "atom" or n.text.strip()), factor[-1])
    if node.kind == "script" or (node.kind == "atom" and not node.text.strip()):
        return False  # a script or a space stays with its base
    token = node.text.strip() if node.kind == "atom" else ""
    previous = last.text.strip() if last.kind == "atom" else ""
    if token in (".", ",") or previous in (".", ","):
        return False
    if token in _SPACES or previous in _SPACES:
        return False  # a thin space binds: digit groups (2\,048) and a number to its unit (4\,\mathrm{GB})
    if previous[1:] in _LIMITS | {"log", "exp", "ln", "sin", "cos"}:
        return False  # a function and its argument
    if node.kind == "atom" and last.kind == "atom" and not token.startswith("\\"):
        return False  # a run of letters and digits is one name or number
    return node.kind in ("leftright", "command", "group") or bool(token) and (token[0].isalnum() or token[0] == "\\")


def _widest_part(term: list[Node], exhausted: set[tuple[int, int]]) -> tuple[Node, int, float] | None:
    """The widest child list that breaking could narrow: a fraction's part, a bracket's body,
    a group, or a cell of a ``cases``."""
    best: tuple[Node, int, float] | None = None
    for node in term:
        options: list[int] = []
        if node.kind == "command" and node.text.strip()[1:] in _TWO_ARGUMENTS:
            options = [0, 1]
        elif node.kind in ("leftright", "group") or (node.kind == "command" and node.text.strip() == r"\sqrt"):
            options = [0]
        elif node.kind == "env" and "cases" in node.text and (id(node), 0) not in exhausted:
            _break_cases(node)
            exhausted.add((id(node), 0))
            continue
        for index in options:
            w = _width(node.children[index])
            if (id(node), index) not in exhausted and (best is None or w > best[2]) and _breakable(node.children[index]):
                best = (node, index, w)
    return best


def _breakable(nodes: list[Node]) -> bool:
    return len(_split(nodes)) > 1 or _widest_part_exists(nodes)


def _widest_part_exists(nodes: list[Node]) -> bool:
    return any((n.kind == "command" and n.text.strip()[1:] in (*_TWO_ARGUMENTS, "sqrt"))
               or n.kind in ("leftright", "group") or (n.kind == "env" and "cases" in n.text) for n in nodes)


def _break_cases(node: Node, budget: float = BUDGET - 12.0) -> None:
    """A ``cases`` narrowed: each expression broken to fit beside its condition, and a long
    condition (``for a, b, c given``) stacked at its commas."""
    rows = _rows(node.children[0])
    out: list[str] = []
    for row in rows:
        cells = [source(cell).strip() for cell in row]
        if len(row) > 1 and _width(row[1]) > budget / 2:
            cells[1] = _stacked(row[1], budget / 2)
        if row and len(row) > 1:
            room = max(24.0, budget - width(cells[1]))
            cells[0] = fit(cells[0], room) if _width(row[0]) > room else cells[0]
        out.append(" & ".join(cells))
    node.children[0] = parse(r" \\ ".join(out))


def _stacked(cell: list[Node], budget: float) -> str:
    """A condition broken after its top-level commas into left-aligned lines."""
    parts: list[list[Node]] = [[]]
    for node in cell:
        parts[-1].append(node)
        if node.kind == "atom" and node.text.strip() == ",":
            parts.append([])
    lines: list[str] = []
    for part in parts:
        text = source(part).strip()
        if lines and width(lines[-1] + " " + text) <= budget:
            lines[-1] += " " + text
        else:
            lines.append(text)
    if len(lines) == 1:
        return lines[0]
    return r"\begin{aligned} " + r" \\ ".join("& " + line for line in lines) + r" \end{aligned}"
