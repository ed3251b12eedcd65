"""``mlsysym validate --here``: run the scenarios' workloads on this machine, set them against predictions.

Each suite measures its points twice (two passes, a calibration block before, between and after
them, so drift of the machine shows), and predicts every point from a generated scenario whose
inputs are the node file's figures and the op counts traced from the very code that is timed.
Rows follow ``mlsysym validate``'s JSON form: ``name, kind, quantity, measured {value, unit},
predicted {value, unit}, error`` (predicted / measured - 1), plus what explains the point.
"""

from __future__ import annotations

import functools
import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from symbolic.calibration import probes, workloads
from symbolic.calibration.timing import Clock, per_call, summarize
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.node_file import NodeFile
import generated

SUITES = ("mlp", "adam", "roofline", "fusion", "epoch")
MNIST = (784, 10)  # input width, classes: the MNIST-shaped MLP of the scenario's registry entry
HIDDEN = (32, 128, 512, 2048)
BATCHES = (1, 4, 16, 64, 256, 1024, 4096)
ADAM_SIZES = (10 ** 5, 10 ** 6, 10 ** 7)
CHAINS = (1, 4, 16, 64)
EPOCH_BATCHES = (8, 32, 128, 512)
EPOCH_EXAMPLES = 8192
EPOCH_WIDTHS = (784, 128, 64, 10)


class Point(NamedTuple):
    """One measured point: what to run, and its prediction (value, unit, explanation)."""

    name: str
    kind: str
    quantity: str
    unit: str
    run: Callable[[], object]
    predict: Callable[[], tuple[float, dict[str, Any]]]
    scale: float = 1e6  # a time: seconds per call times scale, in unit
    rate: float = 0.0   # a rate instead, when nonzero: work per call (in unit x s) over seconds per call


class Grid(NamedTuple):
    """What a run covers (the tests shrink it)."""

    hidden: Sequence[int] = HIDDEN
    batches: Sequence[int] = BATCHES
    adam_sizes: Sequence[int] = ADAM_SIZES
    chains: Sequence[int] = CHAINS
    epoch_batches: Sequence[int] = EPOCH_BATCHES
    epoch_examples: int = EPOCH_EXAMPLES
    min_time: float = 0.05
    torch: bool = True


DEFAULT_GRID = Grid()


def parse_suites(text: str | None) -> tuple[str, ...]:
    if text is None:
        return SUITES
    chosen = tuple(dict.fromkeys(item.strip() for item in text.split(",") if item.strip()))
    unknown = [item for item in chosen if item not in SUITES]
    if unknown or not chosen:
        raise ScenarioInputError(f"--suite: {', '.join(map(repr, unknown)) or repr(text)} is not a suite; "
                                 f"suites: {', '.join(SUITES)}")
    return chosen


