"""The server's caps, and how a request's own limits are clamped to them (layer 7: service).

A client may ask for less than the server allows (a shorter ``timeout``, fewer ``max_nodes``),
never more: every search the service runs carries the smaller of the two, so a search that
hits the cap ends like a CLI search with ``--timeout`` -- an answer with ``"status": "limit"``
and the lower bound proven so far.  The teaching searches (BFS, DFS, ...) keep every state in
Python objects, so their node cap is far lower than IDA*'s.

Imports: :mod:`solver.api` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import api

# Algorithms whose nodes are Python objects held in memory (see solver.search.blind).
TEACHING_ALGORITHMS = ("astar", "bfs", "dfs", "dls", "iddfs")


@dataclass(frozen=True)
class Limits:
    """What one request may cost.  Defaults suit one machine serving a puzzle game and a
    class of students."""

    max_seconds: float = 60.0  # per search (IDA*: ~10-20 M nodes/s with a 4x4 database)
    max_nodes: int = 2_000_000_000  # per IDA* search: about two minutes of one core
    max_teaching_nodes: int = 1_000_000  # per teaching search: ~200 bytes of Python a state
    max_body_bytes: int = 64 * 1024  # a 16x16 board as JSON rows is under 1 KiB
    max_boards: int = 100  # boards in one request ("boards": [...])
    max_generate: int = 100  # positions in one /generate on a board with exact tables
    max_generate_searched: int = 10  # ... on a board whose positions must be solved (4x4)
    max_pending: int = 64  # searches running or waiting for a worker before 503 "busy"
    grace_seconds: float = 15.0  # past max_seconds, a worker that has not answered is ended
    max_wait_seconds: float = 120.0  # for a free worker before any is ready (they compile)
    # A search whose expected wait for a worker is longer is refused at once (503 with
    # Retry-After) rather than queued: a client learns now, not after a minute, to come back;
    # and one queued all the same gets that 503 once it has waited this long.
    max_expected_wait: float = 30.0
    cancel_seconds: float = 5.0  # for a worker to drop a search whose client hung up
    cache_entries: int = 1024  # recent answers kept (a hint service is asked the same again)
    cache_bytes: int = 64 << 20  # ... and their JSON size at most (a client may ask big answers)

    def options(
        self,
        algorithm: str = "auto",
        timeout: float | None = None,
        max_nodes: int | None = None,
        **fields,
    ) -> api.SearchOptions:
        """The :class:`~solver.api.SearchOptions` of a request, its ``timeout`` and
        ``max_nodes`` clamped to the caps (the teaching cap for the teaching searches)."""
        node_cap = self.max_teaching_nodes if algorithm in TEACHING_ALGORITHMS else self.max_nodes
        return api.SearchOptions(
            algorithm=algorithm,
            timeout=self.max_seconds if timeout is None else min(timeout, self.max_seconds),
            max_nodes=node_cap if max_nodes is None else min(max_nodes, node_cap),
            **fields,
        )

    @property
    def hard_seconds(self) -> float:
        """How long a worker may take over one search before it is ended and replaced: the
        cap plus a grace for loading tables and for the slice of search under way."""
        return self.max_seconds + self.grace_seconds


@dataclass(frozen=True)
class Settings:
    """Everything a server process and its workers need to answer (picklable: it is sent to
    the worker processes)."""

    data_dir: str | None = None
    workers: int = 1
    limits: Limits = field(default_factory=Limits)

    def with_limits(self, **caps) -> Settings:
        """A copy with some caps changed (``max_seconds=5``...)."""
        return replace(self, limits=replace(self.limits, **caps))


__all__ = ["Limits", "Settings", "TEACHING_ALGORITHMS"]
