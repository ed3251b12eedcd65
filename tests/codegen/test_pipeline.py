"""The cached pipeline: per-scenario keys, catalog slices, and cached renders equal to fresh ones."""

from __future__ import annotations

import ast
import contextlib
import json
import re
import shutil
from pathlib import Path

import pytest

from symbolic.codegen import keys, pipeline
from symbolic.codegen.record import ScenarioRecord

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of ``symbolic/`` and ``templates/`` to compute keys on (each test restores what it edits)."""
    root = tmp_path_factory.mktemp("tree")
    for folder in ("symbolic", "templates"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@contextlib.contextmanager
def edited(path: Path, old: str, new: str):
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    try:
        yield
    finally:
        path.write_text(text, encoding="utf-8")


def changed_by(tree: Path, path: str, old: str, new: str) -> list[str]:
    """The scenarios whose key an edit of one file changes (keys computed, nothing rendered)."""
    before = keys.scenario_keys(tree)
    with edited(tree / path, old, new):
        after = keys.scenario_keys(tree)
    assert keys.scenario_keys(tree) == before  # restored
    return sorted(name for name in before if before[name] != after[name])


def _importing(tree: Path, modules: set[str]) -> set[str]:
    """``modules`` and every scenario module importing one of them, transitively: read from the import
    statements of the scenario files (not from the keys' own dependency walk)."""
    sources = {path.stem: path.read_text(encoding="utf-8") for path in (tree / "symbolic/scenarios").glob("*/[!_]*.py")}
    found = set(modules)
    while True:
        more = {name for name, text in sources.items() if name not in found and any(
            re.search(rf"^from symbolic\.scenarios\.\w+\.{module} import", text, re.MULTILINE) for module in found)}
        if not more:
            return found
        found |= more


def test_editing_a_scenario_changes_its_key_and_its_importers_only(tree):
    changed = changed_by(tree, "symbolic/scenarios/framework/host_dispatch.py", "Kernels launched per block",
                         "Kernels per block")
    assert "mlp_training_step" in changed  # the training step contains it
    assert changed == sorted(_importing(tree, {"host_dispatch"}))


def test_a_cli_file_is_in_no_key(tree):
    """The CLI is not on a scenario's render path (only the CLI reference page reads it, and the
    site pages have their own key): a comment in it re-renders no scenario. It changed all 45 keys."""
    assert changed_by(tree, "symbolic/cli/commands.py", '"""', '"""A comment.\n') == []
    before = keys.shared_digest(tree)
    with edited(tree / "symbolic/cli/commands.py", '"""', '"""A comment.\n'):
        assert keys.shared_digest(tree) != before  # the site pages (cli.md) are rendered again


def test_generator_code_and_templates_on_the_path_are_in_every_key(tree):
    every = sorted(keys.scenario_sources(tree))
    assert changed_by(tree, "symbolic/codegen/pyprint.py", '"""', '"""A comment.\n') == every
    assert changed_by(tree, "templates/evaluator.py.j2", "\n", "\n\n") == every
    assert changed_by(tree, "templates/calls.j2", "\n", "\n\n") == every  # imported by the evaluator template
    assert changed_by(tree, "symbolic/units.txt", "\n", "\n\n") == every


def _page_sources() -> dict[str, str]:
    """Each committed scenario page and the module it says it was rendered from (its header)."""
    found = {}
    for page in sorted((ROOT / "generated" / "docs" / "scenarios").glob("*.md")):
        source = re.search(r"Source: symbolic/scenarios/\w+/(\w+)\.py", page.read_text(encoding="utf-8"))
        assert source, page
        found[page.read_text(encoding="utf-8")] = source.group(1)
    return found


def test_editing_a_workload_record_changes_exactly_the_keys_of_its_readers(tree):
    """GPT-3's parameter count: the scenarios whose rendered page names Models.Language.GPT3 (read
    from the committed pages, not from the keys' own scan) and the modules importing them. Before,
    no key read workloads.toml: a cached --check reported 2 stale files where --no-cache found 32."""
    sources = keys.scenario_sources(tree)
    readers = {module for text, module in _page_sources().items() if re.search(r"Models\.Language\.GPT3\b", text)}
    importers = {name for name, closure in keys.dependencies(sources, tree).items() if readers & set(closure)}
    assert len(readers) >= 10 and "mlp_training_step" not in readers
    changed = changed_by(tree, "symbolic/catalog/workloads.toml", 'parameters = "1.75e11 param"',
                         'parameters = "1.76e11 param"')
    assert changed == sorted(readers | importers)


def test_a_record_nobody_names_is_in_no_key(tree):
    appended = '\n[Language.Unused]\ntype = "TransformerWorkload"\nname = "Unused"\nparameters = "1e9 param"\n'
    assert changed_by(tree, "symbolic/catalog/workloads.toml", "\n[Language.GPT3]", appended + "\n[Language.GPT3]") == []
    assert changed_by(tree, "symbolic/catalog/network.toml", 'value = "7.5 pJ/bit"', 'value = "8 pJ/bit"') == []  # NVLink's
    # alpha_beta reads the whole SwitchFabric section (``_switch = Systems.SwitchFabric``), so any α in it
    readers = {path.stem for path in (tree / "symbolic/scenarios").glob("*/[!_]*.py")
               if "= Systems.SwitchFabric\n" in path.read_text(encoding="utf-8")}
    assert "alpha_beta" in readers
    assert changed_by(tree, "symbolic/catalog/network.toml", 'value = "5.0 µs"', 'value = "5.5 µs"') == sorted(
        _importing(tree, readers))


def test_a_catalog_record_a_scenario_names_is_in_its_key_and_others_are_not(tree):
    changed = changed_by(tree, "symbolic/catalog/hardware.toml", 'name = "NVIDIA H100', 'name = "renamed H100')
    assert {"mlp_training_step", "epoch_overhead"} <= set(changed)  # both name Hardware.Cloud.H100
    assert "dense_network" not in changed and "host_dispatch" not in changed


def test_the_byte_widths_the_generator_writes_into_record_types_are_in_every_key(tree):
    every = sorted(keys.scenario_sources(tree))
    text = (tree / "symbolic/catalog/constants.toml").read_text(encoding="utf-8")
    section = text.index("[StorageWidths.")
    value = text.index("value = ", section)
    line = text[value:text.index("\n", value)]
    assert changed_by(tree, "symbolic/catalog/constants.toml", line, line + "  # edited") == []  # a comment
    assert changed_by(tree, "symbolic/catalog/constants.toml", text[section:text.index("\n", value)],
                      text[section:value] + 'value = "3 byte"') == every


def test_named_paths_read_code_not_prose():
    source = b'''"""Runs on Hardware.Cloud.A100 (prose)."""
from symbolic.catalog import Constants, Hardware, Models, storage_widths
# Models.Language.Llama3_8B in a comment
x = Models.Language.GPT3.size_in_bytes(Constants.ByteWidths.FP16)
y = every(Hardware)
z = "Systems.Nodes.DGX_H100"
w = storage_widths()
'''
    nodes = list(ast.walk(ast.parse(source)))
    assert keys.named_paths(nodes) == {"Models.Language.GPT3.size_in_bytes", "Constants.ByteWidths.FP16", "Hardware",
                                       "Systems.Nodes.DGX_H100", "Constants.StorageWidths"}


def test_catalog_slices_follow_references_and_fall_back_to_whole_files():
    slices = json.loads(keys.catalog_slices({"Systems.Nodes.DGX_H100"}))
    assert set(slices) == {"Systems.Nodes.DGX_H100", "Hardware.Cloud.H100"}  # accelerator = "Hardware.Cloud.H100"
    assert json.loads(slices["Hardware.Cloud.H100"])["name"].startswith("NVIDIA H100")
    storage = json.loads(keys.catalog_slices({"Hardware.Tech.Storage.NvmeGen4"}))  # lives in systems.toml
    assert json.loads(storage["Hardware.Tech.Storage.NvmeGen4"])["name"] == "NVMe SSD, PCIe Gen4"
    method = json.loads(keys.catalog_slices({"Models.Language.GPT3.size_in_bytes"}))
    assert json.loads(method["Models.Language.GPT3.size_in_bytes"])["name"] == "GPT-3 (175B)"  # the record the method reads
    unknown = json.loads(keys.catalog_slices({"Nowhere.X"}))
    assert "Cloud.H100" in unknown["Nowhere.X"]  # every file


def test_contained_scenarios_are_found_transitively():
    found = keys.dependencies(keys.scenario_sources())
    assert found["epoch_overhead"] == ["dense_network", "epoch_overhead"]
    assert found["mlp_training_step"] == ["host_dispatch", "mlp_training_step"]
    assert found["host_dispatch"] == ["host_dispatch"]


def test_records_round_trip_through_json():
    record = ScenarioRecord("m", "framework", "symbolic/scenarios/framework/m.py", "M", "Summary.",
                            ({"key": "A", "hardware": ["Cloud.H100"]},), ({"path": "x", "kind": "scalar", "unit": "",
                                                                         "doc": "", "type": "number"},),
                            (("A", 2.5, "fp32"),), {"generated/m.py": "x = 1\n"})
    assert ScenarioRecord.from_json(json.loads(json.dumps(record.to_json()))) == record


def test_cache_entries_keep_declaration_order(tmp_path):
    """A registry entry's inputs come back from the cache in the order they were declared (not sorted)."""
    record = ScenarioRecord("m", "framework", "s.py", "M", "S", ({"key": "A", "sources": {"b": "1", "a": "2"}},), (),
                            (), {})
    pipeline._write(tmp_path / "m.json", {"key": "k", "record": record.to_json()})
    again = ScenarioRecord.from_json(pipeline._read(tmp_path / "m.json")["record"])
    assert list(again.instances[0]["sources"]) == ["b", "a"]


def test_a_cached_render_reuses_every_unchanged_scenario(tmp_path, monkeypatch):
    """Fill a cache from records, then render again: nothing is re-rendered and the files agree."""
    rendered = {name: ScenarioRecord("m", "framework", f"symbolic/scenarios/framework/{name}.py", name, "S", (), (), (),
                                     {f"generated/{name}.py": f"# {name}\n"}) for name in keys.scenario_sources()}
    calls = []

    def fake_records(names, workers=None):
        calls.append(list(names))
        return {name: rendered[name] for name in names}

    monkeypatch.setattr(pipeline, "render_records", fake_records)
    monkeypatch.setattr(pipeline, "_site_cached", lambda cache, shared, records: {"generated/site": str(len(records))})
    first = pipeline.render_cached(tmp_path)
    second = pipeline.render_cached(tmp_path)
    assert calls == [sorted(keys.scenario_sources()), []]
    assert first == second and first["generated/site"] == str(len(rendered))


def test_indices_printed_alike_keep_their_own_loop_names():
    """``index("k", "position")`` and ``index("k", "link")`` (two scenarios, one process, either
    order): different symbols, each printed in the evaluator under its own loop name. A global
    table of loop names once let the module loaded last rename the other's loops."""
    import sympy

    from symbolic.codegen.pyprint import EvaluatorPrinter
    from symbolic.model.functions import index

    position, link = index("k", "position"), index("k", "link")
    assert position != link and position == index("k", "position")
    assert sympy.latex(position) == sympy.latex(link) == "k"
    items = sympy.IndexedBase("items")
    for symbol, name in ((position, "position"), (link, "link"), (position, "position")):
        printed = EvaluatorPrinter({items: "items"}, {}).doprint(sympy.Sum(items[symbol] ** 2, (symbol, 0, 3)))
        assert f"items[{name}]**2 for {name} in range(0, 4)" in printed, printed
