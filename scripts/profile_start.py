#!/usr/bin/env python
"""Where the time of a whole `npuzzle solve` process goes, beyond `import numpy`.

Each run is a fresh interpreter that runs the real command in-process with two instruments:

* an import hook that times every module's own execution (its imports excluded) and adds it
  up by package: numpy, click, npuzzle's modules, the rest;
* timers around the functions that make up a search (choosing the plans, opening and
  loading the tables, the arrays the kernels read, the search,
  writing the answer), each counted without the imports and timed calls inside it.

What neither instrument covers is the interpreter's own start and exit, measured apart with
`python -c pass`, and the rest of the process (the command line, click's parsing, the thread
pool) -- the row "everything else".  Two whole-process rows beside them give the target's
terms: `python -c "import numpy"` (the floor of a search that imports numpy) and the command
without the instruments.
Medians of ``--runs`` runs; the rows are medians of their own, so they need not add up exactly.

    python scripts/profile_start.py                    # one 15-puzzle (Korf's #1), mapped
    python scripts/profile_start.py --batch            # Korf's 100 as one batch (read)
    python scripts/profile_start.py --runs 21 --json

Needs the 7-8 database and its zero-aware twin (``build-pdb --shape 4x4 --strongest``) where
``$NPUZZLE_DATA`` (or data/) points.  About 30 s for 11 runs on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARD = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf's #1, 57 moves, a few ms of search
KORF = ROOT / "data" / "korf100.txt"
COMMAND = ["solve", "--goal", "blank-first"]

# The functions timed, by module, with the row each counts towards.
STAGES = {
    "solver.api": {"search_request": "choosing the plans (the catalog, the rank tables)"},
    "solver.tables.store": {"open_tables": "opening the tables (a proven file's layout)"},
    "solver.tables.loading": {"load": "bringing the tables into memory"},
    "solver.search.kernel_data": {"zero_aware_data": "the zero-aware search's arrays"},
    "solver.search.fsm": {"machine_for": "the pruning machine"},
    "solver.search.idastar": {"solve": "the search (kernels and threads)"},
    "solver.cli.io": {"answer_one": "answering (the output, and the solve command's own work)"},
}
PACKAGES = {"numpy": "numpy"}


def group_of(module: str) -> str:
    """The import row a module's own time counts towards."""
    top = module.split(".")[0]
    if top in PACKAGES:
        return f"import {PACKAGES[top]}"
    if top in ("solver", "click"):
        return f"import {top}"
    return "import the standard library and the rest"


# --- the child: one instrumented run ----------------------------------------------------------


class Clock:
    """Exclusive times: a timed call or an import minus the timed calls and imports inside.
    Work on another thread is a row of its own."""

    def __init__(self):
        self.totals: dict[str, float] = {}
        self.local = threading.local()  # per thread: the time of nested timed work, per frame

    def timed(self, row: str, call):
        inner = self.local.__dict__.setdefault("inner", [0.0])
        if threading.current_thread() is not threading.main_thread():
            row = f"{row}, on the second thread (overlapped)"
        inner.append(0.0)
        t0 = time.perf_counter()
        try:
            return call()
        finally:
            spent = time.perf_counter() - t0
            nested = inner.pop()
            self.totals[row] = self.totals.get(row, 0.0) + spent - nested
            inner[-1] += spent


