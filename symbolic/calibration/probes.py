"""The small workloads a calibration times: each probe runs one block and returns its figures.

numpy always; PyTorch figures only when it is installed (the optional extra). A probe's
``method`` says exactly what was timed and how a figure follows from it, and is written into
the node file beside the number.
"""

from __future__ import annotations

import contextlib
import functools
import math
import resource
import statistics
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from symbolic.calibration.timing import Clock, fit_line, per_call

MB = 1e6
STREAM_ELEMENTS = 1 << 22      # 32 MiB per float64 array at least; stream_elements() sizes them past the last level
DRAM_MAX = 1 << 30             # the most a DRAM working set takes (a VM may report a 480 MiB L3 shared with others)
TRIAD_CHUNK = 1 << 14          # a 128 KiB temporary, resident in L2, so triad moves STREAM's 24 bytes/element
FRESH_ELEMENTS = 1 << 23       # 64 MiB: past glibc's largest mmap threshold (32 MiB), so every result faults
BACKWARD_CHAIN = (1, 8, 32)    # autograd graph sizes the backward() fit runs over
GEMM_DIMS = (1, 4, 16, 64)     # the small dimension of the skinny multiplies gemm_half_rows is fitted on


class Figure(NamedTuple):
    unit: str
    method: str


class Probe(NamedTuple):
    """A workload: the figures one block yields, with their units and methods, and the block itself."""

    name: str
    figures: dict[str, Figure]
    block: Callable[[Clock, float], dict[str, float]]
    threads: int = 1


@contextlib.contextmanager
def blas_threads(count: int) -> Iterator[bool]:
    """BLAS limited to ``count`` threads while the block runs (threadpoolctl); yields whether it
    could be set (without threadpoolctl the BLAS keeps its default and the probe says so)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield False
        return
    with threadpool_limits(limits=count, user_api="blas"):
        yield True


def matmul(dtype: str, n: int, threads: int) -> Probe:
    """Peak matrix-multiply rate: ``a @ b`` of two n x n matrices into a preallocated result."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
    out = np.empty((n, n), dtype=dtype)
    name = f"matmul_{'fp32' if dtype == 'float32' else 'fp64'}_t{threads}"

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        seconds = per_call(lambda: np.matmul(a, b, out=out), clock, min_time)
        return {name: 2 * n ** 3 / seconds / 1e9}

    method = (f"numpy.matmul of two {n}x{n} {dtype} matrices into a preallocated result, BLAS at {threads} "
              f"thread(s); 2n^3 flop per call over the seconds per call")
    return Probe(name, {name: Figure("GFLOP/s", method)}, block, threads)


