"""What numba's first compile of the builder's kernels costs, by numba release.

For each interpreter given (each a virtual environment with its own numba), builds the tables
the test suite's fixtures build -- the exact 2x3 and 3x3 tables, the 3x3 4-4 and the 4x4 5-5-5
pattern databases -- twice, each in a fresh process: first on an empty numba cache (numba
compiles the kernels), then on the cache the first run filled (numba loads them).  Prints the
two builds' seconds and the kernels that took longest to compile (numba's documented event
API, ``numba:compile``).  No C reference builds these kernels; the figure to hold it against
is the cached build beside it.

    python scripts/bench_builder_compile.py --python /venvs/numba058/bin/python \\
        --python /venvs/numba059/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in the interpreter measured: builds the fixtures' tables, timing each build and every
# kernel numba compiles on the way; prints one JSON object.
BUILD = r"""
import json, sys, tempfile, time
import numba
from numba.core import event
from pdb_builder.build import build_exact
from pdb_builder.build_apdb import build_apdb
from solver.core.board import Shape

class Compiles(event.Listener):
    def __init__(self):
        self.started, self.seconds = {}, []
    def on_start(self, ev):
        self.started[id(ev.data["dispatcher"])] = time.perf_counter()
    def on_end(self, ev):
        f = ev.data["dispatcher"].py_func
        t0 = self.started.pop(id(ev.data["dispatcher"]), None)
        if t0 is not None:
            self.seconds.append((time.perf_counter() - t0, f"{f.__module__}.{f.__qualname__}"))

compiles = Compiles()
event.register("numba:compile", compiles)
out = tempfile.mkdtemp()
t0 = time.perf_counter()
for shape in ("2x3", "3x3"):
    build_exact(Shape.parse(shape), out, progress=False)
build_apdb("3x3", "4-4", None, out, progress=False)
build_apdb("4x4", "5-5-5", None, out, progress=False)
print(json.dumps({
    "numba": numba.__version__,
    "python": sys.version.split()[0],
    "seconds": time.perf_counter() - t0,
    "compiles": sorted(compiles.seconds, reverse=True),
}))
"""


def build(python: str, cache: str) -> dict:
    """One build of the fixtures' tables by ``python`` with numba's cache at ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [python, "-c", BUILD], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    if r.returncode != 0:
        sys.exit(f"{python}: the build failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--python",
        action="append",
        default=None,
        help="an interpreter with npuzzle's dependencies (repeat to compare; default: this one)",
    )
    ap.add_argument("--top", type=int, default=4, help="kernels listed by compile time")
    args = ap.parse_args()
    rows = []
    for python in args.python or [sys.executable]:
        with tempfile.TemporaryDirectory() as cache:
            print(f"{python}: first build, empty numba cache ...", file=sys.stderr)
            fresh = build(python, cache)
            print(f"{python}: second build, cached ...", file=sys.stderr)
            cached = build(python, cache)
        rows.append((fresh, cached))
    print("| numba | Python | first build s (compiles) | cached build s | the compiles s |")
    print("|---|---|---:|---:|---:|")
    for fresh, cached in rows:
        print(
            f"| {fresh['numba']} | {fresh['python']} | {fresh['seconds']:.1f} | "
            f"{cached['seconds']:.1f} | {fresh['seconds'] - cached['seconds']:.1f} |"
        )
    for fresh, _ in rows:
        # A kernel's compile includes those of the functions it calls: the times nest.
        print(f"\nnumba {fresh['numba']}: the longest compiles")
        for seconds, name in fresh["compiles"][: args.top]:
            print(f"  {seconds:6.1f} s  {name}")


if __name__ == "__main__":
    main()
