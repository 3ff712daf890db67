"""How far a batch has got, on stderr while someone watches it (layer 7: cli).

A batch may print nothing for minutes: ``npuzzle solve - < data/hardest80.txt`` searches its
first board before it answers one.  With stderr on a terminal, a bar counts the boards answered
and, once the whole input has been read, how many there are (a file is read one chunk ahead, so
a file of up to a chunk shows its total from the start; a pipe's total is never known before
its end).  The bar appears only after :data:`DELAY` (a quick batch shows none) and is redrawn
every :data:`REDRAW` seconds, so a long search shows its time going by.  Answers written to
the same terminal clear it first and draw it again after, so stdout holds the batch's bytes
and nothing else.

No bar where nobody watches or it would be in the way (:func:`shown`): stderr not a terminal
(a log), stdin a terminal (whoever types sees each answer come), ``-q``, or a piece of a
client's batch that a server answers.

Imports: the standard library, :mod:`solver.core.progress_bar` (tqdm) when a bar is shown,
:mod:`.errors`, :mod:`.piece_input`.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from collections.abc import Iterable, Iterator

from . import errors, piece_input

DELAY = 0.5  # seconds before the bar appears
REDRAW = 1.0  # seconds between redraws while nothing is answered


def _isatty(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except (OSError, ValueError):  # closed
        return False


def shown(stderr=None, stdin=None) -> bool:
    """Whether a batch read from ``stdin`` shows its progress on ``stderr`` (default: the
    process's): stderr is a terminal, stdin is not one, notes are not silenced (``-q``), and
    the batch is not a piece a server answers for a client."""
    stderr = sys.stderr if stderr is None else stderr
    stdin = sys.stdin if stdin is None else stdin
    if piece_input.current() is not None or errors.quiet():
        return False
    return _isatty(stderr) and not _isatty(stdin)


def _is_file(stream) -> bool:
    """Whether ``stream`` reads a regular file (reading it ahead never waits)."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


class Progress:
    """The bar of one batch: :meth:`expect` the boards of each chunk as they are read,
    :meth:`done` each one answered, :meth:`close` at the end.  The bar itself is made once
    :data:`DELAY` has passed; until then only the counts are kept."""

    def __init__(self):
        from ..core.progress_bar import ProgressBar  # tqdm: only where a bar is shown

        self._make = ProgressBar
        self._lock = ProgressBar.get_lock()
        self.bar = None
        self.seen = self.answered = 0
        self.complete = False  # the whole input has been read: ``seen`` is the total
        self._due = time.monotonic() + DELAY
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="batch progress", daemon=True)
        self._ticker.start()

    def chunks(self, chunks: Iterable, stream) -> Iterator:
        """``chunks`` (read from ``stream``), noting when the last one is given; a file is
        read one chunk ahead to know it."""
        if not _is_file(stream):
            yield from chunks
            self.complete = True
            return
        it = iter(chunks)
        ahead = next(it, None)
        while ahead is not None:
            chunk, ahead = ahead, next(it, None)
            self.complete = ahead is None
            yield chunk

    def expect(self, n: int) -> None:
        """``n`` more boards read; the total once the input is all read."""
        with self._lock:
            self.seen += n
            if self._shown() and self.complete:
                self.bar.total = self.seen
                self.bar.refresh()

    def done(self, n: int = 1) -> None:
        """``n`` more boards answered."""
        if n:
            with self._lock:
                self.answered += n
                if self._shown():
                    self.bar.update(n)

    def beside(self, out):
        """``out`` (stdout), clearing the bar around each write when both are one terminal."""
        return _Beside(out, self) if _isatty(sys.stdout) else out

    def close(self) -> None:
        """Stop redrawing and clear the bar."""
        self._stop.set()
        self._ticker.join()
        with self._lock:
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    def _shown(self) -> bool:
        """Whether the bar is drawn, drawing it once it is due (called holding the lock)."""
        if self.bar is None and not self._stop.is_set() and time.monotonic() >= self._due:
            self.bar = self._make(
                total=self.seen if self.complete else None,
                initial=self.answered,
                desc="answered",
                unit=" boards",
                leave=False,
                dynamic_ncols=True,
                file=sys.stderr,
            )
        return self.bar is not None

    def _tick(self) -> None:
        # Draws the bar when it is due and redraws it while a long search answers nothing.
        wait = max(self._due - time.monotonic(), 0)
        while not self._stop.wait(wait):
            with self._lock:
                if self._shown():
                    self.bar.refresh()
            wait = REDRAW


class _Beside:
    """A writer whose writes clear the bar first and draw it again after (a terminal holds
    one line of each at a time)."""

    def __init__(self, out, progress: Progress):
        self.out, self.progress = out, progress

    def write(self, data: bytes) -> int:
        with self.progress._lock:
            bar = self.progress.bar
            if bar is None or not data:
                return self.out.write(data)
            bar.clear()
            written = self.out.write(data)
            self.out.flush()
            bar.refresh()
            return written

    def flush(self) -> None:
        self.out.flush()


class NoProgress:
    """What a batch that shows no progress keeps: nothing."""

    def chunks(self, chunks: Iterable, stream) -> Iterable:
        return chunks

    def expect(self, n: int) -> None:
        pass

    def done(self, n: int = 1) -> None:
        pass

    def beside(self, out):
        return out

    def close(self) -> None:
        pass


def start(show: bool) -> Progress | NoProgress:
    """The progress of a batch: a :class:`Progress` where ``show``, else nothing."""
    return Progress() if show else NoProgress()


__all__ = ["DELAY", "REDRAW", "NoProgress", "Progress", "shown", "start"]
