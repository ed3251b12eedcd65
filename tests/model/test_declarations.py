"""The declaration API for writing scenarios: groups, keyed tables, charts, questions, families, names."""

from __future__ import annotations

import pytest
import sympy
from sympy import Min

from symbolic.scenarios import discover as discovery
from symbolic.scenarios.discover import check_unique_names, discover
from symbolic.model import Group, Input, Output, Question, Scenario, Series, Sweep, Table, key
from symbolic.runtime.errors import DeclarationError, DuplicateNameError
from symbolic.scenarios import FAMILIES


def test_group_members_are_declared_on_the_output_in_declaration_order():
    class Grouped(Scenario):
        """A group with one echoed input and three members."""

        size = Input("byte", positive=True)
        rate = Input("byte/s", positive=True)
        result = Group(size, doc="The results.")
        time = Output(size / rate, "ms", group=result, doc="Transfer time.")
        per = Table({"a": size, "b": 2 * size}, "byte", group=result, doc="Two sizes.")
        double = Output(2 * time, "ms", group=result, doc="Twice the time.")
        outside = Output(time + double, "ms", doc="Not in the group.")

    model = Grouped.model
    assert [o.name for o in model.outputs] == ["result", "outside"]
    group = model.outputs[0]
    assert [m.name for m in group.members] == ["size", "time", "per", "double"]
    paths = [q.name for q in model.quantities]
    assert paths == ["result.time", "result.per[a]", "result.per[b]", "result.double", "outside", "result.size"]
    assert {q.name: q.group for q in model.quantities}["result.double"] == "result"
    # members are still referred to by their bare names inside the class body
    outside = next(q for q in model.quantities if q.name == "outside")
    assert {str(s) for s in outside.expr.free_symbols} == {"time", "double"}


def test_a_with_block_declares_the_same_group_as_group_keywords():
    class Keywords(Scenario):
        """Members by keyword."""

        size = Input("byte", positive=True)
        rate = Input("byte/s", positive=True)
        result = Group(size, doc="The results.")
        time = Output(size / rate, "ms", group=result, doc="Transfer time.")
        per = Table({"a": size, "b": 2 * size}, "byte", group=result, doc="Two sizes.")
        outside = Output(2 * time, "ms", doc="Not in the group.")

    class Block(Scenario):
        """Members by a with block."""

        size = Input("byte", positive=True)
        rate = Input("byte/s", positive=True)
        result = Group(size, doc="The results.")
        with result:
            time = Output(size / rate, "ms", doc="Transfer time.")
            per = Table({"a": size, "b": 2 * size}, "byte", doc="Two sizes.")
        outside = Output(2 * time, "ms", doc="Not in the group.")

    def shape(model):
        return ([(o.name, [m.name for m in getattr(o, "members", ())]) for o in model.outputs],
                [(q.name, q.group, str(q.expr)) for q in model.quantities])

    assert shape(Block.model) == shape(Keywords.model)
    assert {q.name: q.group for q in Block.model.quantities}["outside"] == ""


def test_with_blocks_do_not_nest_and_close_on_errors():
    with pytest.raises(DeclarationError, match="groups do not nest"):
        class Nested(Scenario):
            """Two groups, one inside the other."""

            size = Input(positive=True)
            first = Group(doc="a")
            second = Group(doc="b")
            with first:
                with second:
                    twice = Output(2 * size)
    # the failed class body left no group open: a new output outside any block joins none
    assert Output(sympy.Integer(1)).group is None


def test_a_group_lists_only_inputs_and_needs_members():
    with pytest.raises(DeclarationError, match="group=result on their own declaration"):
        class ListsAnOutput(Scenario):
            """Old style: outputs listed in the group."""

            size = Input(positive=True)
            twice = Output(2 * size)
            result = Group(twice)
    with pytest.raises(DeclarationError, match="Group result has no members"):
        class Empty(Scenario):
            """An empty group."""

            size = Input(positive=True)
            result = Group(doc="Nothing joins it.")
            twice = Output(2 * size)
    with pytest.raises(DeclarationError, match="group= takes a Group"):
        Output(sympy.Integer(1), group="result")


def test_a_member_name_is_claimed_once():
    with pytest.raises(DuplicateNameError, match="'twice' is declared twice"):
        class Twice(Scenario):
            """One name, two outputs."""

            size = Input(positive=True)
            result = Group(doc="r")
            twice = Output(2 * size, group=result)
            twice = Output(3 * size)  # noqa: F811 - the error under test


def test_keyed_table_formula_reads_like_the_math():
    k = key("k")

    class Roofline(Scenario):
        """rate_k = min(peak_k, bw_k · I)."""

        intensity = Input("flop/byte", positive=True)
        p_cpu = Input("flop/s", positive=True)
        p_gpu = Input("flop/s", positive=True)
        peak = Table({"cpu": p_cpu, "gpu": p_gpu}, "flop/s")
        bandwidth = Table({"cpu": 2 * p_cpu, "gpu": 3 * p_gpu}, "byte/s")
        rate = Table(Min(peak[k], bandwidth[k] * intensity), "flop/s", over=k)

    entries = {q.key: q.expr for q in Roofline.model.quantities if q.table == "rate"}
    peak = {q.key: q.symbol for q in Roofline.model.quantities if q.table == "peak"}
    bandwidth = {q.key: q.symbol for q in Roofline.model.quantities if q.table == "bandwidth"}
    intensity = Roofline.model.inputs[0].symbol
    assert list(entries) == ["cpu", "gpu"]
    for name in ("cpu", "gpu"):
        assert entries[name] == Min(peak[name], bandwidth[name] * intensity)