# -- what the node file says ---------------------------------------------------------------------
class Profile(NamedTuple):
    """The figures the predictions read from a node file."""

    node: Any
    numpy_op: float          # µs per eager numpy op that allocates its result
    numpy_call: float        # µs per numpy call into an existing result
    allocation: float        # µs per MB of fresh result memory
    bandwidth: float         # GB/s, the node's (STREAM add)
    levels: list[tuple[str, int, float]]  # (level, capacity in bytes, GB/s), smallest first
    torch_op: float | None
    backward_fixed: float | None
    backward_per_node: float | None
    gemm_half_rows: float = 0.0        # numpy's BLAS (0 when the node file has no such figure: the peak)
    torch_gemm_half_rows: float = 0.0  # PyTorch's
    gemm_half_inner: float | None = None        # numpy's short inner dimension (None: gemm_half_rows)
    torch_gemm_half_inner: float | None = None  # PyTorch's
    rank_one: float | None = None        # numpy's outer-product efficiency (None: the gemm_half_rows curve)
    torch_rank_one: float | None = None  # PyTorch's
    host_calls: tuple[tuple[str, float], ...] = ()  # µs per call of the numpy functions that are not one ufunc

    @classmethod
    def of(cls, node_file: NodeFile) -> Profile:
        measured = node_file.measured
        host = node_file.host
        levels = [(name, int(size), node_file.figure(f"add_{name}", "GB/s"))
                  for name, size in zip(host.get("data_cache_levels", []), host.get("data_cache_bytes", []),
                                        strict=False) if f"add_{name}" in measured]

        def optional(name: str) -> float | None:
            return node_file.figure(name, "µs") if name in measured else None

        def optional_share(name: str) -> float | None:
            return node_file.figure(name, "") if name in measured else None

        def optional_number(name: str) -> float:
            return node_file.figure(name, "") if name in measured else 0.0

        return cls(node_file.node, node_file.figure("numpy_op_alloc", "µs"), node_file.figure("numpy_op", "µs"),
                   node_file.figure("fresh_allocation", "µs/MB"),
                   node_file.node.memory_bandwidth.to("GB/s").magnitude, levels,
                   optional("torch_op"), optional("backward_fixed"), optional("backward_per_node"),
                   optional_number("gemm_half_rows"), optional_number("torch_gemm_half_rows"),
                   optional_share("gemm_half_inner"), optional_share("torch_gemm_half_inner"),
                   optional_share("gemm_rank_one_efficiency"), optional_share("torch_gemm_rank_one_efficiency"),
                   tuple((name.removeprefix("numpy_call_"), node_file.figure(name, "µs"))
                         for name in measured if name.startswith("numpy_call_")))

    def gemm_inputs(self, framework: str) -> dict[str, float]:
        """The MLP step's matrix-multiply shape inputs for ``framework``'s library; a figure the node file
        lacks is left out, so the scenario's default (the ``gemm_half_rows`` curve) applies."""
        torch = framework != "numpy"
        figures = {"gemm_half_rows": self.torch_gemm_half_rows if torch else self.gemm_half_rows,
                   "gemm_half_inner": self.torch_gemm_half_inner if torch else self.gemm_half_inner,
                   "rank_one_efficiency": self.torch_rank_one if torch else self.rank_one}
        return {name: value for name, value in figures.items() if value is not None}

    def numpy_dispatch(self, calls: Sequence[str]) -> float:
        """µs per call, on average, of the numpy functions ``calls`` names: each at its own measured
        cost, a ufunc (or a function the node file does not list) at ``numpy_op``."""
        costs = dict(self.host_calls)
        return statistics.fmean(costs.get(name, self.numpy_op) for name in calls) if calls else self.numpy_op

    def level_for(self, working_set: float) -> tuple[str, int, float] | None:
        """The smallest cache level the working set fits in, or None (DRAM)."""
        return next((level for level in self.levels if working_set <= level[1]), None)

    def last_level(self) -> dict[str, Any]:
        if not self.levels:
            return {}
        _, capacity, bandwidth = self.levels[-1]
        return {"cache_capacity": capacity, "cache_bandwidth": bandwidth}


# -- predictions (from the generated scenarios) -----------------------------------------------------
def _scenarios() -> Any:
    return generated.Scenarios


def mlp_prediction(profile: Profile, shape: workloads.MlpShape, framework: str, counts: dict[str, int],
                   fresh: int, assumed: bool = False, calls: dict[str, list[str]] | None = None,
                   ) -> tuple[float, dict[str, Any]]:
    """The MLP step on this node: measured op counts (or, ``assumed``, the registry's) and host costs."""
    b, i, h, o = shape
    inputs: dict[str, Any] = dict(batch_size=b, input_width=i, hidden_width=h, output_width=o, label_bytes=8,
                                  hardware=profile.node, launch=0, allocation_cost=profile.allocation,
                                  fresh_bytes=fresh, **profile.last_level(), **profile.gemm_inputs(framework))
    if framework == "numpy":  # every operation, forward or backward, is a Python call
        calls = calls or {}
        inputs.update(dispatch=profile.numpy_dispatch(calls.get("forward", [])), forward_ops=counts["forward"],
                      backward_ops=counts["backward"], autograd_nodes=counts["backward"],
                      backward_per_node=profile.numpy_dispatch(calls.get("backward", [])), backward_fixed=0)
    else:
        inputs.update(dispatch=profile.torch_op, forward_ops=counts["forward"], backward_ops=counts["backward"],
                      autograd_nodes=counts["autograd_nodes"], backward_per_node=profile.backward_per_node,
                      backward_fixed=profile.backward_fixed)
    if assumed:  # the reference's counts and no autograd engine: what the registry entry assumes
        for name in ("forward_ops", "backward_ops", "autograd_nodes", "backward_per_node", "backward_fixed"):
            inputs.pop(name)
    step = _scenarios().MnistTwoLayerTrainingStepOnH100.variant(**inputs)
    host = step.host.host_time.to("µs").magnitude
    roof = step.roofline_time.to("µs").magnitude
    compute = step.compute_time.to("µs").magnitude
    memory = step.memory_time.to("µs").magnitude
    regime = "host" if host >= roof else ("compute" if compute >= memory else "memory")
    explained = {"host_us": host, "roofline_us": roof, "gemm_half_rows": step.gemm_half_rows,
                 "gemm_half_inner": step.gemm_half_inner, "allocation_us": step.allocation_time.to("µs").magnitude,
                 "compute_us": compute, "memory_us": memory, "regime": regime,
                 "ops": step.forward_ops + step.backward_ops}
    return step.step_time.to("µs").magnitude, explained


