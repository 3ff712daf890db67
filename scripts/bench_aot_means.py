#!/usr/bin/env python3
"""Three means of compiling a kernel ahead of time, measured side by side on one toy kernel.

The same loop of table lookups is built three ways in a temporary directory -- numba's
ahead-of-time compiler (``numba.pycc``), Cython with typed memoryviews and ``nogil``, and a
small C extension that takes its arrays through the buffer protocol alone (no numpy C API) and
releases the GIL with ``Py_BEGIN_ALLOW_THREADS`` -- and a markdown table is printed, one row a
means:

- **build s**: wall seconds of the compile step alone (for pycc ``CC.compile()``, not the
  import of numba before it; for Cython the translation to C and the C compile);
- **import s**: a whole process that imports the built module (``python -c "import mod"``),
  the median of ``--runs`` runs alternating with ``python -c "import numpy"``, the baseline,
  and the ratio of the two;
- **numba/llvmlite**, **numpy**: which of them that import leaves in ``sys.modules``;
- **one call s**: one call on 1<<20 random indices into 1<<24 random bytes, the number of
  rounds chosen so that the C module's call takes about 0.3 s (best of three);
- **2 threads / 1**: two threads each making that call at once, over one call (best of three):
  about 1.0 where the call releases the GIL and both cores work, about 2.0 where it holds it
  (or where the cores are busy with other work: this one needs two idle cores);
- **pace beside**: the pace of a Python loop in another thread during one call, against its
  pace beside a thread that sleeps as long: near 0% where the call holds the GIL, near 100%
  where it releases it, whatever else the machine is doing.

Every module must return the same total (the script stops where one does not), and whether a
pycc export can take a named tuple argument is tried and reported below the table.

    python scripts/bench_aot_means.py --runs 11
    python scripts/bench_aot_means.py --runs 3 --keep /tmp/aot   # keep the sources and modules

It needs a C compiler (the one Python was built with, as setuptools finds it) and numpy.
Cython (``pip install cython``) and ``numba.pycc`` are optional: where one is missing its row
says "not installed".  Every build, import and call runs in a child process, so this one never
imports numba (nor numpy).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEANS = ("pycc", "cython", "c")
MODULE = {m: f"lookups_{m}" for m in MEANS}
TABLE_SIZE = 1 << 24  # a power of two: the kernel masks its index with size - 1
INDEX_COUNT = 1 << 20
SEED = 20240607
TARGET_CALL_S = 0.3  # the C module's call; the others land near it

# The kernel's loop, the same in all three: the round mixed into the index so that a compiler
# cannot hoist the inner loop out of the rounds, the mask keeping every index inside the table.
C_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static int64_t walk(const uint8_t *table, int64_t mask, const int64_t *idx, Py_ssize_t n,
                    int64_t rounds) {
    int64_t total = 0;
    for (int64_t r = 0; r < rounds; r++)
        for (Py_ssize_t i = 0; i < n; i++) total += table[(idx[i] ^ (r & 7)) & mask];
    return total;
}

/* A one-dimensional contiguous buffer of `obj` whose items are one of the struct letters
 * `letters`, `itemsize` bytes each; -1 with TypeError set where it is not. */
static int vector(PyObject *obj, Py_buffer *b, const char *letters, Py_ssize_t itemsize,
                  const char *what) {
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    const char *f = b->format ? b->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (b->ndim != 1 || b->itemsize != itemsize || f[0] == '\0' || f[1] != '\0' ||
        strchr(letters, f[0]) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s: expected a 1-d array of %zd-byte integers", what,
                     itemsize);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

static PyObject *lookups(PyObject *self, PyObject *args) {
    PyObject *table_obj, *idx_obj;
    long long rounds;
    Py_buffer table, idx;
    if (!PyArg_ParseTuple(args, "OOL", &table_obj, &idx_obj, &rounds)) return NULL;
    if (vector(table_obj, &table, "B", 1, "table") < 0) return NULL;
    if (vector(idx_obj, &idx, "ql", 8, "idx") < 0) {
        PyBuffer_Release(&table);
        return NULL;
    }
    Py_ssize_t size = table.shape[0];
    if (size < 8 || (size & (size - 1)) != 0) {
        PyBuffer_Release(&table);
        PyBuffer_Release(&idx);
        PyErr_SetString(PyExc_ValueError, "table: the size must be a power of two, at least 8");
        return NULL;
    }
    int64_t total;
    Py_BEGIN_ALLOW_THREADS
    total = walk(table.buf, size - 1, idx.buf, idx.shape[0], rounds);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&table);
    PyBuffer_Release(&idx);
    return PyLong_FromLongLong(total);
}

static PyMethodDef methods[] = {
    {"lookups", lookups, METH_VARARGS, "The sum of the table's bytes at the indices, rounds."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "lookups_c", NULL, -1, methods};

PyMODINIT_FUNC PyInit_lookups_c(void) { return PyModule_Create(&module); }
"""

