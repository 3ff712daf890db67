"""``--scheduler ADDRESS``: a command's work done by a Dask cluster (layer 7: cli).

The switch between here and there (the option is the specification's, :mod:`solver.options`); the work itself is in
:mod:`solver.workloads.cluster` (batches) and :mod:`solver.workloads.cluster_search` (one hard
board), imported only when the option is used.  Without Dask installed, without a
scheduler at the address, or when the scheduler goes away in the middle, the command says so
in one line and exits with status 2; Dask's own log lines are shown only with ``-v``.

Imports: :mod:`.errors`, :mod:`solver.api`, :mod:`solver.workloads`.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import replace
from pathlib import Path

import click

from .. import api
from ..core.messages import ERROR, prefixed
from . import errors


@contextlib.contextmanager
def connected(address: str):
    """A ``distributed.Client`` on the scheduler at ``address``, closed afterwards; a cluster
    that cannot do the work (no Dask, no scheduler, workers dying) is one line, exit 2."""
    from ..workloads import cluster

    try:
        if not _verbose():
            cluster.quiet_logs()
        with cluster.connect(address) as client:
            if not cluster.worker_threads(client):
                errors.notice(
                    f"the scheduler at {address} has no workers yet: the work waits "
                    f"for 'dask worker {address}'"
                )
            yield client
    except cluster.ClusterError as e:
        errors.fail(prefixed(ERROR, str(e)), errors.EXIT_USAGE)


def _verbose() -> bool:
    """Whether the running command was given ``-v`` (only ``solve`` takes it)."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.params.get("verbose"))


def remote_options(opts: api.SearchOptions) -> api.SearchOptions:
    """``opts`` as workers read them: an explicit data directory made absolute (a shared file
    system mounts it at the same path everywhere); without one each worker uses its own
    default ($NPUZZLE_DATA ...)."""
    if opts.data_dir is None:
        return opts
    return replace(opts, data_dir=Path(opts.data_dir).absolute())


@contextlib.contextmanager
def batch_solver(address: str | None, opts: api.SearchOptions, jobs: int):
    """``solve_many(problems)`` for the batch driver (``stream.Batch.many``): Solutions (or
    the errors raised) in order, on ``jobs`` local processes or on the cluster at
    ``address``.  The batch driver shows how far they have got (:mod:`.batch_progress`)."""
    if address is None:
        from ..workloads import batch

        with batch.Solver(opts, jobs) as solver:
            yield solver.solve
        return
    remote = functools.partial(api.solve, options=remote_options(opts))
    with many(address, remote) as solve_many:
        yield solve_many


@contextlib.contextmanager
def many(address: str | None, remote):
    """None without ``address`` (the caller answers each board itself); else a function
    answering problems ``(start, goal)`` in order on the cluster -- ``remote(start, goal)``
    (picklable) run on the workers, the line errors it raises given back as results (a
    batch's progress is the batch driver's: :mod:`.batch_progress`)."""
    if address is None:
        yield None
        return
    from ..workloads import cluster

    with connected(address) as client:
        answers = cluster.Answers(client, remote)
        try:
            yield answers
        finally:
            answers.close()


@contextlib.contextmanager
def solver(address: str | None):
    """``solve(board, goal, shape=, options=) -> Solution`` for one board: the local
    :func:`solver.api.solve`, or the cluster's, whose workers share the long iterations."""
    if address is None:
        yield api.solve
        return
    from ..workloads import cluster_search

    with connected(address) as client:

        def solve(board, goal=None, *, shape=None, options=None):
            return cluster_search.solve_board(
                client, board, goal, shape=shape, options=remote_options(options)
            )

        yield solve