def level_working_sets(capacities: list[int]) -> list[tuple[int, int]]:
    """Per data-cache level (capacities smallest first): the working set its bandwidth is measured at
    and, smaller, the one ``validate --here`` checks it at.

    A level's bandwidth holds from just past the level below to somewhat short of its own capacity,
    less where cores that are not ours share it (a VM's L3 may be reported as a whole socket's 480
    MiB when under 64 MiB of it stays ours). So the figure is measured at the level's middle on a log
    scale, the geometric mean of the level below's capacity and its own, and checked halfway (again
    on a log scale) down towards the level below; L1, with nothing below, at a quarter and an eighth."""
    sizes = []
    for index, capacity in enumerate(capacities):
        if index == 0:
            sizes.append((capacity // 4, capacity // 8))
            continue
        below = capacities[index - 1]
        measured = int(math.sqrt(below * capacity))
        sizes.append((measured, int(math.sqrt(below * measured))))
    return sizes


def skinny_gemm(n: int, threads: int, framework: str = "numpy") -> Probe:
    """How a matrix multiply's rate falls with a small dimension d: ``gemm_half_rows`` (few rows or columns)
    and ``gemm_half_inner`` (a short inner dimension), the d at which it attains half of the n x n x n rate,
    and the outer product's own share, as ``MlpTrainingStepScenario`` reads them.

    Each block times the n x n x n multiply and, for d in ``GEMM_DIMS``, the three shapes with one
    dimension d and the others n (few rows, a short inner dimension as in a weight gradient at
    batch d, few columns), each into a preallocated result. A shape at rate r gives d (R / r - 1),
    where R is the square's rate (the value at which d / (d + M) of R is r); the figure is their
    median, so one shape's own quirk (numpy sends a single row or column to a matrix-vector
    product) does not set it. ``framework``: numpy's BLAS, or PyTorch's (a library of its own)."""
    rng = np.random.default_rng(3)
    name = "gemm_half_rows" if framework == "numpy" else "torch_gemm_half_rows"
    rank_one = "gemm_rank_one_efficiency" if framework == "numpy" else "torch_gemm_rank_one_efficiency"
    inner_name = "gemm_half_inner" if framework == "numpy" else "torch_gemm_half_inner"
    calls: list[tuple[int, Callable[[], object], float]] = []
    shapes = [(n, n, n)] + [shape for d in GEMM_DIMS for shape in ((d, n, n), (n, d, n), (n, n, d))]
    for rows, inner, cols in shapes:
        a = rng.standard_normal((rows, inner), dtype=np.float32)
        b = rng.standard_normal((inner, cols), dtype=np.float32)
        c = np.empty((rows, cols), dtype=np.float32)
        if framework == "numpy":
            call: Callable[[], object] = functools.partial(np.matmul, a, b, out=c)
        else:
            import torch

            torch.set_num_threads(threads)
            call = functools.partial(torch.matmul, torch.from_numpy(a), torch.from_numpy(b),
                                     out=torch.from_numpy(c))
        calls.append((min(rows, inner, cols), call, 2.0 * rows * inner * cols))

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        rates = [(d, flops / per_call(call, clock, min_time)) for d, call, flops in calls]
        square = rates[0][1]
        outer = rates[1 + 3 * GEMM_DIMS.index(1) + 1][1]  # (n, 1) x (1, n): an outer product
        halves = [d * max(square / rate - 1, 0.0) for d, rate in rates[1:]]  # (few rows, inner, few cols) by d
        return {name: statistics.median(h for k, h in enumerate(halves) if k % 3 != 1),
                inner_name: statistics.median(h for k, h in enumerate(halves) if k % 3 == 1 and rates[1 + k][0] > 1),
                rank_one: min(outer / square, 1.0)}

    dims = ", ".join(str(d) for d in GEMM_DIMS)
    library = "numpy.matmul (its BLAS)" if framework == "numpy" else "torch.matmul"
    method = (f"{library} of float32 shapes with one dimension d in ({dims}) and the others {n}, at {threads} "
              f"thread(s) into preallocated results, against the {n}x{n}x{n} rate R: the median over the shapes "
              "with few rows or columns of d (R / rate - 1), the dimension at which a multiply attains half of R")
    inner_method = (f"as gemm_half_rows, over the shapes whose inner dimension is d > 1 ({n} x d x {n}: a weight "
                    "gradient at batch d)")
    outer = (f"{library} of a ({n}, 1) by a (1, {n}) float32 matrix (an outer product) at {threads} thread(s), "
             f"its rate over the {n}x{n}x{n} rate: BLAS may run it far below the gemm_half_rows curve")
    return Probe(name, {name: Figure("", method), inner_name: Figure("", inner_method), rank_one: Figure("", outer)},
                 block, threads)


def stream_elements(dram_bytes: int) -> int:
    """float64 elements per STREAM array: three arrays together as large as the DRAM working set
    of the cache points (8x the last level, at most ``DRAM_MAX``), each at least 32 MiB."""
    return max(STREAM_ELEMENTS, dram_bytes // 24)


def stream(threads: int, pool: ThreadPoolExecutor | None = None, elements: int = STREAM_ELEMENTS) -> Probe:
    """STREAM copy, add and triad over float64 arrays of ``elements``, split across ``threads``
    Python threads (numpy releases the GIL inside a ufunc loop, so the threads run at once).

    Add, ``a = b + c``, is one ufunc per thread over the whole slice, as every numpy kernel the
    scenarios price moves memory: the node's bandwidth is this figure. Triad needs a temporary for
    ``3c``; done chunk by chunk it moves STREAM's 24 bytes/element but pays a Python loop per chunk,
    so it is reported, not used."""
    n = elements
    a, b, c = np.ones(n), np.full(n, 2.0), np.full(n, 0.5)
    tmp = [np.empty(TRIAD_CHUNK) for _ in range(threads)]
    bounds = [(n * k // threads, n * (k + 1) // threads) for k in range(threads)]

    def copy(k: int) -> None:
        low, high = bounds[k]
        np.copyto(b[low:high], a[low:high])

    def add(k: int) -> None:
        low, high = bounds[k]
        np.add(b[low:high], c[low:high], out=a[low:high])

    def triad(k: int) -> None:  # a = b + 3 c, chunk by chunk through an L2-resident temporary
        low, high = bounds[k]
        scratch = tmp[k]
        for start in range(low, high, TRIAD_CHUNK):
            stop = min(start + TRIAD_CHUNK, high)
            part = scratch[: stop - start]
            np.multiply(c[start:stop], 3.0, out=part)
            np.add(b[start:stop], part, out=a[start:stop])

    def run(kernel: Callable[[int], None]) -> Callable[[], object]:
        if threads == 1 or pool is None:
            return lambda: kernel(0)
        return lambda: list(pool.map(kernel, range(threads)))

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        copy_s = per_call(run(copy), clock, min_time)
        add_s = per_call(run(add), clock, min_time)
        triad_s = per_call(run(triad), clock, min_time)
        return {f"stream_copy_t{threads}": 16 * n / copy_s / 1e9, f"stream_add_t{threads}": 24 * n / add_s / 1e9,
                f"stream_triad_t{threads}": 24 * n / triad_s / 1e9}

    where = f"{n} float64 elements ({8 * n / 2 ** 20:.0f} MiB) per array, {threads} thread(s) on contiguous slices"
    figures = {f"stream_copy_t{threads}": Figure("GB/s", f"STREAM copy b = a over {where}; 16 byte/element "
                                                         "(read + write, write-allocate not counted)"),
               f"stream_add_t{threads}": Figure("GB/s", f"STREAM add a = b + c over {where}, one numpy.add per "
                                                        "thread; 24 byte/element. The node's memory bandwidth: one "
                                                        "pass of one ufunc, as the kernels it prices move memory"),
               f"stream_triad_t{threads}": Figure("GB/s", f"STREAM triad a = b + 3c over {where}, in "
                                                          f"{TRIAD_CHUNK}-element chunks through an L2-resident "
                                                          "temporary; 24 byte/element (not the node's bandwidth: "
                                                          "the chunk loop costs Python time per chunk)")}
    return Probe(f"stream_t{threads}", figures, block, threads)


def cache_point(label: str, total_bytes: int) -> Probe:
    """Bandwidth of ``z = x + y`` over three arrays of ``total_bytes`` together: L1-, L2-, L3- or
    DRAM-resident as the size says (the roofline's cache levels). The call's own cost (the same
    add over 8 elements, timed in the same block) is taken off, so the figure is the level's and
    a prediction adds the call cost back once per call: at L1 sizes it is most of the time."""
    n = max(64, total_bytes // 24)
    x, y, z = np.ones(n), np.ones(n), np.ones(n)  # touched: no block faults its pages in
    a, b, c = np.ones(8), np.ones(8), np.empty(8)
    name = f"add_{label}"

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        call = per_call(lambda: np.add(a, b, out=c), clock, min_time)
        seconds = per_call(lambda: np.add(x, y, out=z), clock, min_time)
        return {name: 24 * n / max(seconds - call, 1e-3 * seconds) / 1e9}

    method = (f"numpy.add of two {n}-element float64 arrays into a third ({24 * n} bytes in all, repeated so it "
              "stays where it fits); 24 byte/element over the seconds per call less the seconds of the same add "
              "over 8 elements (the call's cost)")
    return Probe(name, {name: Figure("GB/s", method)}, block)


def numpy_op() -> Probe:
    """The host cost of one tiny numpy operation, with and without a fresh result array."""
    a, b, out = np.ones(8, dtype="float32"), np.ones(8, dtype="float32"), np.empty(8, dtype="float32")

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        return {"numpy_op": per_call(lambda: np.add(a, b, out=out), clock, min_time) * 1e6,
                "numpy_op_alloc": per_call(lambda: np.add(a, b), clock, min_time) * 1e6}

    return Probe("numpy_op", {
        "numpy_op": Figure("µs", "numpy.add of two 8-element float32 arrays into a preallocated one: one call's "
                                 "host cost, the work itself being nil"),
        "numpy_op_alloc": Figure("µs", "numpy.add of two 8-element float32 arrays returning a new array: the "
                                       "dispatch cost of an eager op that allocates its result"),
    }, block)


def numpy_calls() -> Probe:
    """The host cost of the numpy functions that are not a single ufunc loop, on tiny arrays of the
    MLP step's kind: a reduction or ``take_along_axis`` goes through Python wrappers and costs several
    ufunc calls (``numpy_op_alloc`` prices the ufuncs)."""
    logits, index = np.ones((4, 10), dtype="float32"), np.zeros((4, 1), dtype=np.int64)
    left, right = np.ones((4, 8), dtype="float32"), np.ones((8, 4), dtype="float32")
    calls: dict[str, tuple[Callable[[], object], str]] = {
        "matmul": (lambda: np.matmul(left, right), "numpy.matmul of a 4x8 and an 8x4 float32 matrix"),
        "max": (lambda: np.max(logits, axis=1, keepdims=True), "numpy.max of a 4x10 float32 array over axis 1"),
        "sum": (lambda: np.sum(logits, axis=1, keepdims=True), "numpy.sum of a 4x10 float32 array over axis 1"),
        "mean": (lambda: np.mean(logits), "numpy.mean of a 4x10 float32 array"),
        "take_along_axis": (lambda: np.take_along_axis(logits, index, axis=1),
                            "numpy.take_along_axis of a 4x10 float32 array with 4x1 indices"),
    }

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        return {f"numpy_call_{name}": per_call(call, clock, min_time) * 1e6 for name, (call, _) in calls.items()}

    return Probe("numpy_calls", {f"numpy_call_{name}": Figure("µs", f"{what}, returning a new array: one call's "
                                                                      "host cost, the work itself being nil")
                                 for name, (_, what) in calls.items()}, block)


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def allocation() -> Probe:
    """What a fresh large result costs over writing into an existing buffer: page faults and zeroing."""
    n = FRESH_ELEMENTS
    x, y, z = np.ones(n), np.ones(n), np.ones(n)  # touched: no block faults its pages in
    size_mb = 8 * n / MB

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        fresh = per_call(lambda: np.add(x, y), clock, min_time)
        reused = per_call(lambda: np.add(x, y, out=z), clock, min_time)
        before = minor_faults()
        for _ in range(3):
            np.add(x, y)
        faults = (minor_faults() - before) / 3
        return {"fresh_allocation": max(fresh - reused, 0.0) / size_mb * 1e6, "page_faults_per_mb": faults / size_mb,
                "fresh_add_64mb": fresh * 1e3, "reused_add_64mb": reused * 1e3}

    where = f"numpy.add of two {n}-element float64 arrays ({size_mb:.0f} MB result)"
    return Probe("allocation", {
        "fresh_allocation": Figure("µs/MB", f"{where}: seconds into a fresh result minus seconds into an existing "
                                            "one, per MB of result"),
        "page_faults_per_mb": Figure("", f"{where} into a fresh result: minor page faults (getrusage) per MB "
                                         "(0.5 when numpy's large arrays sit on 2 MiB transparent huge pages)"),
        "fresh_add_64mb": Figure("ms", f"{where} into a fresh result"),
        "reused_add_64mb": Figure("ms", f"{where} into an existing result"),
    }, block)


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def torch_host() -> Probe:
    """Eager PyTorch's host costs: a tiny op, an autograd-recorded one, and ``backward()`` fitted as
    a fixed cost plus a cost per graph node over chains of 1, 8 and 32 adds."""
    import torch

    torch.set_num_threads(1)
    a, b = torch.ones(8), torch.ones(8)
    leaf = torch.ones(8, requires_grad=True)

    def chain(nodes: int) -> Any:
        value = leaf
        for _ in range(nodes):
            value = value + b
        return value.sum()

    def chain_backward(nodes: int) -> None:
        chain(nodes).backward()

    def block(clock: Clock, min_time: float) -> dict[str, float]:
        op = per_call(lambda: torch.add(a, b), clock, min_time)
        recorded = per_call(lambda: torch.add(leaf, b), clock, min_time)
        backward = []
        for nodes in BACKWARD_CHAIN:
            built = per_call(functools.partial(chain, nodes), clock, min_time)
            both = per_call(functools.partial(chain_backward, nodes), clock, min_time)
            backward.append(max(both - built, 0.0))
        # graph nodes of a chain of k adds: k AddBackward, one SumBackward, one AccumulateGrad
        fixed, per_node = fit_line([k + 2 for k in BACKWARD_CHAIN], backward)
        return {"torch_op": op * 1e6, "torch_autograd_op": recorded * 1e6,
                "backward_fixed": max(fixed, 0.0) * 1e6, "backward_per_node": max(per_node, 0.0) * 1e6}

    chains = ", ".join(str(k) for k in BACKWARD_CHAIN)
    return Probe("torch_host", {
        "torch_op": Figure("µs", "torch.add of two 8-element tensors, one thread: an eager op's host cost"),
        "torch_autograd_op": Figure("µs", "torch.add with an input that requires grad: the op plus its autograd "
                                          "node's recording"),
        "backward_fixed": Figure("µs", f"backward() over chains of {chains} adds (time with backward minus time "
                                       "to build), least-squares intercept over graph nodes"),
        "backward_per_node": Figure("µs", "the same fit's slope: backward() cost per autograd graph node"),
    }, block)