CYTHON_SOURCE = """\
# cython: language_level=3, boundscheck=False, wraparound=False
from libc.stdint cimport int64_t, uint8_t


def lookups(const uint8_t[::1] table, const int64_t[::1] idx, int64_t rounds):
    cdef Py_ssize_t size = table.shape[0], n = idx.shape[0], i
    cdef int64_t mask = size - 1, total = 0, r
    if size < 8 or size & mask:
        raise ValueError("table: the size must be a power of two, at least 8")
    with nogil:
        for r in range(rounds):
            for i in range(n):
                total += table[(idx[i] ^ (r & 7)) & mask]
    return total
"""

# The flags of the project's own extension (setup.py), for both setuptools builds.
EXTRA_COMPILE_ARGS = ["-O3", "-std=c99"]


# --- the children: each build, the calibration, the calls -----------------------------------


def _setuptools_build(ext, out: Path) -> None:
    """Builds the setuptools Extension ``ext`` into ``out``, as ``setup.py build_ext`` would,
    with the compiler and flags setuptools takes from sysconfig."""
    from setuptools import Distribution

    cmd = Distribution({"name": ext.name, "ext_modules": [ext]}).get_command_obj("build_ext")
    cmd.build_lib = str(out)
    cmd.build_temp = str(out / "build")
    cmd.ensure_finalized()
    cmd.run()


def _build_c(out: Path) -> dict:
    """The C extension built into ``out``; its compile seconds."""
    from setuptools import Extension

    source = out / "lookups_c.c"
    source.write_text(C_SOURCE)
    ext = Extension(MODULE["c"], [str(source)], extra_compile_args=EXTRA_COMPILE_ARGS)
    t0 = time.perf_counter()
    _setuptools_build(ext, out)
    return {"build_s": time.perf_counter() - t0}


def _build_cython(out: Path) -> dict:
    """The Cython module built into ``out``: translated to C, then compiled; the seconds of
    both.  ``missing`` where Cython is not installed."""
    try:
        from Cython.Build import cythonize
    except ImportError as e:
        return {"missing": str(e)}
    from setuptools import Extension

    source = out / "lookups_cython.pyx"
    source.write_text(CYTHON_SOURCE)
    ext = Extension(MODULE["cython"], [str(source)], extra_compile_args=EXTRA_COMPILE_ARGS)
    t0 = time.perf_counter()
    (built,) = cythonize([ext], quiet=True)
    _setuptools_build(built, out)
    return {"build_s": time.perf_counter() - t0}


def _pycc_lookups(table, idx, rounds):
    """The toy kernel as numba compiles it (plain Python; see C_SOURCE for the loop)."""
    size = table.shape[0]
    mask = size - 1
    if size < 8 or size & mask:
        raise ValueError("table: the size must be a power of two, at least 8")
    total = 0
    for r in range(rounds):
        for i in range(idx.shape[0]):
            total += table[(idx[i] ^ (r & 7)) & mask]
    return total


