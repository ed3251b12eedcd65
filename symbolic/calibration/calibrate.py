"""One calibration run: probes in interleaved blocks, a verdict, and the node file they make.

Blocks interleave the probes (block 1 runs every probe, then block 2 ...), so a burst of load
from another process lands on every figure alike and shows as spread, not as one figure off.
A run is refused (no node file, exit 2) when the machine was too loaded to say what it does:
the load average per core before or after, or the spread of a headline figure, past its limit.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from symbolic.calibration import conditions, machine, probes
from symbolic.calibration.timing import Clock, Figure, summarize
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.node_file import Measured, node_file_text


class Plan(NamedTuple):
    """How long to measure: blocks per figure, the shortest timed loop, the matmul size."""

    label: str
    blocks: int
    min_time: float
    matmul_n: int


QUICK = Plan("quick", blocks=3, min_time=0.08, matmul_n=768)    # about 20 s on 2 cores
FULL = Plan("full", blocks=7, min_time=0.25, matmul_n=1024)     # about 2 min


class Limits(NamedTuple):
    """When a run is refused. Our own probe adds about one to the load average, so the limit is
    on the load seen before the first block and after the last, per usable core."""

    max_load_per_core: float = 0.75
    max_spread: float = 0.25


DEFAULT_LIMITS = Limits()


def headline(threads: int) -> tuple[str, ...]:
    """The figures the node is built from: their spread decides the verdict."""
    return (f"matmul_fp32_t{threads}", f"stream_add_t{threads}", "numpy_op_alloc")


class Calibration(NamedTuple):
    """What a run measured and found."""

    facts: dict[str, Any]
    plan: Plan
    threads: tuple[int, ...]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    figures: dict[str, Figure]
    units: dict[str, probes.Figure]
    refusal: str | None
    seconds: float
    date: str
    flagged: dict[str, str] = {}  # figures outside physical bounds or beyond the spread limit, with why

    @property
    def node_threads(self) -> int:
        return self.threads[0]


def parse_threads(text: str | None, cores: int) -> tuple[int, ...]:
    """``--threads 1,2``: distinct positive counts, the first the one the node is built for."""
    if text is None:
        return (1, 2) if cores >= 2 else (1,)
    counts = []
    for item in text.split(","):
        try:
            count = int(item)
        except ValueError:
            count = 0
        if count < 1:
            raise ScenarioInputError(f"--threads: {item!r} is not a positive integer (e.g. --threads 1,2)")
        if count not in counts:
            counts.append(count)
    return tuple(counts)


def standard_probes(plan: Plan, threads: Sequence[int], facts: dict[str, Any],
                    pool: ThreadPoolExecutor | None) -> list[probes.Probe]:
    """numpy probes always; PyTorch's when it is installed."""
    chosen = [probes.matmul("float32", plan.matmul_n, count) for count in threads]
    chosen.append(probes.matmul("float64", plan.matmul_n, threads[0]))
    chosen.append(probes.skinny_gemm(plan.matmul_n, threads[0]))
    sizes = cache_sizes(facts)
    elements = probes.stream_elements(sizes[-1][1])
    chosen += [probes.stream(count, pool, elements) for count in threads]
    chosen += [probes.cache_point(label, size) for label, size in sizes]
    chosen += [probes.numpy_op(), probes.numpy_calls(), probes.allocation()]
    if probes.torch_available():
        chosen += [probes.torch_host(), probes.skinny_gemm(plan.matmul_n, threads[0], "torch")]
    return chosen


def cache_sizes(facts: dict[str, Any]) -> list[tuple[str, int]]:
    """A working set inside each data cache (``probes.level_working_sets``) and one at 8x the last
    level (at most ``probes.DRAM_MAX``: a VM's last level may be a whole socket's, 480 MiB)."""
    found = machine.data_caches(machine.caches())
    measured = probes.level_working_sets([cache["bytes"] for cache in found])
    sizes = [(f"l{cache['level']}", size) for cache, (size, _) in zip(found, measured, strict=True)]
    last = found[-1]["bytes"] if found else 8 << 20
    return sizes + [("dram", min(8 * last, probes.DRAM_MAX))]


def run_blocks(chosen: Sequence[probes.Probe], plan: Plan, clock: Clock,
               progress: Callable[..., None] | None = None) -> dict[str, list[float]]:
    """Every probe once per block, ``plan.blocks`` times over: each figure's block values."""
    values: dict[str, list[float]] = {name: [] for probe in chosen for name in probe.figures}
    for block in range(plan.blocks):
        for index, probe in enumerate(chosen):
            if progress:
                progress(f"block {block + 1}/{plan.blocks}: {probe.name}", block * len(chosen) + index,
                         plan.blocks * len(chosen))
            with probes.blas_threads(probe.threads):
                for name, value in probe.block(clock, plan.min_time).items():
                    values[name].append(value)
    return values


