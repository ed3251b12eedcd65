"""The search on Dask: identical to the in-process result, and a failing task never yields a partial one."""

from __future__ import annotations

import pytest

from generated import Hardware, Q_, Scenarios
from symbolic.runtime import search as search_module
from symbolic.runtime.search import EACH_PRECISION, every, search

distributed = pytest.importorskip("distributed")

BASE = Scenarios.HierarchicalAllReduce8x8DgxH100
VARY = {"n_nodes": [0, 1, 2, 3, 4, 8, 16], "gpus_per_node": [1, 2, 4, 8], "message": [0.1, 1, 10, 1e300],
        "inter_alpha": Q_([0, 1.5, 5], "µs")}
WHERE = ["result.total_time <= 400 ms", "n_devices >= 4"]


def same(a, b) -> None:
    assert [r.inputs for r in a.rows] == [r.inputs for r in b.rows]
    assert [r.objectives for r in a.rows] == [r.objectives for r in b.rows]
    assert (a.size, a.evaluated, a.invalid, a.feasible, a.front) == (b.size, b.evaluated, b.invalid, b.feasible,
                                                                     b.front)


@pytest.fixture(scope="module")
def processes():
    """Two worker processes, as the benchmark uses (scenarios and catalog entries travel pickled)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            yield client


def test_identical_to_the_in_process_search_on_worker_processes(processes) -> None:
    kwargs = dict(minimize="result.total_time", top=6, chunk_points=7)
    same(search(BASE, VARY, WHERE, engine="dask", scheduler=processes, **kwargs), search(BASE, VARY, WHERE, **kwargs))
    decode = Scenarios.Llama2_70B_DecodeH100
    space = {"hardware": every(Hardware.Cloud), "peak_precision": EACH_PRECISION, "batch_size": [1, 8, 64]}
    kwargs = dict(minimize="result.compute_time", maximize="result.peak_fraction", top=50, chunk_points=20)
    where = "result.weight_bytes <= hardware.memory_capacity"
    by_address = search(decode, space, where, engine="dask", scheduler=processes.scheduler.address, **kwargs)
    same(by_address, search(decode, space, where, **kwargs))


def test_a_task_failing_once_is_retried_and_one_failing_always_stops_the_search(monkeypatch) -> None:
    failed = []
    evaluate = search_module.evaluate_chunk

    def flaky(plan, chunk):
        if chunk == 3 and not failed:  # the first attempt at the task holding chunk 3 fails
            failed.append(chunk)
            raise OSError("worker lost")
        return evaluate(plan, chunk)

    def broken(plan, chunk):
        if chunk == 3:
            raise OSError("disk on fire")
        return evaluate(plan, chunk)

    from symbolic.runtime import search_dask

    kwargs = dict(minimize="result.total_time", top=4, chunk_points=7)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:  # threads: the patched function is seen by the workers
            monkeypatch.setattr(search_dask, "evaluate_chunk", flaky)
            retried = search(BASE, VARY, WHERE, engine="dask", scheduler=client, **kwargs)
            assert failed == [3] and retried.engine == "dask"
            same(retried, search(BASE, VARY, WHERE, **kwargs))
            monkeypatch.setattr(search_dask, "evaluate_chunk", broken)
            with pytest.raises(search_dask.SearchError, match="disk on fire.*no result is returned"):
                search(BASE, VARY, WHERE, engine="dask", scheduler=client, **kwargs)