def adam_prediction(profile: Profile, size: int, dispatch: float, counts: workloads.Counts,
                    ) -> tuple[float, dict[str, Any]]:
    fresh = counts.fresh if 4 * size >= workloads.BIG_RESULT else 0  # smaller results reuse heap memory
    step = _scenarios().PhoneFullUpdateWorkingSet.variant(
        parameters=size, bytes_per_param=4, optimizer_moments=2, bandwidth=profile.bandwidth,
        optimizer_values_moved=max(counts.values, 1e-9), optimizer_ops=sum(counts.ops.values()),
        parameter_tensors=1, dispatch=dispatch, temporaries=fresh, allocation_cost=profile.allocation)
    level = profile.level_for(step.persistent.to("byte").magnitude)
    if level is not None:  # the weights, gradients and moments fit in a cache level: its bandwidth
        step = step.variant(cache_capacity=level[1], cache_bandwidth=level[2])
    return step.optimizer_time.to("ms").magnitude, {
        "values_moved": counts.values, "ops": sum(counts.ops.values()), "fresh_results": fresh,
        "level": level[0] if level else "dram", "bandwidth_gbs": step.optimizer_bandwidth.to("GB/s").magnitude,
        "fused_floor_ms": step.variant(optimizer_values_moved=7, optimizer_ops=1, temporaries=0).optimizer_time
        .to("ms").magnitude}


def roofline_prediction(profile: Profile, flops: float, traffic: float, working_set: float
                        ) -> tuple[float, dict[str, Any]]:
    """One call of a kernel from Python: its roofline time at the level its working set fits in
    (the node's memory past the last level), plus one numpy call's cost."""
    level = profile.level_for(working_set)
    cache = {} if level is None else {"cache_capacity": level[1], "cache_bandwidth": level[2] / 1000}  # TB/s
    point = _scenarios().KernelAt200FlopPerByteH100.variant(hardware=profile.node, precision="fp32",
                                                            intensity=flops / traffic, working_set=traffic,
                                                            dispatch=profile.numpy_call, **cache)
    rate = point.level_attainable if level is not None else point.attainable
    bound = "compute" if rate.to("TFLOP/s").magnitude >= point.peak.to("TFLOP/s").magnitude else "memory"
    return point.kernel_rate.to("GFLOP/s").magnitude, {"level": level[0] if level else "dram", "regime": bound,
                                                       "intensity": flops / traffic,
                                                       "call_us": profile.numpy_call}


def fusion_prediction(profile: Profile, chain: int) -> tuple[float, dict[str, Any]]:
    fusion = _scenarios().ElementwisePairFusion.variant(chain_length=chain, dispatch=profile.numpy_op, launch=0)
    return fusion.unfused_overhead.to("µs").magnitude, {"regime": "host"}


def epoch_prediction(profile: Profile, batch: int, examples: int, ops_per_step: int) -> tuple[float, dict[str, Any]]:
    scenarios = _scenarios()
    network = scenarios.MnistDenseNetwork.variant(
        layer_widths=list(EPOCH_WIDTHS), batch_size=batch,
        dataset=generated.DatasetProfile("synthetic MNIST-shaped", training_examples=examples))
    layers = len(EPOCH_WIDTHS) - 1
    epoch = scenarios.MnistEpochCpuVersusH100.variant(
        network=network, host=profile.node, dispatch=profile.numpy_op,
        ops_per_layer=max(1, round(ops_per_step / layers)))
    work = epoch.result.work_time["host"].to("ms").magnitude
    overhead = epoch.result.overhead_time["host"].to("ms").magnitude
    return epoch.result.total_time["host"].to("ms").magnitude, {
        "work_ms": work, "overhead_ms": overhead, "regime": "host" if overhead >= work else "compute",
        "ops_per_step": epoch.result.ops_per_step}


