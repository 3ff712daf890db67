"""Numba's JIT started lean (solver.core.numba_start): what it replaces is listed, a numba
that changed is used as it comes, and a cache left by an earlier release is a miss."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = "5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12"  # 9 moves, linear conflict: no database


def _solve(code: str) -> str:
    """What ``code`` prints, in a fresh interpreter."""
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ROOT, "NPUZZLE_KERNELS": "jit"},  # numba's, where it
        cwd=ROOT,  # starts lean: the compiled kernels import no numba
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_numba_has_what_the_lean_start_assumes():
    """The lean start replaces parts of numba that are not all public (numba_start.ASSUMED).
    A numba release that changed them fails here, by name, while searches still run: the
    lean start then steps aside (the next test)."""
    from solver.core import numba_start

    numba_start.import_numba()
    assert numba_start.missing_assumptions() == [], "numba changed: update numba_start.ASSUMED"


FALLBACK = (
    "from solver.core import numba_start\n"
    "numba_start.missing_assumptions = lambda: ['numba.core.caching:Cache.load_overload']\n"
    "from numba.core import caching\n"
    "plain = caching.Cache.load_overload\n"
    "import solver\n"
    f"sol = solver.solve({BOARD!r}, heuristic='linear-conflict')\n"
    "print(sol.length, sol.moves, caching.Cache.load_overload is plain)\n"
)


@pytest.mark.slow  # numba's search kernels, compiled: with --slow (tests/test_startup.py)
def test_a_numba_that_changed_is_used_as_it_comes():
    # Solved, with numba's own cache loads.
    assert _solve(FALLBACK) == "9 UUURRRDDD True\n"


KINDS = "import collections\nPair = collections.namedtuple('Pair', 'a b')\n"
KERNEL = "from numba import njit\n@njit(cache=True)\ndef total(p):\n    return p.a + p.b\n"
MAIN = (
    "from solver.core import numba_start\n"
    "numba_start.import_numba()\n"
    "from kern import total\n"
    "from {module} import Pair\n"
    "print(total(Pair(1, 2)))\n"
)


@pytest.mark.slow  # numba's search kernels, compiled: with --slow (tests/test_startup.py)
def test_a_cache_left_by_an_earlier_release_is_compiled_again(tmp_path):
    """A kernel cached with a named tuple whose class a later release moved to another module
    is compiled again, not an AttributeError from unpickling numba's stale index."""
    (tmp_path / "kinds.py").write_text(KINDS)
    (tmp_path / "kern.py").write_text(KERNEL)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), ROOT]),
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
    }

    def run(module: str) -> str:
        code = MAIN.format(module=module)
        r = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
        )
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout

    assert run("kinds") == "3\n"
    assert list((tmp_path / "cache").rglob("*.nbi")), "the kernel was not cached"
    # The class moves: the index names kinds.Pair, which no longer exists.
    (tmp_path / "moved.py").write_text(KINDS)
    (tmp_path / "kinds.py").write_text("")
    assert run("moved") == "3\n"
    assert run("moved") == "3\n"  # and the index written again is read