def _pycc_pair_sum(pair):
    """The sum of a named tuple's two fields: whether pycc takes a named tuple argument."""
    return pair.a + pair.b


def _build_pycc(out: Path) -> dict:
    """The pycc module built into ``out`` (the compile timed, not numba's import), the
    warnings numba gave, and whether a second module taking a named tuple compiled."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            from numba.pycc import CC
        except ImportError as e:
            return {"missing": str(e)}
        cc = CC(MODULE["pycc"])
        cc.output_dir = str(out)
        cc.export("lookups", "i8(u1[::1], i8[::1], i8)")(_pycc_lookups)
        t0 = time.perf_counter()
        cc.compile()
        result = {"build_s": time.perf_counter() - t0}
        result["pair_build_error"] = _build_pycc_pair(CC, out)
    result["warnings"] = sorted(
        {f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught}
    )
    return result


def _build_pycc_pair(CC, out: Path) -> str | None:
    """Compiles ``pycc_pair`` with a function of one named tuple; None, or the error's first
    line.  A signature string cannot name a named tuple, so the type is built from numba's."""
    from collections import namedtuple

    from numba import types

    try:
        pair = namedtuple("Pair", "a b")
        cc = CC("pycc_pair")
        cc.output_dir = str(out)
        signature = types.int64(types.NamedUniTuple(types.int64, 2, pair))
        cc.export("pair_sum", signature)(_pycc_pair_sum)
        cc.compile()
    except Exception as e:  # whatever numba raises is the answer being reported
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    return None


def _data():
    """The table and the indices, the same in every child (one seed)."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    table = rng.integers(0, 256, TABLE_SIZE, dtype=np.uint8)
    idx = rng.integers(0, TABLE_SIZE, INDEX_COUNT, dtype=np.int64)
    return table, idx


def _import(out: Path, module: str):
    """The module built in ``out``."""
    import importlib

    sys.path.insert(0, str(out))
    return importlib.import_module(module)


def _calibrate(out: Path, module: str) -> dict:
    """The rounds that make one call of ``module`` take about TARGET_CALL_S."""
    lookups = _import(out, module).lookups
    table, idx = _data()
    rounds = 1
    while True:
        t0 = time.perf_counter()
        lookups(table, idx, rounds)
        took = time.perf_counter() - t0
        if took > TARGET_CALL_S / 8:  # long enough that the timer and caches are negligible
            return {"rounds": max(1, round(rounds * TARGET_CALL_S / took))}
        rounds *= 2


def _two_at_once(lookups, table, idx, rounds: int) -> float:
    """Seconds for two threads, released together, to make one call each."""
    import threading

    start = threading.Barrier(3)

    def work() -> None:
        start.wait()
        lookups(table, idx, rounds)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def _spins_while(job) -> int:
    """How many times this thread goes round a Python loop while another thread runs ``job``."""
    import threading

    done = threading.Event()

    def run() -> None:
        job()
        done.set()

    thread = threading.Thread(target=run)
    spins = 0
    thread.start()
    while not done.is_set():
        spins += 1
    thread.join()
    return spins


def _pace(lookups, table, idx, rounds: int, seconds: float) -> float:
    """A Python thread's pace while another makes the call, over its pace while the other
    sleeps as long: near 0 where the call holds the GIL, far above where it releases it.
    Unlike the two threads' time this needs no free core: the GIL, not the load, decides."""
    during = _spins_while(lambda: lookups(table, idx, rounds))
    alone = _spins_while(lambda: time.sleep(seconds))
    return during / alone


def _time_calls(out: Path, module: str, rounds: int) -> dict:
    """The total of one call, the best of three single calls and of three pairs at once, and
    a Python thread's pace during a call."""
    lookups = _import(out, module).lookups
    table, idx = _data()
    total = lookups(table, idx, rounds)  # also the warm-up: pages touched, code loaded
    ones, twos = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        lookups(table, idx, rounds)
        ones.append(time.perf_counter() - t0)
        twos.append(_two_at_once(lookups, table, idx, rounds))
    pace = _pace(lookups, table, idx, rounds, min(ones))
    return {"total": int(total), "one_s": min(ones), "two_s": min(twos), "pace": pace}


