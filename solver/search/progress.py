"""Progress of a long IDA* search for people: its iterations on stderr as they go (layer 3:
search; the CLI passes an :class:`IterationLog` as ``SearchOptions.progress``).

On a terminal a status line (a :class:`~solver.core.progress_bar.ProgressBar`, so it shares
the other bars' lock and a message said past it starts a line of its own) shows the iteration
under way -- its bound, the nodes so far, nodes per second, the elapsed time -- and each
iteration that ends after the first second leaves a line behind.  Elsewhere (a log file,
``2>`` a pipe) both are written only when asked (``npuzzle solve -v``), the status line
redrawn (``\r``) at most every :data:`LOG_STATUS_SECONDS`, so that a log of a search of hours
stays small and ``tail -f`` still shows where it is.  Never on stdout: that is the answer's.

Imports: the standard library and tqdm (when a terminal shows the status line).
"""

from __future__ import annotations

import shutil
import sys

from .driver import Progress

QUIET_SECONDS = 1.0  # searches shorter than this say nothing
LOG_STATUS_SECONDS = 5.0  # off a terminal, the status line is redrawn at most this often


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
    status line when ``live`` (default: the stream is a terminal), redrawn at most every
    ``every`` seconds of the search (default: whenever the search reports on a terminal,
    :data:`LOG_STATUS_SECONDS` elsewhere), and a lasting line for each iteration that ends
    after ``QUIET_SECONDS``.  Call :meth:`close` when the search ends (it clears the status
    line)."""

    def __init__(
        self,
        stream=None,
        live: bool | None = None,
        prefix: str = "npuzzle: ",
        every: float | None = None,
    ):
        self.stream = stream or sys.stderr
        terminal = _is_terminal(self.stream)
        self.live = terminal if live is None else live
        self.every = (0.0 if terminal else LOG_STATUS_SECONDS) if every is None else every
        self.prefix = prefix
        self.bar = None
        self.drawn_at: float | None = None  # the search's seconds when the status was drawn

    def __call__(self, p: Progress) -> None:
        if p.seconds < QUIET_SECONDS:
            return
        text = self.prefix + describe(p)
        if p.done:
            self._line(text)
        elif self.live and (self.drawn_at is None or p.seconds - self.drawn_at >= self.every):
            self.drawn_at = p.seconds
            self._status(text)

    def _line(self, text: str) -> None:
        if self.bar is not None:
            # The ended iteration's status goes with it: the bar is redrawn below the line.
            self.bar.set_description_str("", refresh=False)
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