def test_keyed_table_errors_name_the_problem():
    k, j = key("k"), key("j")
    with pytest.raises(DeclarationError, match="indexes no table with k"):
        Table(sympy.Integer(2), over=k)
    with pytest.raises(DeclarationError, match="made by key"):
        Table(sympy.Integer(2), over=sympy.Symbol("k"))
    with pytest.raises(DeclarationError, match="give a dict of entries"):
        Table(sympy.Integer(2))
    with pytest.raises(DeclarationError, match="different keys"):
        class Mismatch(Scenario):
            """Two tables with different keys."""

            x = Input(positive=True)
            a = Table({"p": x, "q": x})
            b = Table({"p": x, "r": x})
            c = Table(a[k] + b[k], over=k)
    with pytest.raises(DeclarationError, match="may only index tables"):
        class Loose(Scenario):
            """A key outside an index."""

            x = Input(positive=True)
            a = Table({"p": x, "q": x})
            c = Table(a[k] * k, over=k)
    with pytest.raises(DeclarationError, match="indexes no table with j"):
        class OtherKey(Scenario):
            """Indexed with k, tabulated over j."""

            x = Input(positive=True)
            a = Table({"p": x, "q": x})
            c = Table(a[k], over=j)


def test_charts_and_questions_are_keyword_declarations():
    with pytest.raises(TypeError):
        Sweep("I", "x", (1.0,), (Series("y", "y"),), "x", "y", "caption")  # type: ignore[misc]
    with pytest.raises(TypeError):
        Question("x", "y", "1")  # type: ignore[misc]
    with pytest.raises(DeclarationError, match="questions must be Question"):
        class OldQuestions(Scenario):
            """Tuples instead of Questions."""

            questions = (("x", "y", "1"),)
            x = Input(positive=True)
            y = Output(2 * x)
    with pytest.raises(DeclarationError, match="chart must be a Sweep"):
        class OldChart(Scenario):
            """A tuple instead of a Sweep."""

            chart = ("I", "x")
            x = Input(positive=True)
            y = Output(2 * x)


def test_category_is_the_family_folder():
    modules = discover()
    assert {m.family for m in modules} <= set(FAMILIES)
    for module in modules:
        assert module.category == FAMILIES[module.family]
        assert module.source == f"symbolic/scenarios/{module.family}/{module.name}.py"
    with pytest.raises(DeclarationError, match="the category is the family folder"):
        class Categorised(Scenario):
            """Declares its own category."""

            category = "Training"
            x = Input(positive=True)


def test_discovery_refuses_strays_unknown_families_and_clashing_module_names(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "HERE", tmp_path)
    (tmp_path / "__init__.py").write_text("")
    for family in ("framework", "inference"):
        (tmp_path / family).mkdir()
        (tmp_path / family / "__init__.py").write_text("")
    (tmp_path / "framework" / "a.py").write_text("")
    (tmp_path / "inference" / "b.py").write_text("")
    assert discovery.scenario_files() == [("framework", "a"), ("inference", "b")]
    (tmp_path / "inference" / "a.py").write_text("")
    with pytest.raises(DuplicateNameError, match="'a' exists in both"):
        discovery.scenario_files()
    (tmp_path / "inference" / "a.py").unlink()
    (tmp_path / "misc").mkdir()
    with pytest.raises(DeclarationError, match="misc/ is not a family folder"):
        discovery.scenario_files()
    (tmp_path / "misc").rmdir()
    (tmp_path / "loose.py").write_text("")
    with pytest.raises(DeclarationError, match="loose.py: move it into a family folder"):
        discovery.scenario_files()


def test_registry_and_class_names_are_unique_across_modules():
    with pytest.raises(DuplicateNameError, match="scenario class 'Tiny' is declared in both"):
        check_unique_names([("a.py", "Tiny", ["One"]), ("b.py", "Tiny", [])])
    with pytest.raises(DuplicateNameError, match="registry entry 'Shared' is declared in both a.py and b.py"):
        check_unique_names([("a.py", "Tiny", ["Shared"]), ("b.py", "Other", ["Shared"])])
    with pytest.raises(DuplicateNameError, match="registry entry 'Tiny'"):
        check_unique_names([("a.py", "Tiny", []), ("b.py", "Other", ["Tiny"])])
    check_unique_names([("a.py", "Tiny", ["One"]), ("b.py", "Other", ["Two"])])


def test_the_authors_guide_example_declares():
    """symbolic/scenarios/README.md's worked scenario is code: it declares as shown (with its group block)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "symbolic" / "scenarios" / "README.md").read_text()
    code = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class KernelRooflineScenario" in b)
    namespace = {"__name__": "symbolic.scenarios.runs.readme_example"}
    exec(compile(code, "symbolic/scenarios/README.md", "exec"), namespace)
    paths = [q.name for q in namespace["KernelRooflineScenario"].model.quantities]
    assert paths[:3] == ["intensity", "result.peak[cpu]", "result.peak[gpu]"]
    assert "result.speedup" in paths and "result.work" in paths


def test_a_wider_equation_allowance_is_a_positive_width():
    class Wide(Scenario):
        """An allowance for an equation the breaker cannot shorten."""

        widest_equation = 75.0
        size = Input(positive=True)
        twice = Output(2 * size)
    assert Wide.model.widest_equation == 75.0
    for bad in ("wide", 0, -3.0, True):
        with pytest.raises(DeclarationError, match=f"widest_equation must be a width in em above 0.*{bad!r}"):
            class Bad(Scenario):
                """A bad allowance."""

                widest_equation = bad
                size = Input(positive=True)
                twice = Output(2 * size)