def _call_pair(out: Path) -> dict:
    """Calls pycc_pair.pair_sum with a named tuple (3, 4): whether 7 comes back."""
    from collections import namedtuple

    try:
        got = _import(out, "pycc_pair").pair_sum(namedtuple("Pair", "a b")(3, 4))
    except Exception as e:  # as in _build_pycc_pair: the error is the finding
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    return {"value": int(got)}


BUILDERS = {"pycc": _build_pycc, "cython": _build_cython, "c": _build_c}


def _child(args: argparse.Namespace) -> None:
    """Runs one child's job and writes its answer as JSON to ``--result``."""
    out = Path(args.dir)
    if args.child == "build":
        answer = BUILDERS[args.means](out)
    elif args.child == "calibrate":
        answer = _calibrate(out, MODULE[args.means])
    elif args.child == "time":
        answer = _time_calls(out, MODULE[args.means], args.rounds)
    else:
        answer = _call_pair(out)
    Path(args.result).write_text(json.dumps(answer))


# --- the parent ------------------------------------------------------------------------------


def _run_child(job: str, means: str, out: Path, rounds: int = 0) -> dict:
    """Runs this script as a child for ``job``; its JSON answer, or ``failed`` with the tail
    of its output (a build that fails is a finding, not a reason to stop)."""
    result = out / f"{job}-{means}.json"
    cmd = [sys.executable, __file__, "--child", job, "--means", means, "--dir", str(out)]
    cmd += ["--rounds", str(rounds), "--result", str(result)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not result.exists():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-8:]
        return {"failed": "\n".join(tail)}
    return json.loads(result.read_text())


