"""A live status line on stderr about the search under way (``npuzzle compare``).

A blind search of a 31-move 8-puzzle can run for minutes; without a word the command looks
hung.  On a terminal, a background thread rewrites one line a few times a second: which
search runs, for how long, the nodes generated so far where the search reports them (through
``SearchOptions.progress``, as IDA* does), and the memory the process holds now (a BFS's
visited set grows by the second).  Elsewhere (a log, a pipe) nothing is written: the table at
the end says it all, and a log should not fill with redrawn lines.  Never on stdout.

Imports: the standard library only.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time

REFRESH_SECONDS = 0.25  # how often the line is redrawn
CLEAR = "\r\x1b[K"  # back to the start of the line, and erase it


def resident_mb() -> float | None:
    """The memory this process holds now (its resident set), in MiB; None where the system
    does not say (``/proc/self/statm`` is Linux's)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class LiveStatus:
    """The status line of the search under way: :meth:`start` one with a label, hand
    :meth:`heard` to the search as its progress callback, :meth:`finish` it when it ends (the
    line is cleared), :meth:`close` when no search follows.  ``live`` (default: ``stream``
    is a terminal) says whether anything is written at all."""

    def __init__(self, stream=None, live: bool | None = None, prefix: str = "npuzzle: "):
        self.stream = stream or sys.stderr
        if live is None:
            isatty = getattr(self.stream, "isatty", None)
            live = bool(isatty is not None and isatty())
        self.live = live
        self.prefix = prefix
        self.label: str | None = None
        self.nodes: int | None = None
        self.started = 0.0
        self._lock = threading.Lock()  # one writer at a time: the redraws and the clearing
        self._closed = threading.Event()
        self._shown = False
        self._thread: threading.Thread | None = None

    def start(self, label: str) -> None:
        """A search called ``label`` begins now."""
        with self._lock:
            self.label, self.nodes, self.started = label, None, time.perf_counter()
        if self.live and self._thread is None:
            self._thread = threading.Thread(target=self._redraw, name="npuzzle-status", daemon=True)
            self._thread.start()

    def heard(self, progress) -> None:
        """The search's progress callback: anything with ``nodes`` (generated so far)."""
        self.nodes = progress.nodes

    def elapsed(self) -> float:
        """Seconds since the search under way began."""
        return time.perf_counter() - self.started

    def line(self) -> str:
        """``npuzzle: iddfs (2 of 4): 12.3 s, 1,234,567 nodes, 245 MB``, without the parts
        unknown."""
        parts = [f"{self.prefix}{self.label}: {self.elapsed():.1f} s"]
        if self.nodes is not None:
            parts.append(f"{self.nodes:,} nodes")
        mb = resident_mb()
        if mb is not None:
            parts.append(f"{mb:,.0f} MB")
        return ", ".join(parts)

    def finish(self) -> None:
        """The search under way ended: clear its line."""
        with self._lock:
            self.label = None
            if self._shown:
                self._write(CLEAR)
                self._shown = False

    def close(self) -> None:
        """Clear the line and stop redrawing it."""
        self.finish()
        self._closed.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _redraw(self) -> None:
        while not self._closed.wait(REFRESH_SECONDS):
            with self._lock:
                if self.label is None:
                    continue
                width = shutil.get_terminal_size((100, 24)).columns or 100
                self._write(CLEAR + self.line()[: width - 1])
                self._shown = True

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a status line is not worth failing the command over

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
