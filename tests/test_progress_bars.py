"""Progress bars show no rate and no time left until the rate means something
(solver.core.progress_bar), and every bar with a total is one of those.

The clock is tqdm's own, replaced by one the test moves: nothing here waits or times anything.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from solver.core.progress_bar import ETA_AFTER_SECONDS, ProgressBar

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    """A clock that stands still until told to move."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr("tqdm.std.time", c)  # what tqdm reads its time from
    return c


def line(bar: ProgressBar) -> str:
    return str(bar).strip()


def test_no_estimate_while_starting_up_then_the_measured_one(clock):
    bar = ProgressBar(total=2000, file=io.StringIO(), unit="state", desc="exact 2x5")
    bar.update(1)  # a BFS's root, before its kernels compile
    clock.now += 5.0  # a slow start
    bar.update(9)
    # tqdm alone would now promise hours (one state in five seconds); this bar says only
    # what it knows.
    assert line(bar).startswith("exact 2x5:   0%|")
    assert line(bar).endswith("| 10/2000 [00:05]")
    clock.now += ETA_AFTER_SECONDS / 2
    bar.update(90)
    assert line(bar).endswith("| 100/2000 [00:06]")
    clock.now += 2.0  # measured over 3 s since the second update: 900 states, 300 a second
    bar.update(801)
    assert bar.measured_rate() == 300
    assert line(bar).endswith("| 901/2000 [00:08<00:03, 300.00state/s]")
    bar.close()


def test_a_stalled_bar_shows_its_rate_falling(clock):
    bar = ProgressBar(total=100, file=io.StringIO(), unit="pl")
    bar.update(1)
    bar.update(1)
    clock.now += 4
    bar.update(19)
    assert line(bar).endswith("| 21/100 [00:04<00:15,  5.00pl/s]")
    clock.now += 16  # nothing done since: the rate sinks, the time left grows
    assert line(bar).endswith("| 21/100 [00:20<01:19,  1.00pl/s]")
    bar.close()


def test_a_finished_bar_keeps_the_usual_summary(clock):
    bar = ProgressBar(range(4), file=io.StringIO(), unit="goal", desc="exact 2x3")
    for _ in bar:  # iterating moves it without update(): no estimate until the end
        assert "<" not in line(bar) and "goal/s" not in line(bar)
        clock.now += 0.5
    assert line(bar).endswith("| 4/4 [00:02<00:00,  2.00goal/s]")


def test_a_disabled_bar_is_quiet():
    out = io.StringIO()
    bar = ProgressBar(total=10, disable=True, file=out)
    bar.update(3)
    bar.update(3)
    bar.close()
    assert bar.measured_rate() is None and out.getvalue() == ""


def tqdm_calls_with_a_total(path: Path) -> list[int]:
    """Lines of ``path`` that build a plain tqdm bar over a known total (keyword ``total`` or
    an iterable to wrap), which would promise a time left too soon."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tqdm":
            if node.args or any(k.arg == "total" for k in node.keywords):
                found.append(node.lineno)
    return found


def test_every_bar_with_a_total_is_a_progress_bar():
    files = sorted(p for d in ("solver", "pdb_builder") for p in (ROOT / d).rglob("*.py"))
    plain = {
        str(p.relative_to(ROOT)): lines
        for p in files
        if p.name != "progress_bar.py" and (lines := tqdm_calls_with_a_total(p))
    }
    assert plain == {}


def test_a_signals_line_starts_below_a_bar_left_open(capfd):
    """A signal can end a program before its bar is closed (or while it closes): the one line
    said then starts a line of its own, not at the end of the bar's."""
    import sys

    from solver.core import interrupts

    bar = ProgressBar(total=10, desc="x", file=sys.stderr)
    bar.update(1)
    capfd.readouterr()
    interrupts.start_line()
    assert capfd.readouterr().err == "\n"
    bar.close()
    capfd.readouterr()
    interrupts.start_line()  # no bar open: nothing to end
    assert capfd.readouterr().err == ""
