"""Identical questions answered once, and recent answers kept (layer 7: service).

A hint service is asked the same positions again and again, and a popular page sends the
same hard question from many clients at once.  :class:`SharedAnswers` sits in front of the
search pool:

* a question identical to one in flight waits for that search instead of starting another;
* a complete answer (status 200, not stopped by a cap) is kept in an LRU cache bounded in
  entries and in bytes (its JSON size: a hundred solutions of 16x16 boards weigh megabytes),
  so the same question again costs a dictionary lookup;
* a client that hangs up stops waiting; the search is cancelled (its worker freed) only when
  no other client is waiting for it.

Two questions are identical when their endpoint and fields are, with each board read by the
parser (``8 6 7/2 5 4/3 0 1`` and ``[[8,6,7],...]`` are the same question).  ``/generate``
without a ``seed`` is random by request: never shared, never cached.

Imports: the standard library and :mod:`.work`.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from . import work


class ClientGone(Exception):
    """The client hung up before its answer was ready."""


def question_key(endpoint: str, params: dict) -> str | None:
    """A canonical text for the question, or None when it must not be shared (a random
    ``/generate``)."""
    if endpoint == "generate" and params.get("seed") is None:
        return None
    fields = {k: v for k, v in params.items() if k != work.PARSED and v is not None}
    parsed = params.get(work.PARSED)
    if parsed and all(b is not None for b in parsed):
        read = [f"{b.shape}:{b.flat()}" for b in parsed]
        fields.pop("board", None)
        fields.pop("shape", None)
        fields["boards" if params.get("boards") is not None else "board"] = read
    return json.dumps([endpoint, fields], sort_keys=True, separators=(",", ":"), default=str)


def _complete(status: int, body: dict) -> bool:
    """An answer worth keeping: a 200 whose every search ran to its end."""
    if status != 200:
        return False
    records = body.get("results", [body])
    return not any(isinstance(r, dict) and r.get("status") == "limit" for r in records)


class _Flight:
    """One search under way and the number of clients waiting for it."""

    def __init__(self, task: asyncio.Task):
        self.task = task
        self.waiters = 0


class SharedAnswers:
    """``ask(endpoint, params, gone)``: the answer of ``run(endpoint, params)``, shared with
    identical questions in flight and cached; ``gone()`` completes when the client hangs up
    (then :class:`ClientGone` is raised)."""

    def __init__(
        self,
        run: Callable[[str, dict], Awaitable[tuple[int, dict]]],
        entries: int,
        max_bytes: int = 64 << 20,
    ):
        self._run = run
        self._entries = entries
        self._max_bytes = max_bytes
        self._bytes = 0
        self._cache: OrderedDict[str, tuple[int, dict, int]] = OrderedDict()
        self._flights: dict[str, _Flight] = {}
        self.hits = 0  # answered from the cache
        self.shared = 0  # answered by a search another client asked for
        self.searches = 0  # searches started

    @property
    def cached(self) -> int:
        """Answers kept now."""
        return len(self._cache)

    async def ask(self, endpoint: str, params: dict, gone: Callable[[], Awaitable]):
        """``(status, body)`` for the question; raises :class:`ClientGone`."""
        key = question_key(endpoint, params)
        if key is not None and key in self._cache:
            self._cache.move_to_end(key)
            self.hits += 1
            return self._cache[key][:2]
        flight = self._flights.get(key) if key is not None else None
        if flight is None:
            flight = self._start(key, endpoint, params)
        else:
            self.shared += 1
        flight.waiters += 1
        watch = asyncio.ensure_future(gone())
        try:
            done, _ = await asyncio.wait({flight.task, watch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
            flight.waiters -= 1
            if flight.waiters == 0 and not flight.task.done():
                flight.task.cancel()  # nobody waits any more: free the worker
        if flight.task not in done:
            raise ClientGone
        return flight.task.result()

    def _start(self, key: str | None, endpoint: str, params: dict) -> _Flight:
        self.searches += 1
        flight = _Flight(asyncio.ensure_future(self._run(endpoint, params)))
        if key is not None:
            self._flights[key] = flight
            flight.task.add_done_callback(lambda task: self._landed(key, task))
        return flight

    def _landed(self, key: str, task: asyncio.Task) -> None:
        self._flights.pop(key, None)
        if task.cancelled() or task.exception() is not None:
            return
        status, body = task.result()
        if not _complete(status, body) or self._entries <= 0 or key in self._cache:
            return
        size = len(key) + len(json.dumps(body, separators=(",", ":")))
        if size > self._max_bytes // 16:  # one answer may not push out most of the others
            return
        self._cache[key] = (status, body, size)
        self._bytes += size
        while len(self._cache) > self._entries or self._bytes > self._max_bytes:
            self._bytes -= self._cache.popitem(last=False)[1][2]


__all__ = ["SharedAnswers", "ClientGone", "question_key"]
