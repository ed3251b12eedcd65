"""The cached, per-scenario render: only what changed is analysed again.

Each scenario's files and record are cached in ``.cache/generate/scenarios/<name>.json``
under its key (``symbolic.codegen.keys``: its module, the scenario modules it imports,
the catalog records they read, the generator code and templates on its render's path). On a miss only that scenario's
module (and what it imports) is loaded and rendered; several misses render in parallel
worker processes. The index pages, the registry and the hardware pages are then
rendered from the records of every scenario (``render.render_site``), themselves cached
under a digest of those records, the catalog and every generator file (the CLI reference reads the CLI); charts are cached by what they plot.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from symbolic.codegen.keys import ROOT, scenario_keys, shared_digest
from symbolic.codegen.record import ScenarioRecord
from symbolic.codegen import charts
from symbolic.codegen.keys import scenario_sources
from symbolic.codegen.render import install_fresh_records, render_scenario, render_site
from symbolic.runtime.errors import DeclarationError
from symbolic.scenarios.discover import load, scenario_files

SITE_INPUTS = ("benchmarks/results.json", "benchmarks/this_machine.json", "benchmarks/validation.json")


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    # key order is kept: a registry entry's inputs are emitted in the order they were declared
    temporary.write_text(json.dumps(data), encoding="utf-8")
    temporary.replace(path)  # atomic: a concurrent reader sees the old entry or the new one


def module_names() -> list[str]:
    """Every scenario module's name (``kv_decode_batch``), sorted."""
    return [name for _, name in scenario_files()]


def render_alone(name: str, cache: Path) -> ScenarioRecord:
    """One scenario module rendered with every check (``python -m symbolic.generate --only``), its charts read
    from the cache when what they plot did not change."""
    charts.CHART_CACHE = cache / "charts"
    install_fresh_records()
    return render_scenario(load(name))


def import_all(names: list[str]) -> None:
    """Import the scenario modules to render in this process, before any worker starts: an error in one
    (a wrong import, a refused declaration) is the first thing printed, naming its file, rather than a
    worker's traceback minutes later; the forked workers inherit the imported modules."""
    families = dict((name, family) for family, name in scenario_files())
    for name in names:
        try:
            load(name)
        except Exception as error:
            raise DeclarationError(f"symbolic/scenarios/{families.get(name, '?')}/{name}.py does not load: "
                                   f"{type(error).__name__}: {error}") from error


def _render_one(name: str) -> dict[str, Any]:
    """Worker: load one scenario module and render it (records travel as JSON-ready dicts)."""

    return render_scenario(load(name)).to_json()


def render_records(names: list[str], workers: int | None = None) -> dict[str, ScenarioRecord]:
    """Render the named scenarios, in parallel processes when there are several and cores to spare."""
    workers = min(len(names), os.cpu_count() or 1) if workers is None else workers
    if workers <= 1 or len(names) <= 1:
        return {name: ScenarioRecord.from_json(_render_one(name)) for name in names}
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        # the slowest first, so that the two workers finish together (size of the module as the guess)
        order = sorted(names, key=lambda n: -len(_source_text(n)))
        results = dict(zip(order, pool.map(_render_one, order), strict=True))
    return {name: ScenarioRecord.from_json(results[name]) for name in names}


def _source_text(name: str) -> str:
    return scenario_sources()[name].read_text(encoding="utf-8")


def render_cached(cache: Path, workers: int | None = None) -> dict[str, str]:
    """Every generated file, re-rendering only the scenarios whose key changed."""

    scenario_files()  # refuses strays, unknown families and clashing module names before anything else

    install_fresh_records()  # before any catalog record is built: forked workers inherit the fresh types
    started = time.time()
    charts.CHART_CACHE = cache / "charts"  # inherited by forked workers
    shared = shared_digest()
    keys = scenario_keys()
    records: dict[str, ScenarioRecord] = {}
    for name, key in keys.items():
        entry = _read(cache / "scenarios" / f"{name}.json")
        if entry is not None and entry.get("key") == key:
            records[name] = ScenarioRecord.from_json(entry["record"])
    misses = sorted(set(keys) - set(records))
    import_all(misses)
    for name, record in render_records(misses, workers).items():
        _write(cache / "scenarios" / f"{name}.json", {"key": keys[name], "record": record.to_json()})
        records[name] = record
    for stale in (cache / "scenarios").glob("*.json"):
        if stale.stem not in keys:
            stale.unlink()
    ordered = [records[name] for name in sorted(records)]
    files = {**_site_cached(cache, shared, ordered), **{p: t for r in ordered for p, t in r.files.items()}}
    if misses and len(misses) == len(keys):  # a full render: charts it did not draw or reuse are plotted nowhere
        for chart in charts.CHART_CACHE.glob("*.svg"):
            if chart.stat().st_mtime < started - 1:
                chart.unlink()
    return files


def _site_cached(cache: Path, shared: str, records: list[ScenarioRecord]) -> dict[str, str]:
    """The pages about all scenarios, cached under a digest of what they are rendered from."""
    hasher = hashlib.sha256(shared.encode())
    for record in records:
        hasher.update(json.dumps({**record.to_json(), "files": sorted(record.files)}, sort_keys=True).encode())
    for path in [*sorted((ROOT / "symbolic" / "catalog").glob("*.toml")), *(ROOT / p for p in SITE_INPUTS)]:
        hasher.update(path.name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b""))
    key = hasher.hexdigest()
    entry = _read(cache / "site" / "pages.json")
    if entry is not None and entry.get("key") == key:
        return dict(entry["files"])

    files = render_site(records)
    _write(cache / "site" / "pages.json", {"key": key, "files": files})
    return files