def refusal(load_before: Sequence[float], load_after: Sequence[float], cores: int,
            figures: dict[str, Figure], watched: Sequence[str], limits: Limits) -> str | None:
    """Why the run cannot give a verdict, or None when it can."""
    for when, load in (("before", load_before), ("after", load_after)):
        loaded = conditions.too_loaded(tuple(load), cores, limits.max_load_per_core, when)  # type: ignore[arg-type]
        if loaded:
            return loaded
    spread = {name: figures[name].spread for name in watched if name in figures}
    worst = max(spread, key=lambda name: spread[name], default=None)
    if worst is not None and spread[worst] > limits.max_spread:
        return (f"the blocks disagree: {worst} spread {spread[worst]:.0%} across {figures[worst].blocks} blocks "
                f"(limit {limits.max_spread:.0%}); another process was competing for the machine")
    return None


def calibrate(plan: Plan, threads: Sequence[int], *, clock: Clock = time.perf_counter,
              loadavg: Callable[[], tuple[float, float, float]] | None = None, limits: Limits = DEFAULT_LIMITS,
              chosen: Sequence[probes.Probe] | None = None, facts: dict[str, Any] | None = None,
              progress: Callable[..., None] | None = None) -> Calibration:
    """Measure: the machine's facts, the load, every probe in blocks; the verdict."""
    facts = machine.facts() if facts is None else facts
    loadavg = conditions.current_load if loadavg is None else loadavg
    load_before = machine.load_average(loadavg)
    start = clock()
    with ThreadPoolExecutor(max_workers=max(threads)) as pool:
        chosen = standard_probes(plan, threads, facts, pool) if chosen is None else chosen
        values = run_blocks(chosen, plan, clock, progress)
    seconds = clock() - start
    load_after = machine.load_average(loadavg)
    figures = {name: summarize(block_values) for name, block_values in values.items()}
    units = {name: figure for probe in chosen for name, figure in probe.figures.items()}
    reason = refusal(load_before, load_after, int(facts.get("cores", 1)), figures, headline(threads[0]), limits)
    flagged = conditions.flags({name: (figure.median, units[name].unit, figure.spread)
                                for name, figure in figures.items()}, facts, limits.max_spread)
    if reason is None and flagged:  # an impossible or unsteady figure: nothing written without --force
        name = next(iter(flagged))
        reason = f"{len(flagged)} figure{'s' if len(flagged) > 1 else ''} flagged, first {name}: {flagged[name]}"
    date = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Calibration(facts, plan, tuple(threads), load_before, load_after, figures, units, reason, seconds, date,
                       flagged)


def shown(value: float, unit: str) -> str:
    """A figure as the node file writes it: four significant digits and its unit."""
    number = f"{value:.4g}"
    return f"{number} {unit}" if unit else number


def measured(result: Calibration) -> dict[str, Measured]:
    """Every figure as the node file records it."""
    return {name: Measured(shown(figure.median, result.units[name].unit), round(figure.spread, 4), figure.blocks,
                           result.units[name].method)
            for name, figure in result.figures.items()}


def node_fields(result: Calibration) -> dict[str, Any]:
    """The [node] table: the rates at the node's thread count, memory from the OS."""
    threads, figures = result.node_threads, result.figures
    peak = shown(figures[f"matmul_fp32_t{threads}"].median, "GFLOP/s")
    rates = {"fp32": peak}
    if f"matmul_fp64_t{threads}" in figures:
        rates["fp64"] = shown(figures[f"matmul_fp64_t{threads}"].median, "GFLOP/s")
    facts = result.facts
    fields: dict[str, Any] = {
        "name": f"{facts.get('cpu_model', 'unknown CPU')}, {facts.get('cores', '?')} cores, {threads} thread(s), "
                f"measured {result.date[:10]}",
        "memory_bandwidth": shown(figures[f"stream_add_t{threads}"].median, "GB/s"),
        "peak_flops": peak,
        "precision_flops": rates,
    }
    if facts.get("memory", "unknown") != "unknown":
        fields["memory_capacity"] = facts["memory"]
    if "numpy_op_alloc" in figures:
        fields["dispatch_tax"] = shown(figures["numpy_op_alloc"].median / 1000, "ms")
    return fields


def host_table(result: Calibration) -> dict[str, Any]:
    """The [host] table: the facts, the run's conditions and its verdict."""
    return {**result.facts, "threads": result.node_threads, "threads_measured": list(result.threads),
            "date": result.date, "plan": result.plan.label, "seconds": round(result.seconds, 1),
            "load_average_before": [round(x, 2) for x in result.load_before],
            "load_average_after": [round(x, 2) for x in result.load_after],
            "verdict": "ok" if result.refusal is None else f"measured anyway: {result.refusal}"}


HEADER = """mlsysym node file, written by `mlsysym calibrate`.
Load it as a hardware node: hardware_from_file("{path}") in Python, --set hardware=@{path} on the command line.
[node] holds the rates at the node's thread count ([host] threads); [measured] every figure with
its spread across blocks (twice the interquartile range over the median: the full range for three
blocks, blind to one disturbed block of seven) and how it was measured."""


def node_file(result: Calibration, path: str = "node.toml") -> str:
    """The node file's text."""
    return node_file_text(node_fields(result), host_table(result), measured(result), HEADER.format(path=path))