def _environment(out: Path) -> dict:
    """The environment of an import child: the build directory first on sys.path."""
    path = os.pathsep.join(p for p in (str(out), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def _process_seconds(code: str, env: dict) -> float:
    """Wall seconds of a whole ``python -c code`` process."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - t0


def _import_times(out: Path, module: str, runs: int) -> tuple[float, float]:
    """Medians of ``runs`` cold imports of ``module`` and of numpy, alternating (the same
    environment for both, so that only the import differs)."""
    env = _environment(out)
    for code in (f"import {module}", "import numpy"):  # untimed: files into the page cache
        _process_seconds(code, env)
    mine, numpy = [], []
    for r in range(runs):
        pair = [(mine, f"import {module}"), (numpy, "import numpy")]
        for into, code in pair if r % 2 == 0 else reversed(pair):
            into.append(_process_seconds(code, env))
    return statistics.median(mine), statistics.median(numpy)


def _pulled_in(out: Path, module: str) -> list[str]:
    """Which of numba, llvmlite and numpy importing ``module`` leaves in sys.modules."""
    code = (
        f"import sys, {module}; "
        "print(' '.join(m for m in ('numba', 'llvmlite', 'numpy') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=_environment(out), capture_output=True, text=True
    )
    return proc.stdout.split()


def _measure(means: str, out: Path, rounds: int, runs: int) -> dict:
    """Everything measured of one built module."""
    module = MODULE[means]
    row = _run_child("time", means, out, rounds)
    if "failed" in row:
        sys.exit(f"{means}: the calls failed:\n{row['failed']}")
    row["import_s"], row["numpy_s"] = _import_times(out, module, runs)
    row["pulled_in"] = _pulled_in(out, module)
    return row


def _cell_pulled(pulled: list[str], names: tuple[str, ...]) -> str:
    found = [n for n in names if n in pulled]
    return ", ".join(found) if found else "no"


def _print_table(builds: dict, rows: dict, rounds: int, runs: int) -> None:
    """The markdown table, one row a means, and the notes below it."""
    print(
        f"1<<{TABLE_SIZE.bit_length() - 1} bytes, 1<<{INDEX_COUNT.bit_length() - 1} indices, "
        f"{rounds} rounds a call; imports: median of {runs} runs; calls: best of 3"
    )
    print(
        "| means | build s | import s | `import numpy` s | ratio | numba/llvmlite | numpy "
        "| one call s | 2 threads / 1 | pace beside |"
    )
    print("|---|---:|---:|---:|---:|---|---|---:|---:|---:|")
    for means in MEANS:
        b = builds[means]
        if "missing" in b or "failed" in b:
            state = "not installed" if "missing" in b else "build failed"
            print(f"| {means} | {state} |" + " |" * 8)
            continue
        r = rows[means]
        print(
            f"| {means} | {b['build_s']:.2f} | {r['import_s']:.3f} | {r['numpy_s']:.3f} "
            f"| {r['import_s'] / r['numpy_s']:.2f} "
            f"| {_cell_pulled(r['pulled_in'], ('numba', 'llvmlite'))} "
            f"| {_cell_pulled(r['pulled_in'], ('numpy',))} "
            f"| {r['one_s']:.3f} | {r['two_s'] / r['one_s']:.2f} | {r['pace']:.0%} |"
        )


def _print_notes(builds: dict, out: Path) -> None:
    """What the table cannot hold: failures, pycc's warnings and its named tuple answer."""
    for means in MEANS:
        b = builds[means]
        if "missing" in b:
            print(f"- {means}: not installed ({b['missing']})")
        elif "failed" in b:
            print(f"- {means}: the build failed:\n```\n{b['failed']}\n```")
    pycc = builds["pycc"]
    if "build_s" not in pycc:
        return
    for warning in pycc["warnings"]:
        print(f"- pycc warned: {warning}")
    if pycc["pair_build_error"]:
        print(f"- pycc named tuple argument: no ({pycc['pair_build_error']})")
        return
    call = _run_child("pair", "pycc", out / "pycc")
    if call.get("value") == 7:
        print("- pycc named tuple argument: yes (pair_sum(Pair(3, 4)) == 7)")
    else:
        error = call.get("error") or call.get("failed") or f"returned {call.get('value')}"
        print(f"- pycc named tuple argument: no (compiles, but the call: {error})")


def _bench(args: argparse.Namespace, work: Path) -> None:
    """Builds the three, checks their totals agree, measures them and prints the table."""
    builds = {}
    for means in MEANS:
        out = work / means
        out.mkdir(parents=True, exist_ok=True)
        builds[means] = _run_child("build", means, out)
        b = builds[means]
        state = (
            f"{b['build_s']:.2f} s" if "build_s" in b else "missing" if "missing" in b else "failed"
        )
        print(f"built {means}: {state}", file=sys.stderr)
    if "build_s" not in builds["c"]:
        sys.exit(f"the C extension did not build (is there a C compiler?):\n{builds['c']}")
    rounds = _run_child("calibrate", "c", work / "c")["rounds"]
    rows = {m: _measure(m, work / m, rounds, args.runs) for m in MEANS if "build_s" in builds[m]}
    totals = {m: r["total"] for m, r in rows.items()}
    assert len(set(totals.values())) == 1, f"the totals differ: {totals}"
    _print_table(builds, rows, rounds, args.runs)
    print(f"\nEvery module returned {next(iter(totals.values())):,}.")
    _print_notes(builds, work)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11, help="imports of each (median; default 11)")
    ap.add_argument("--keep", metavar="DIR", help="build in DIR and keep it (default: a temp dir)")
    # The children's arguments: this script runs itself for every build and measurement.
    for name in ("--child", "--means", "--dir", "--result"):
        ap.add_argument(name, help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args)
    elif args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        _bench(args, Path(args.keep).resolve())
    else:
        with tempfile.TemporaryDirectory(prefix="aot-means-") as tmp:
            _bench(args, Path(tmp))


if __name__ == "__main__":
    main()
