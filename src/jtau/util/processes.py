"""Work on several items at once in worker processes: forked on Linux (the parent's imports and
caches come along), spawned elsewhere."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future


def in_processes(work: Callable, items: Sequence[tuple], workers: int,
                 on_done: Callable[[], None] = lambda: None) -> list[Future]:
    """`work(*item)` for every item in `workers` processes; `on_done()` each time one succeeds, as
    they finish.  Returns when all have finished: their futures, in the order of `items` (a
    future's `result()` raises that item's error)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(work, *item) for item in items]
        for future in as_completed(futures):
            if future.exception() is None:
                on_done()
    return futures


def forked_map(work: Callable, items: Iterable, workers: int) -> Iterator:
    """`work(item)` for every item, in order: in `workers` forked processes, which see the
    parent's state as it was when they forked (module globals set for them); in this process
    with one worker, or where processes cannot fork."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
        return
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(work, items)