def _hook_imports(clock: Clock) -> None:
    import importlib.abc

    class Timed(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            for finder in sys.meta_path:
                if finder is self:
                    continue
                spec = getattr(finder, "find_spec", lambda *a: None)(name, path, target)
                if spec is not None:
                    loader = spec.loader
                    if loader is not None and hasattr(loader, "exec_module"):
                        spec.loader = _TimedLoader(loader, clock, name)
                    return spec
            return None

    sys.meta_path.insert(0, Timed())


class _TimedLoader:
    def __init__(self, loader, clock: Clock, name: str):
        self._loader, self._clock, self._name = loader, clock, name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._clock.timed(group_of(self._name), lambda: self._loader.exec_module(module))
        _wrap_stages(module, self._name, self._clock)

    def __getattr__(self, attr):
        return getattr(self._loader, attr)


def _wrap_stages(module, name: str, clock: Clock) -> None:
    for qualname, row in STAGES.get(name, {}).items():
        owner = module
        *path, attr = qualname.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        fn = getattr(owner, attr, None) if owner is not None else None
        if fn is None:
            continue

        def wrapper(*args, _fn=fn, _row=row, **kwargs):
            return clock.timed(_row, lambda: _fn(*args, **kwargs))

        setattr(owner, attr, wrapper)


def child(out: str, argv: list[str]) -> None:
    """Run ``npuzzle argv`` in this process with the instruments; write the rows to ``out``."""
    clock = Clock()
    _hook_imports(clock)
    t0 = time.perf_counter()
    import runpy

    sys.argv = ["npuzzle", *argv]
    status = 0
    try:
        runpy.run_module("solver", run_name="__main__")
    except SystemExit as e:
        status = e.code or 0
    total = time.perf_counter() - t0
    rows = dict(clock.totals)
    main = sum(v for k, v in rows.items() if "second thread" not in k)
    rows["everything else"] = total - main
    Path(out).write_text(json.dumps({"rows": rows, "total": total, "status": status}))
    os._exit(0)  # the process's exit is timed by the parent's plain runs


# --- the parent: runs, medians, the table -----------------------------------------------------


# As an installed package runs: bytecode cached.  Where PYTHONDONTWRITEBYTECODE is set, every
# process would compile npuzzle's changed sources again and the import rows would count the
# compiler (scripts/bench_oneshot.py drops it too).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str], stdin: bytes | None) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    if r.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)[:80]}: exit {r.returncode}: {r.stderr.decode()[-300:]}")
    return time.perf_counter() - t0


def profile(argv: list[str], stdin: bytes | None, runs: int) -> dict:
    """Medians over ``runs`` interleaved runs: the plain processes and each row."""
    py = sys.executable
    plain = {
        "python -c pass": [py, "-c", "pass"],
        'python -c "import numpy"': [py, "-c", "import numpy"],
        "the whole process, uninstrumented": [py, "-m", "solver", *argv],
    }
    wall(plain["the whole process, uninstrumented"], stdin)  # compile kernels if needed
    walls: dict[str, list[float]] = {k: [] for k in plain}
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        for _ in range(runs):
            for name, cmd in plain.items():
                walls[name].append(wall(cmd, stdin))
            wall([py, __file__, "--child", str(out), "--", *argv], stdin)
            for k, v in json.loads(out.read_text())["rows"].items():
                rows.setdefault(k, []).append(v)
    return {
        "walls": {k: statistics.median(v) for k, v in walls.items()},
        "rows": {k: statistics.median(v) for k, v in rows.items()},
    }


def table(found: dict, what: str, runs: int) -> str:
    """The report as a markdown table, the biggest rows first."""
    walls, rows = found["walls"], found["rows"]
    base = walls['python -c "import numpy"']
    lines = [
        f"# {what}: medians of {runs} runs, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}",
        "| stage | ms | note |",
        "|---|---:|---|",
    ]
    for name, sec in walls.items():
        note = f"{sec / base:.2f}x the import" if "import numpy" not in name else ""
        lines.append(f"| {name} | {1000 * sec:.1f} | {note} |")
    for name, sec in sorted(rows.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {name} | {1000 * sec:.1f} | |")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[4:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11, help="runs of each process (median)")
    ap.add_argument("--batch", action="store_true", help="Korf's 100 as one batch on stdin")
    ap.add_argument("--json", action="store_true", help="the medians as JSON")
    a = ap.parse_args()
    if a.batch:
        boards = [
            line.split("\t")[1] for line in KORF.read_text().splitlines() if line[:1].isdigit()
        ]
        argv, stdin, what = (
            [*COMMAND[:1], "-", *COMMAND[1:]],
            ("\n".join(boards) + "\n").encode(),
            "Korf's 100 as one batch",
        )
    else:
        argv, stdin, what = [*COMMAND[:1], BOARD, *COMMAND[1:]], None, "one 15-puzzle (Korf's #1)"
    found = profile(argv, stdin, a.runs)
    print(json.dumps(found, indent=1) if a.json else table(found, what, a.runs))


if __name__ == "__main__":
    main()
