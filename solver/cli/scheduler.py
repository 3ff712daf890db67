"""``--scheduler ADDRESS``: a command's work done by a Dask cluster (layer 7: cli).

The option and the switch between here and there; the work itself is in
:mod:`solver.workloads.cluster` (batches) and :mod:`solver.workloads.cluster_search` (one hard
board), imported only when the option is used.  Without Dask installed, or without a
scheduler at the address, the command says so in one line and exits with status 2.

Imports: click, :mod:`.common`, :mod:`solver.api`, :mod:`solver.workloads`.
"""
from __future__ import annotations

import contextlib
import functools
from dataclasses import replace
from pathlib import Path

import click

from .. import api
from . import common

ENV_SCHEDULER = "DASK_SCHEDULER_ADDRESS"  # Dask's own variable: a cluster the user already has

scheduler_option = click.option(
    "--scheduler", metavar="ADDRESS", envvar=ENV_SCHEDULER, default=None,
    help="Solve on a Dask cluster: the address of its scheduler (tcp://host:8786; default "
         "$DASK_SCHEDULER_ADDRESS).  Each worker needs npuzzle and the databases (a shared "
         "--data-dir, or build-pdb on each machine); --jobs is then the cluster's business.  "
         "Needs pip install 'npuzzle[cluster]'.")


@contextlib.contextmanager
def connected(address: str):
    """A ``distributed.Client`` on the scheduler at ``address``, closed afterwards; a cluster
    that cannot do the work (no Dask, no scheduler, workers dying) is one line, exit 2."""
    from ..workloads import cluster

    try:
        with cluster.connect(address) as client:
            if not cluster.worker_threads(client):
                common.notice(f"the scheduler at {address} has no workers yet: the work waits "
                              f"for 'dask worker {address}'")
            yield client
    except cluster.ClusterError as e:
        common.fail(f"error: {e}", common.EXIT_USAGE)


def remote_options(opts: api.SearchOptions) -> api.SearchOptions:
    """``opts`` as workers read them: an explicit data directory made absolute (a shared file
    system mounts it at the same path everywhere); without one each worker uses its own
    default ($NPUZZLE_DATA ...)."""
    if opts.data_dir is None:
        return opts
    return replace(opts, data_dir=Path(opts.data_dir).absolute())


@contextlib.contextmanager
def solve_stream(address: str | None, lines, *, goal, shape, options, jobs, progress):
    """``(line, result)`` for every line, in order: on the cluster at ``address``, or on
    ``jobs`` local processes when it is None (:func:`solver.workloads.batch.solve_stream`)."""
    if address is None:
        from ..workloads import batch

        yield batch.solve_stream(lines, goal=goal, shape=shape, options=options, jobs=jobs,
                                 progress=progress)
        return
    from ..workloads import cluster

    with connected(address) as client:
        yield cluster.solve_lines(client, lines, goal=goal, shape=shape,
                                  options=remote_options(options), progress=progress)


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
            return cluster_search.solve_board(client, board, goal, shape=shape,
                                              options=remote_options(options))

        yield solve


@contextlib.contextmanager
def mapper(address: str | None, remote):
    """For :func:`.common.answer_stream`: None (answer each line here), or a function mapping
    the lines to ``(line, record or error)`` in order, ``remote(line)`` run on the cluster
    (a picklable function of one line)."""
    if address is None:
        yield None
        return
    import sys

    from ..workloads import cluster

    with connected(address) as client:
        bar = cluster.progress_bar(sys.stderr.isatty())
        try:
            yield functools.partial(cluster.map_ordered, client, functools.partial(
                cluster.answer_line, remote), bar=bar)
        finally:
            if bar is not None:
                bar.close()

