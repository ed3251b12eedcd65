"""The search on a Dask cluster: ranges of chunks as tasks, merged as they finish.

Imported only when a search asks for ``engine="dask"``; needs the ``dask`` extra
(``pip install 'mlsysym[dask]'``). The plan (the base scenario, catalog entries, the axes
and the texts of the constraints and objectives) is pickled once and scattered to every
worker; each worker prepares it once and evaluates its chunks exactly as the in-process
engine does, so the merged answer is identical. A failed task is retried; a task that still
fails stops the search with an error: a partial answer is never returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symbolic.runtime.errors import MissingExtraError, MlsysymError
from symbolic.runtime.search_chunks import Partial, Plan, evaluate_chunk, merge

RETRIES = 2  # further attempts of a failed task (a lost worker, an interrupted connection)
TASKS_PER_WORKER = 4  # enough tasks to balance the load and show progress, few enough to keep overhead low


class SearchError(MlsysymError, RuntimeError):
    """A distributed search could not finish: no partial result is returned."""


def evaluate_range(bounds: tuple[int, int], plan: Plan) -> Partial:
    """Chunks ``bounds[0]`` to ``bounds[1] - 1`` of ``plan``, merged (one Dask task)."""
    total = Partial()
    for chunk in range(*bounds):
        total = merge([total, evaluate_chunk(plan, chunk)], plan.top)
    return total


def run(plan: Plan, scheduler: Any = None, progress: Callable[[int, int], None] | None = None) -> Partial:
    """Evaluate every chunk of ``plan`` on ``scheduler`` (a ``distributed.Client``, an address,
    or None for a local cluster of this machine's cores) and merge the results."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise MissingExtraError("search on Dask", "dask", "distributed") from None
    prep = plan.prepared()  # here first: a bad space or expression fails before any task is sent
    cluster = None
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler is None:
        cluster = LocalCluster(processes=True, threads_per_worker=1, dashboard_address=":0")
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        tasks = max(1, min(prep.chunks, workers * TASKS_PER_WORKER))
        edges = [prep.chunks * i // tasks for i in range(tasks + 1)]
        bounds = [(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]
        shared = client.scatter(plan, broadcast=True)
        futures = client.map(evaluate_range, bounds, plan=shared, retries=RETRIES, pure=False)
        total = Partial()
        try:
            for future in as_completed(futures):
                total = merge([total, future.result()], plan.top)
                if progress is not None:
                    progress(total.points, prep.space.valid_size)
        except Exception as error:
            client.cancel(futures)
            raise SearchError(f"search on Dask: a task failed after {RETRIES} retries ({type(error).__name__}: "
                              f"{error}); no result is returned, as a partial one would be wrong") from error
        if total.points != prep.space.valid_size:
            raise SearchError(f"search on Dask: the tasks covered {total.points} of {prep.space.valid_size} points; "
                              "no result is returned")
        return total
    finally:
        if client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()
