"""Running a build's work items on threads that Ctrl-C can stop (builder layer).

The BFS kernels release the GIL, so plain threads share the tables.  The main thread waits in
short joins, so a Ctrl-C (or :class:`solver.core.interrupts.Interrupted`) reaches it within a
fraction of a second; the workers then stop taking items and the signal is re-raised.  An
error in a worker stops the others and is raised in the main thread.

Imports: the standard library and :mod:`solver.core.config`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from solver.core import config

JOIN_SECONDS = 0.2  # how long the main thread waits between looks for a signal


def thread_count() -> int:
    """Worker threads for the sweeps: ``$NPUZZLE_THREADS`` or the CPUs this process may use."""
    env = os.environ.get(config.ENV_THREADS)
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return config.usable_cores()


def run_items(task: Callable[[int], None], count: int, threads: int) -> None:
    """Call ``task(i)`` for every ``i`` in ``range(count)``, handing the items out one at a
    time to up to ``threads`` threads (in the calling thread when one is enough)."""
    if threads <= 1 or count <= 1:
        for i in range(count):
            task(i)
        return
    lock = threading.Lock()
    state = {"next": 0}
    stop = threading.Event()
    errors: list = []

    def worker():
        while not stop.is_set():
            with lock:
                i = state["next"]
                state["next"] += 1
            if i >= count:
                return
            try:
                task(i)
            except BaseException as e:  # noqa: BLE001 - handed to the main thread
                errors.append(e)
                stop.set()
                return

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(min(threads, count))]
    for t in pool:
        t.start()
    try:
        for t in pool:
            while t.is_alive():
                t.join(JOIN_SECONDS)
    except BaseException:
        stop.set()
        for t in pool:
            t.join()
        raise
    if errors:
        raise errors[0]


__all__ = ["run_items", "thread_count"]