# -- the suites' points ----------------------------------------------------------------------------
def mlp_points(profile: Profile, grid: Grid) -> list[Point]:
    points = []
    frameworks = ["numpy"] + (["torch"] if grid.torch and profile.torch_op is not None and probes.torch_available()
                              else [])
    for framework in frameworks:
        for hidden in grid.hidden:
            for batch in grid.batches:
                shape = workloads.MlpShape(batch, MNIST[0], hidden, MNIST[1])
                if framework == "numpy":
                    model: Any = workloads.NumpyMlp(shape)
                    counts, fresh, calls = workloads.numpy_mlp_counts(model)
                else:
                    model = workloads.TorchMlp(shape)
                    counts, fresh, calls = model.counts(), 0, {}

                def predict(shape: workloads.MlpShape = shape, framework: str = framework,
                            counts: dict[str, int] = counts, fresh: int = fresh,
                            calls: dict[str, list[str]] = calls) -> tuple[float, dict[str, Any]]:
                    value, explained = mlp_prediction(profile, shape, framework, counts, fresh, calls=calls)
                    explained["assumed_counts_us"] = mlp_prediction(profile, shape, framework, counts, fresh,
                                                                    assumed=True, calls=calls)[0]
                    explained.update(counts=counts, hidden=shape.hidden, batch=shape.batch)
                    return value, explained

                points.append(Point(f"mlp {framework} h={hidden} b={batch}", f"mlp-{framework}", "step_time", "µs",
                                    model.step, predict))
    return points


def adam_points(profile: Profile, grid: Grid) -> list[Point]:
    points = []
    for size in grid.adam_sizes:
        for inplace in (True, False):
            adam = workloads.NumpyAdam(size, inplace)
            counts = workloads.adam_counts(size, inplace)
            label = "in-place" if inplace else "fresh temporaries"
            points.append(Point(f"adam numpy {label} N={size:.0e}", "adam-numpy", "optimizer_time", "ms", adam.step,
                                functools.partial(adam_prediction, profile, size, profile.numpy_op, counts),
                                scale=1e3))
        if grid.torch and profile.torch_op is not None and probes.torch_available():
            for implementation in workloads.TorchAdam.IMPLEMENTATIONS:
                optimizer = workloads.TorchAdam(size, implementation)
                counts = optimizer.counts()
                points.append(Point(f"adam torch {implementation} N={size:.0e}", "adam-torch", "optimizer_time", "ms",
                                    optimizer.step,
                                    functools.partial(adam_prediction, profile, size, profile.torch_op or 0.0,
                                                      counts), scale=1e3))
    return points


