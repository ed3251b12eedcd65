"""The cached pipeline: per-scenario keys, catalog slices, and cached renders equal to fresh ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from symbolic.codegen import keys, pipeline
from symbolic.codegen.record import ScenarioRecord

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def tree(tmp_path, monkeypatch):
    """A small copy of the scenario folders and catalog, with the key functions pointed at it."""
    for folder in ("symbolic/scenarios", "symbolic/catalog"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(keys, "SCENARIOS", tmp_path / "symbolic" / "scenarios")
    monkeypatch.setattr(keys, "CATALOG", tmp_path / "symbolic" / "catalog")
    keys._catalog.cache_clear()
    yield tmp_path
    keys._catalog.cache_clear()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_editing_a_scenario_changes_its_key_and_its_importers_only(tree):
    before = keys.scenario_keys("shared")
    _edit(tree / "symbolic/scenarios/framework/host_dispatch.py", "Kernels launched per block", "Kernels per block")
    after = keys.scenario_keys("shared")
    changed = sorted(name for name in before if before[name] != after[name])
    assert changed == ["host_dispatch", "mlp_training_step"]  # the training step contains it
    assert keys.scenario_keys("other shared code") != after  # shared generator code is in every key


def test_contained_scenarios_are_found_transitively():
    found = keys.dependencies(keys.scenario_sources())
    assert found["epoch_overhead"] == ["dense_network", "epoch_overhead"]
    assert found["mlp_training_step"] == ["host_dispatch", "mlp_training_step"]
    assert found["host_dispatch"] == ["host_dispatch"]


def test_a_catalog_record_a_scenario_names_is_in_its_key_and_others_are_not(tree):
    before = keys.scenario_keys("shared")
    hardware = tree / "symbolic/catalog/hardware.toml"
    text = hardware.read_text(encoding="utf-8")
    start = text.index("\n[Cloud.H100]\n")
    name_line = text.index("name = ", start)
    hardware.write_text(text[:name_line] + "name = \"renamed\"\n" + text[text.index("\n", name_line) + 1:],
                        encoding="utf-8")
    keys._catalog.cache_clear()
    after = keys.scenario_keys("shared")
    changed = {name for name in before if before[name] != after[name]}
    assert {"mlp_training_step", "epoch_overhead"} <= changed  # both name Hardware.Cloud.H100
    assert "dense_network" not in changed and "host_dispatch" not in changed


def test_catalog_slices_ignore_imports_and_fall_back_to_whole_files():
    text = keys.without_imports(b"from symbolic.catalog import Constants, Hardware\nx = Hardware.Cloud.H100\n")
    assert list(json.loads(keys.catalog_slices(text))) == ["Hardware.Cloud.H100"]
    unknown = json.loads(keys.catalog_slices("Hardware.NoSuchTier.X"))
    assert "Hardware.NoSuchTier.X" in unknown and "Cloud" in unknown["Hardware.NoSuchTier.X"]  # the whole file


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
