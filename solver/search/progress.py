"""Progress of a long IDA* search for people: its iterations on stderr as they go (layer 3:
search; the CLI passes an :class:`IterationLog` as ``SearchOptions.progress``).

On a terminal a status line (tqdm) shows the iteration under way -- its bound, the nodes so
far, nodes per second, the elapsed time -- and each iteration that ends after the first
second leaves a line behind.  Elsewhere (a log file, ``2>`` a pipe) only those lines are
written, and only when asked (``npuzzle solve -v``).  Never on stdout: that is the answer's.

Imports: the standard library and tqdm (when a terminal shows the status line).
"""

from __future__ import annotations

import shutil
import sys

from .driver import Progress

QUIET_SECONDS = 1.0  # searches shorter than this say nothing


def describe(p: Progress) -> str:
    """One line about an iteration: ``iteration 7, bound 59: 1,839,113 nodes (13.4 M/s),
    0.14 s``."""
    rate = p.nodes / p.seconds if p.seconds > 0 else 0.0
    bound = f"{p.bound:g}"  # a weighted search's bound may be a fraction of a move
    threads = f", {p.jobs} threads" if p.jobs > 1 else ""
    state = " done" if p.done else ""
    return (
        f"iteration {p.iteration}, bound {bound}{state}: {p.nodes:,} nodes "
        f"({rate / 1e6:.1f} M/s{threads}), {p.seconds:.1f} s"
    )


class IterationLog:
    """A progress callback that writes :func:`describe` lines on ``stream`` (stderr): a live
    status line when ``live`` (default: the stream is a terminal) and a lasting line for
    each iteration that ends after ``QUIET_SECONDS``.  Call :meth:`close` when the search
    ends (it clears the status line)."""

    def __init__(self, stream=None, live: bool | None = None, prefix: str = "npuzzle: "):
        self.stream = stream or sys.stderr
        self.live = _is_terminal(self.stream) if live is None else live
        self.prefix = prefix
        self.bar = None

    def __call__(self, p: Progress) -> None:
        if p.seconds < QUIET_SECONDS:
            return
        text = self.prefix + describe(p)
        if p.done:
            self._line(text)
        elif self.live:
            self._status(text)

    def _line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:  # one write: a signal cannot land between the line and its newline
            self.stream.write(text + "\n")
            self.stream.flush()

    def _status(self, text: str) -> None:
        if self.bar is None:
            from ..core.progress_bar import ProgressBar  # tqdm, with one lock for every bar

            # Some terminals report a size of 0 x 0, and tqdm then hides the line: fall back.
            size = shutil.get_terminal_size((100, 24))
            self.bar = ProgressBar(
                file=self.stream,
                bar_format="{desc}",
                leave=False,
                ncols=size.columns or 100,
                nrows=size.lines or 24,
            )
        self.bar.set_description_str(text)

    def close(self) -> None:
        """Clear the status line."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