def roofline_points(profile: Profile, grid: Grid) -> list[Point]:
    import numpy as np

    points = []
    checked = probes.level_working_sets([capacity for _, capacity, _ in profile.levels])
    sizes = [(name, point) for (name, _, _), (_, point) in zip(profile.levels, checked, strict=True)]
    last = profile.levels[-1][1] if profile.levels else 8 << 20
    for label, working_set in [*sizes, ("dram", min(16 * last, 2 * probes.DRAM_MAX))]:
        n = max(64, working_set // 24)
        x, y, z = np.ones(n), np.ones(n), np.ones(n)  # every page touched: a first pass faults in none
        points.append(Point(f"roofline multiply {label} ({24 * n} B)", "roofline", "rate", "GFLOP/s",
                            functools.partial(np.multiply, x, y, out=z),
                            functools.partial(roofline_prediction, profile, n, 24 * n, 24 * n), rate=n / 1e9))
    for n in (64, 256, 1024):
        a, b, c = (np.ones((n, n), dtype=np.float32) for _ in range(3))
        points.append(Point(f"roofline matmul n={n}", "roofline", "rate", "GFLOP/s",
                            functools.partial(np.matmul, a, b, out=c),
                            functools.partial(roofline_prediction, profile, 2 * n ** 3, 12 * n * n, 12 * n * n),
                            rate=2 * n ** 3 / 1e9))
    return points


def fusion_points(profile: Profile, grid: Grid) -> list[Point]:
    import numpy as np

    a, out = np.ones(8, dtype=np.float32), np.empty(8, dtype=np.float32)

    def chain_of(length: int) -> Callable[[], None]:
        def run() -> None:
            value = a
            for _ in range(length):
                value = np.add(value, 1.0)
        return run

    del out
    return [Point(f"fusion unfused chain of {k} tiny ops", "fusion", "unfused_overhead", "µs", chain_of(k),
                  functools.partial(fusion_prediction, profile, k)) for k in grid.chains]


def epoch_points(profile: Profile, grid: Grid) -> list[Point]:
    points = []
    for batch in grid.epoch_batches:
        model = workloads.NumpyDense(EPOCH_WIDTHS, grid.epoch_examples, batch)
        ops = workloads.dense_ops_per_step(model)
        points.append(Point(f"epoch numpy 784-128-64-10 b={batch}", "epoch", "epoch_time", "ms", model.epoch,
                            functools.partial(epoch_prediction, profile, batch, grid.epoch_examples, ops),
                            scale=1e3))
    return points


BUILDERS = {"mlp": mlp_points, "adam": adam_points, "roofline": roofline_points, "fusion": fusion_points,
            "epoch": epoch_points}


# -- running ---------------------------------------------------------------------------------------
def measure(point: Point, clock: Clock, min_time: float) -> float:
    """The point's value from seconds per call: a time in its unit, or a rate."""
    seconds = per_call(point.run, clock, min_time, max_calls=1 << 16)
    return point.rate / seconds if point.rate else seconds * point.scale


def calibration_block(clock: Clock, min_time: float, matmul_n: int = 512) -> dict[str, float]:
    """A short block of the headline probes: how the machine is doing right now."""
    values: dict[str, float] = {}
    for probe in (probes.matmul("float32", matmul_n, 1), probes.numpy_op()):
        with probes.blas_threads(1):
            values.update(probe.block(clock, min_time))
    return values


def row(point: Point, first: float, second: float) -> dict[str, Any]:
    predicted, explained = point.predict()
    measured = (first + second) / 2
    return {"name": point.name, "kind": point.kind, "quantity": point.quantity,
            "measured": {"value": measured, "unit": point.unit}, "predicted": {"value": predicted, "unit": point.unit},
            "error": predicted / measured - 1, "repeat": second / first - 1, **explained}


def run(node_file: NodeFile, suites: Iterable[str], grid: Grid = DEFAULT_GRID, *, clock: Clock = time.perf_counter,
        progress: Callable[..., None] | None = None) -> dict[str, Any]:
    """Every chosen suite measured twice between calibration blocks; rows and their summary."""
    profile = Profile.of(node_file)
    if grid.torch and probes.torch_available():
        import torch

        torch.set_num_threads(1)  # one thread, as the node's figures and the numpy workloads
    rows: list[dict[str, Any]] = []
    blocks = []
    with probes.blas_threads(1):  # the node's figures are one thread's; so are the workloads
        suites = list(suites)
        for number, suite in enumerate(suites):
            points = BUILDERS[suite](profile, grid)
            passes = []
            for attempt in range(2):
                blocks.append({"suite": suite, "pass": attempt + 1, **calibration_block(clock, grid.min_time)})
                if progress:
                    progress(f"{suite}: pass {attempt + 1} of 2, {len(points)} points", 2 * number + attempt,
                             2 * len(suites))
                passes.append([measure(point, clock, grid.min_time) for point in points])
            rows += [row(point, first, second) for point, first, second in zip(points, *passes, strict=True)]
        blocks.append({"suite": "end", "pass": 0, **calibration_block(clock, grid.min_time)})
    return {"rows": rows, "summary": summary(rows), "calibration_blocks": blocks, "drift": drift(blocks)}


def drift(blocks: Sequence[dict[str, Any]]) -> dict[str, float]:
    """How much the machine moved under the run: each headline figure's spread across the calibration
    blocks taken between the suites (as ``calibrate`` judges its own blocks)."""
    names = [name for name in blocks[0] if name not in ("suite", "pass")] if blocks else []
    return {name: summarize([block[name] for block in blocks]).spread for name in names
            if all(name in block for block in blocks)}


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per kind: how many points, median and mean |error|, the worst, how many within 2x and within
    20 %, and the noise (median |second / first - 1|)."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in rows:
        kinds.setdefault(item["kind"], []).append(item)
    return {kind: _stats(items) for kind, items in kinds.items()}


def _stats(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    errors = [abs(item["error"]) for item in items]
    ratio = [max(1 + item["error"], 1 / (1 + item["error"])) if 1 + item["error"] > 0 else math.inf for item in items]
    return {"points": len(items), "median_abs_error": statistics.median(errors),
            "mean_abs_error": statistics.fmean(errors), "max_abs_error": max(errors),
            "within_2x": sum(r <= 2 for r in ratio), "within_20pct": sum(e <= 0.2 for e in errors),
            "noise": statistics.median(abs(item["repeat"]) for item in items)}
