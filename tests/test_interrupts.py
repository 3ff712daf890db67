"""Ctrl-C at any moment of the installed programs (``npuzzle``, ``build-pdb``), on a loaded
machine: one line and exit 130, no traceback, nothing partial left on disk.

The programs are the real console scripts, run as subprocesses beside a busy loop on every
core.  The signal is sent 0, 10, 30 and 100 ms after the program's handlers are in place -- an
event read from ``/proc/PID/status`` (the interpreter never catches SIGTERM on its own), not a
clock -- so the outcome cannot depend on how fast the loaded machine starts the interpreter.
That the handlers come before every import but the standard library's is checked on its own,
from the interpreter's import log.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DELAYS = [0, 0.01, 0.03, 0.1]
# A 49-move 3x4 board: without a database its search takes seconds, far beyond the last signal.
SLOW_3X4 = "0 11 9 10/8 7 6 5/4 3 2 1"

pytestmark = pytest.mark.skipif(
    not os.path.exists(f"/proc/{os.getpid()}/status"), reason="needs Linux's /proc"
)


def script(name: str) -> str:
    """The installed console script ``name`` (beside this interpreter, as pip puts it)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"the {name} console script is not installed")
        path = Path(found)
    return str(path)


def env() -> dict:
    """This checkout first, whatever the installed scripts point at."""
    return dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.fixture(scope="module")
def busy_cores():
    """One busy loop on each core for the module's tests; stopped afterwards."""
    loops = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    yield
    for p in loops:
        p.kill()
        p.wait()


def caught(pid: int) -> set[int]:
    """The signals process ``pid`` has handlers for (empty once it has gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            line = next(line for line in fh if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return set()
    mask = int(line.split()[1], 16)
    return {n for n in range(1, 65) if mask >> (n - 1) & 1}


def signal_when_ready(args: list[str], delay: float) -> tuple[int, str]:
    """Start ``args``; once its handlers are in place, wait ``delay`` seconds and send
    SIGINT; return its exit status and stderr."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())
    try:
        # Waiting for an event: the interpreter itself never catches SIGTERM.
        while signal.SIGTERM not in caught(p.pid):
            assert p.poll() is None, p.communicate()[1].decode()
            time.sleep(0.001)
        if delay:
            # A pause, not a deadline: whatever the process does then, the outcome is the same.
            with pytest.raises(subprocess.TimeoutExpired):
                p.wait(timeout=delay)
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=120)[1].decode()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, err


NOTE = ("npuzzle: note: ", "build-pdb: note: ")


def assert_interrupted(rc: int, err: str, line: str) -> None:
    assert rc == 130 and "Traceback" not in err, (rc, err)
    *before, last = err.splitlines()
    # One line for the signal; a note said before it landed (what would be faster) may come
    # first, and nothing else.
    assert last.startswith(line) and all(b.startswith(NOTE) for b in before), err


@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_on_a_solve_is_one_line_and_130(busy_cores, tmp_path, delay):
    rc, err = signal_when_ready(
        [script("npuzzle"), "solve", SLOW_3X4, "--data-dir", str(tmp_path)], delay
    )
    assert_interrupted(rc, err, "npuzzle: interrupted")


@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_on_a_build_is_one_line_130_and_leaves_nothing(busy_cores, tmp_path, delay):
    data = tmp_path / "data"
    rc, err = signal_when_ready(
        [script("build-pdb"), "-q", "--shape", "4x4", "--partition", "6-6-3"]
        + ["--data-dir", str(data)],
        delay,
    )
    assert_interrupted(rc, err, "build-pdb: interrupted; no partial file was left behind")
    assert not data.exists() or list(data.iterdir()) == []


def imports_before_the_handlers(args: list[str]) -> list[str]:
    """The modules a real run of ``args`` has imported, after the interpreter's own start-up
    (``site``), by the time :mod:`solver.core.interrupts` is loaded: the program installs its
    handlers right then."""
    r = subprocess.run(
        args,
        capture_output=True,
        text=True,
        env={**env(), "PYTHONPROFILEIMPORTTIME": "1"},
        timeout=120,
    )
    names = [
        line.rsplit("|", 1)[1].strip()
        for line in r.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    ]
    start = names.index("site") + 1  # what comes before is the interpreter's, not ours
    return names[start : names.index("solver.core.interrupts")]


@pytest.mark.parametrize("program", ["npuzzle", "build-pdb"])
def test_the_handlers_come_before_every_heavy_import(program):
    """Between the interpreter's start-up and the handlers: the programs' package modules and
    a little of the standard library, never click, numpy or h5py."""
    before = imports_before_the_handlers([script(program), "--help"])
    ours = {"solver", "solver.core", "pdb_builder"}
    others = [m for m in before if m not in ours]
    assert all(m.split(".")[0] in sys.stdlib_module_names for m in others), before


# Put on sys.path ahead of everything, as sitecustomize: the moment solver.core.progress_bar
# starts importing tqdm -- the module is in sys.modules, its ProgressBar not yet defined -- the
# process sends itself SIGINT, so the handler runs against the half-imported module.
SIGNAL_INSIDE_THE_IMPORT = """
import os, signal, sys

class SignalInsideTheImport:
    def find_spec(self, name, path=None, target=None):
        bars = sys.modules.get("solver.core.progress_bar")
        if name == "tqdm" and bars is not None and not hasattr(bars, "ProgressBar"):
            sys.meta_path.remove(self)
            open(os.environ["SIGNALLED_MARK"], "w").close()
            signal.raise_signal(signal.SIGINT)
        return None

sys.meta_path.insert(0, SignalInsideTheImport())
"""


def test_ctrl_c_while_the_progress_bars_are_half_imported_is_one_line(tmp_path):
    """The handler looks for an unfinished bar's line among the imported modules; a module
    still being imported is there without its names, and a signal at that moment of the
    start is one line and 130 all the same."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SIGNAL_INSIDE_THE_IMPORT)
    mark = tmp_path / "signalled"
    data = tmp_path / "data"
    r = subprocess.run(
        [script("build-pdb"), "-q", "--shape", "4x4", "--partition", "6-6-3"]
        + ["--data-dir", str(data)],
        capture_output=True,
        text=True,
        env=dict(env(), PYTHONPATH=f"{hook}{os.pathsep}{ROOT}", SIGNALLED_MARK=str(mark)),
        timeout=120,
    )
    assert mark.exists(), "the signal was never sent: progress_bar no longer imports tqdm?"
    assert r.returncode == 130 and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    assert r.stderr == "build-pdb: interrupted; no partial file was left behind\n"
    assert not data.exists() or list(data.iterdir()) == []
