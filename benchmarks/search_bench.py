"""Design-space search (issue 18): points per second in process and on Dask, against Python
loops over the class API and over the reference's approach (pint Quantities), side by side.

The scenario is the training step (41 numeric outputs). The grid varies dispatch (outer),
hidden_width and batch_size (inner), so that a chunk reaches the evaluator with batch and
width as arrays and nearly every output is computed per point; the constraints and the
objective read outputs of all three axes.
"""

from __future__ import annotations

import resource
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

import pint_formulas
from report import merge_section
from generated import Scenarios
from symbolic.runtime.search import search

BASE = "MnistTwoLayerTrainingStepOnH100"
WHERE = ["total_bytes <= 2 GB", "compute_time >= memory_time"]
OBJECTIVE = "(compute_time + host.host_time) / batch_size"
TARGET_RATE = 1e7  # points per second per core
TARGET_1E8 = 30.0  # seconds for a 10⁸-point search
DASK_OVERHEAD = 2.0  # the Dask engine on 2 local workers within 2× the in-process time


def grid(points: int) -> dict[str, Any]:
    outer = points // 10**6
    return {"dispatch": np.linspace(1.0, 100.0, outer), "hidden_width": np.arange(1, 1001),
            "batch_size": np.arange(1, 1001)}


def run(points: int, **kwargs: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    found = search(getattr(Scenarios, BASE), grid(points), WHERE, minimize=OBJECTIVE, top=5, **kwargs)
    return time.perf_counter() - started, found


def cpu_run(points: int) -> tuple[float, float, Any]:
    """Wall and CPU seconds (user + system, this process) of an in-process search. On this shared
    machine the wall time includes waiting for a core; the CPU time is what one core spent."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    wall, found = run(points)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, found


def per_point_loops(count: int) -> dict[str, float]:
    """Seconds per point of a Python loop: the class API (build, evaluate, read the constraint
    outputs) and the reference's approach (the formulas on pint Quantities), in CPU time as the
    in-process search is compared."""
    base = getattr(Scenarios, BASE)
    pint_args = pint_formulas.inputs_of(base)
    points = [(float(d), int(h), int(b)) for d, h, b in zip(np.linspace(1, 100, count), range(1, count + 1),
                                                              range(count, 0, -1), strict=True)]
    started = time.process_time()
    for dispatch, hidden, batch in points:
        scenario = base.variant(dispatch=dispatch, hidden_width=hidden, batch_size=batch)
        scenario.total_bytes, scenario.compute_time, scenario.memory_time  # noqa: B018 (read as a loop would)
    api = (time.process_time() - started) / count
    from symbolic.runtime.units import Q_

    started = time.process_time()
    for dispatch, hidden, batch in points:
        pint_formulas.mlp_training_step(**{**pint_args, "dispatch": Q_(dispatch, "µs"), "hidden_width": hidden,
                                           "batch_size": batch})
    return {"class API loop": api, "pint loop (reference approach)": (time.process_time() - started) / count}


def measure(rounds: int) -> dict[str, Any]:
    from distributed import Client, LocalCluster

    small = 10**7
    run(10**6)  # warm: imports, pint, the catalog
    local_runs = [cpu_run(small) for _ in range(rounds)]
    local, local_cpu = [r[0] for r in local_runs], [r[1] for r in local_runs]
    local_found = local_runs[0][2]
    loops = per_point_loops(300)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            run(10**6, engine="dask", scheduler=client)  # warm the workers
            dask = [run(small, engine="dask", scheduler=client)[0] for _ in range(rounds)]
            _, dask_found = run(small, engine="dask", scheduler=client)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    big_seconds, big_cpu, big = cpu_run(10**8)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    identical = ([r.inputs for r in local_found.rows] == [r.inputs for r in dask_found.rows]
                 and (local_found.feasible, local_found.invalid) == (dask_found.feasible, dask_found.invalid))
    return {"points": small, "local_s": statistics.median(local), "local_cpu_s": statistics.median(local_cpu),
            "local_cpu_samples_s": local_cpu, "big_cpu_s": big_cpu, "dask_s": statistics.median(dask),
            "local_samples_s": local, "dask_samples_s": dask, "dask_identical": identical,
            "loops_s_per_point": loops, "big_points": 10**8, "big_s": big_seconds, "big_feasible": big.feasible,
            "big_chunks": big.chunks, "big_best": big.to_dict()["rows"][0]["inputs"] if big.rows else None,
            "max_rss_growth_mb": max(0, after - before) / 1024, "outputs": 41}


def table(info: dict[str, Any]) -> str:
    rate = info["points"] / info["local_s"]
    per_core = info["points"] / info["local_cpu_s"]
    lines = [f"Design-space search: the training step (41 outputs), {info['points']:,}-point grid, median of rounds",
             f"  {'in process, wall time':<44}{info['local_s']:>8.2f} s  {rate:>14,.0f} points/s",
             f"  {'in process, CPU time (one core)':<44}{info['local_cpu_s']:>8.2f} s  {per_core:>14,.0f} points/s",
             f"  {'Dask, 2 local workers (wall)':<44}{info['dask_s']:>8.2f} s  {info['points'] / info['dask_s']:>14,.0f} "
             f"points/s  ({info['dask_s'] / info['local_s']:.2f}× in process; same answer: {info['dask_identical']})"]
    for name, seconds in info["loops_s_per_point"].items():
        lines.append(f"  {name + ', CPU time':<44}{seconds * info['points']:>8.0f} s  {1 / seconds:>14,.0f} points/s  "
                     f"({seconds * per_core:,.0f}× the search's CPU time; from 300 points)")
    lines.append(f"  10⁸ points in process: {info['big_s']:.1f} s wall, {info['big_cpu_s']:.1f} s CPU, in "
                 f"{info['big_chunks']:,} chunks "
                 f"({info['big_points'] / info['big_s']:,.0f} points/s), peak memory grew "
                 f"{info['max_rss_growth_mb']:.0f} MB")
    return "\n".join(lines)


def targets(info: dict[str, Any]) -> list[dict[str, Any]]:
    per_core = info["points"] / info["local_cpu_s"]  # the CPU time one core spent
    ratio = info["dask_s"] / info["local_s"]
    return [
        {"target": "search ≥ 10⁷ points/s per core (41-output training step)", "measured": per_core,
         "limit": TARGET_RATE, "comparison": ">=", "unit": "points/s", "met": per_core >= TARGET_RATE,
         "detail": f"{info['points']:,} points in {info['local_cpu_s']:.2f} s of CPU ({info['local_s']:.2f} s wall "
                   "on the shared machine)"},
        {"target": "10⁸-point search < 30 s", "measured": info["big_s"], "limit": TARGET_1E8, "comparison": "<=",
         "unit": "s", "met": info["big_s"] < TARGET_1E8,
         "detail": f"wall time; {info['big_cpu_s']:.1f} s of CPU, memory grew {info['max_rss_growth_mb']:.0f} MB"},
        {"target": "Dask on 2 local workers within 2× in process, same answer", "measured": ratio,
         "limit": DASK_OVERHEAD, "comparison": "<=", "unit": "×", "met": ratio <= DASK_OVERHEAD
         and info["dask_identical"], "detail": f"wall {info['dask_s']:.2f} s against {info['local_s']:.2f} s; "
                                               f"same answer: {info['dask_identical']}"},
    ]


def merge_into(path: Path, rounds: int = 3) -> None:
    """Measure the search alone and replace its record, targets and table block in ``path``
    (the block sits before the pipeline's, which ``--pipeline-only`` replaces as the tail)."""
    info = measure(rounds)
    found = targets(info)
    text = table(info)
    print(text)
    for item in found:
        print(f"  {'met' if item['met'] else 'NOT met'}: {item['target']} ({item['measured']:.3g} {item['unit']})")
    merge_section(path, "search", info, found, text, "Design-space search")
