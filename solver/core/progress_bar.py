"""Progress bars whose rate and time left wait until they mean something (layer 0: core).

tqdm estimates the time left from the rate so far, and the first seconds of a build say
nothing about the rate of the rest: a BFS's bar is moved by its root first, and its first
layers are tiny.  A bar moved by one state in the first two
seconds then promised ``954:07:18`` to go.  :class:`ProgressBar` measures the rate from its
*second* update on (the time before the first one, and the first one itself, are start-up)
and shows the rate and the time left only once that measurement spans
:data:`ETA_AFTER_SECONDS`; until then the line shows the count and the elapsed time.  A
finished bar shows tqdm's usual summary.

Every bar with a known total that a person watches (``build-pdb``, ``npuzzle generate``) is one
of these; bars without a total show no estimate anyway.  Iterating over a bar moves it without
:meth:`ProgressBar.update`: such a bar shows no estimate until it is finished.

Imports: tqdm.
"""

from __future__ import annotations

import threading

from tqdm import tqdm

# How long the rate must have been measured (after the start-up described above) before the
# line shows it and the time left: long enough to span several layers of a BFS.
ETA_AFTER_SECONDS = 2.0
# tqdm's own line for a bar with a total, less the rate and the time left.
WARMING_UP = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"


class ProgressBar(tqdm):
    """A tqdm bar that shows its rate and time left only once the rate is measured over
    :data:`ETA_AFTER_SECONDS` past start-up (see the module's docstring)."""

    # The bars drawn and not yet closed, whose line may be unfinished on stderr: a message
    # said past them starts a line of its own (solver.core.interrupts.start_line).
    drawn: set = set()

    def __init__(self, *args, **kwargs):
        self._since = None  # (time, count) of the second update: where the rate is measured from
        self._updates = 0
        super().__init__(*args, **kwargs)
        if not self.disable:
            ProgressBar.drawn.add(id(self))

    def close(self):
        """Close the bar as tqdm does; only then is its line finished."""
        super().close()
        ProgressBar.drawn.discard(id(self))

    def update(self, n=1):
        """Advance the bar by ``n``, remembering where the rate starts to count."""
        if self.disable:
            return super().update(n)
        self._updates += 1
        if self._updates == 2:
            self._since = (self._time(), self.n)
        return super().update(n)

    def measured_rate(self) -> float | None:
        """Units a second since the second update, or None while that spans less than
        :data:`ETA_AFTER_SECONDS` (or nothing has been done since)."""
        if self._since is None:
            return None
        t0, n0 = self._since
        span = self._time() - t0
        if span < ETA_AFTER_SECONDS or self.n <= n0:
            return None
        return (self.n - n0) / span

    @property
    def format_dict(self):
        """tqdm's fields for the line, with the measured rate, or without the rate and the
        time left while there is none yet."""
        fields = super().format_dict
        if fields.get("total") is None or fields["n"] >= fields["total"]:
            return fields  # no estimate to make, or a finished bar: tqdm's summary
        rate = self.measured_rate()
        if rate is not None:
            fields["rate"] = rate
        elif fields.get("bar_format") is None:
            fields["bar_format"] = WARMING_UP
        return fields


__all__ = ["ProgressBar", "ETA_AFTER_SECONDS"]


# The bars share a thread lock, not tqdm's default one, which also creates a multiprocessing
# lock: a named semaphore that a process ended by a kill never releases (`npuzzle serve` kills
# its search workers at shutdown, and Python then warns of a leaked semaphore).  No two
# processes draw bars on one terminal here: batch workers and search workers draw none.
ProgressBar.set_lock(threading.RLock())
