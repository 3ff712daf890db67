"""A command answered by a running ``npuzzle serve`` (layer 7: client).

A fresh ``npuzzle`` process spends most of a second starting Python and numpy and
mapping the tables before its first node; a running server has done all that.  With a server
named (``--server URL`` or ``$NPUZZLE_SERVER``: :mod:`solver.cli.forwarding`), ``solve``,
``distance``, ``hint``, ``heuristic``, ``check`` and ``generate`` parse their options as
always, and :class:`Client` sends them to the server's ``POST /run``
(:mod:`solver.service.cli_runs`), which runs the very same command, and prints what it
printed: the same stdout (apart from the ``seconds`` a JSON answer measures), the same
stderr, the same exit status.

* **Batches** (``-``) are read in chunks as the local batch reads them and sent as pieces
  (:mod:`.pieces`) of a few lines to tens of KiB -- sized so each takes the server about
  :data:`PIECE_SECONDS` -- with :data:`IN_FLIGHT` of them under way at once (the server's
  threads answer them side by side) and the answers printed in input order as they come:
  memory stays bounded and a bad line stays one bad line.
* **No server** at the address (nothing listening, a name that does not resolve, a server
  without the warm path, one that is busy or shutting down): one line on stderr says so and
  the command answers on this machine.  A piece the server cannot take (a line longer than
  its request limit) is answered here too.
* **The server's caps** (``npuzzle serve --max-seconds``, ``--max-nodes``): a question asking
  for more is refused in one line that names the cap and how to raise it (exit 4); a search
  the cap stopped is followed by a note saying so.

This module imports neither numpy nor h5py, nor does anything it imports before the
answer is printed (a test checks): that is the point.  Only a piece answered here after all
loads them.

Imports: the standard library, :mod:`solver.core.program`, :mod:`.wire`; for a batch
:mod:`.pieces` and :mod:`solver.workloads.lines`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from ..core.messages import ERROR, prefixed
from ..core.notes import NotedOnce
from ..core.program import EXIT_LIMIT, EXIT_OK, EXIT_UNSOLVABLE, EXIT_USAGE, fail_as, say
from .wire import EXIT_ELSEWHERE, NOTE, Channel, TooLong, Unreachable

PIECE_BYTES = 56 * 1024  # a piece's lines: under the server's 64 KiB request limit
FIRST_LINES = 8  # lines in the first pieces of a batch, until the answers say how fast
PIECE_SECONDS = 0.05  # what a piece should cost the server: long enough to hide a request
IN_FLIGHT = 3  # pieces under way at once (the server answers them on its threads)


class Client:
    """The server at ``url``: one connection per thread, kept open (:class:`.wire.Channel`),
    each request carrying ``token`` where one is given; a URL that is not ``http://HOST:PORT``
    is a usage error (exit 2), and so is a token that cannot travel in a header.

    ``notice(line)`` says a note once per command (the command line's own notes);
    ``answer_here(name, words, piece)`` answers a piece of a batch on this machine when the
    server cannot: ``(exit status, stdout, stderr)``."""

    def __init__(
        self,
        url: str,
        notice: Callable[[str], None],
        answer_here: Callable,
        token: str | None = None,
    ):
        try:
            self.channel = Channel(url, token)
        except ValueError as e:
            fail_as("npuzzle", prefixed(ERROR, str(e)), EXIT_USAGE)
        self.notice, self.answer_here = notice, answer_here
        self._notes = NotedOnce()  # the notes the records printed so far carried
        self.url = self.channel.url
        self.down: str | None = None  # why the server stopped answering (then: answer here)
        self._said = threading.Lock()

    # -- a command --

    def answer(self, name: str, words: list[str], batch: bool = False) -> int | None:
        """Print the server's answer to ``npuzzle NAME WORDS`` (a ``batch`` reads its boards
        from stdin) and return its exit status; None (after one line on stderr) when the
        command should answer here."""
        if batch:
            return self._batch(name, words)
        try:
            status, stdout, stderr, note = self._ask(name, words, None)
        except Unreachable as e:
            self.notice(f"{e}; answering here")
            return None
        if status == EXIT_ELSEWHERE:
            self.notice(f"{stderr.strip()}; answering here")
            return None
        self._print(stdout, stderr, note)
        return status

    def _batch(self, name: str, words: list[str]) -> int:
        import queue

        from ..workloads import lines
        from . import pieces

        size = _Sizer()
        answers: queue.Queue = queue.Queue()  # the pieces' answers, in input order
        tasks: queue.Queue = queue.Queue()
        room = threading.Semaphore(IN_FLIGHT)
        outcome = {"status": EXIT_OK, "stop": False, "error": None}
        threads = [threading.Thread(target=self._write, args=(answers, room, outcome))]
        threads += [
            threading.Thread(target=self._asker, args=(tasks, name, words, size))
            for _ in range(IN_FLIGHT)
        ]
        for t in threads:
            t.daemon = True
            t.start()
        try:
            for piece in pieces.cut(lines.chunks(sys.stdin.buffer), PIECE_BYTES, size.lines):
                room.acquire()
                if outcome["stop"]:
                    break
                answer = _Future()
                answers.put(answer)
                tasks.put((piece, answer))
        finally:
            for _ in range(IN_FLIGHT):
                tasks.put(None)
            answers.put(None)
            threads[0].join()
        if outcome["error"] is not None:
            raise outcome["error"]
        return outcome["status"]

    def _asker(self, tasks, name, words, size) -> None:
        """Ask for the pieces' answers, one at a time, on this thread's connection."""
        for piece, answer in iter(tasks.get, None):
            try:
                answer.set(self._piece_answer(name, words, piece, size))
            except BaseException as e:  # noqa: BLE001 - given to the writer, raised in order
                answer.set(e)

    def _piece_answer(self, name, words, piece, size):
        import time

        if self.down is None:
            t0 = time.perf_counter()
            try:
                status, stdout, stderr, note = self._ask(name, words, piece)
                if status != EXIT_ELSEWHERE:
                    size.learn(piece.size, time.perf_counter() - t0)
                    return status, stdout, stderr, note
                self._give_up(stderr.strip())
            except TooLong:
                pass  # this piece only: answered here
            except Unreachable as e:
                self._give_up(str(e))
        # loads numpy: only when the server could not answer
        return (*self.answer_here(name, words, piece), None)

    def _give_up(self, why: str) -> None:
        with self._said:
            if self.down is None:
                self.down = why
                self.notice(f"{why}; answering here")

    def _write(self, answers, room, outcome) -> None:
        """Print the pieces' answers in input order as they come (a thread of its own, so
        an answer is printed while the next lines are still being read)."""
        for answer in iter(answers.get, None):
            result = answer.get()
            room.release()
            if outcome["stop"]:
                continue
            if isinstance(result, BaseException):
                outcome["error"], outcome["stop"] = result, True
                continue
            status, stdout, stderr, note = result
            try:
                self._print(stdout, stderr, note)
            except BaseException as e:  # noqa: BLE001 - a closed pipe ends the batch
                outcome["error"], outcome["stop"] = e, True
                continue
            outcome["status"] = max(outcome["status"], status)
            if status not in (EXIT_OK, EXIT_UNSOLVABLE, EXIT_USAGE, EXIT_LIMIT):
                outcome["stop"] = True  # a missing database (3) or a bug: the batch ends

    def _print(self, stdout: bytes, stderr: str, note: str | None) -> None:
        """The answer as the command printed it; its notes said once per command."""
        stdout = self._notes.lines(stdout)  # each piece was a command of its own there
        rest = []
        for line in stderr.splitlines():
            if line.startswith(NOTE):
                self.notice(line[len(NOTE) :])
            else:
                rest.append(line)
        out = sys.stdout.buffer
        out.write(stdout)
        out.flush()
        for line in rest:
            say(line)
        if note:
            self.notice(note)

    # -- HTTP --

    def _ask(self, name: str, words: list[str], piece) -> tuple[int, bytes, str, str | None]:
        question = {"command": name, "argv": words}
        if piece is None:
            return self.channel.ask(question)
        question["piece"] = piece.as_json()
        return self.channel.ask(question, piece.chunk.data)


class _Future:
    """One piece's answer, waited for by the writer."""

    def __init__(self):
        self._done = threading.Event()
        self.value = None

    def set(self, value) -> None:
        self.value = value
        self._done.set()

    def get(self):
        self._done.wait()
        return self.value


class _Sizer:
    """How many lines the next piece takes: :data:`FIRST_LINES` until answers come back,
    then as many as the server answers in :data:`PIECE_SECONDS` (at least a few: a request
    costs about a millisecond)."""

    def __init__(self):
        self.rate: float | None = None

    def lines(self) -> int:
        if self.rate is None:
            return FIRST_LINES
        return max(4, int(self.rate * PIECE_SECONDS))

    def learn(self, n: int, seconds: float) -> None:
        if n:
            self.rate = n / max(seconds, 1e-4)


__all__ = ["Client"]
