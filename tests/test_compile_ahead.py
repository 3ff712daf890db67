"""numba compiles the pattern searches' layer kernels ahead (``pdb_builder.compile_ahead``):
``push_layer`` in the calling process, ``pull_layer`` in a child where the cache was empty.
The search that follows compiles neither, and a child that fails or is stopped changes
nothing but the time."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pdb_builder import compile_ahead
from pdb_builder.pattern_bfs import bfs_pattern
from solver.core.board import Shape

ROOT = Path(__file__).resolve().parent.parent


def test_the_word_types_of_the_databases_builds_make():
    assert compile_ahead.word_types(Shape(4, 4), [6, 6, 3]) == {"uint32"}
    assert compile_ahead.word_types(Shape(4, 4), [7, 8]) == {"uint32", "uint16"}
    assert compile_ahead.word_types(Shape(5, 5), [6, 6, 6, 6]) == {"uint64"}
    assert compile_ahead.word_types(Shape(4, 4), []) == set()


def test_every_word_type_has_a_small_board():
    """Any pattern of any board the builder takes has a word type one of BOARDS gives."""
    small = {t for b in compile_ahead.BOARDS for t in compile_ahead.word_types(Shape.parse(b), [1])}
    wanted = set()
    for shape in ("2x3", "3x3", "3x4", "4x4", "4x5", "5x5"):
        s = Shape.parse(shape)
        wanted |= compile_ahead.word_types(s, range(1, min(s.size, 9)))  # up to 8 tiles
    assert wanted <= small


def test_a_child_that_fails_changes_nothing_and_leaving_early_stops_it():
    ahead = compile_ahead.Ahead([compile_ahead._spawn("no-such-type", "pull")])
    ahead.wait()
    assert len(ahead.children) == 1 and ahead.children[0].returncode != 0

    with (
        pytest.raises(RuntimeError),
        compile_ahead.Ahead([compile_ahead._spawn("uint16", "pull")]) as ahead,
    ):
        raise RuntimeError("a build failed")
    assert ahead.children[0].returncode is not None


def test_no_types_start_nothing():
    with compile_ahead.start(set()) as ahead:
        ahead.wait()
    assert ahead.children == []


# In a fresh numba cache: push_layer is compiled here and pull_layer by the child, then this
# process's search of a 3x3 pattern (uint16 words, as the 2x2 of compile_ahead) compiles
# neither.  The compile of a function of its own shows that the listener hears compiles.  Once
# the cache has both, start() starts no child.
FRESH = r"""
import json
import numba
from numba.core import event
from pdb_builder import compile_ahead
from pdb_builder.pattern_bfs import bfs_pattern

compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        pass

with compile_ahead.start({"uint16"}) as ahead:
    ahead.wait()
codes = [child.returncode for child in ahead.children]
event.register("numba:compile", Compiles())
r = bfs_pattern("3x3", (1, 2, 3, 4), progress=False)
numba.njit(lambda x: x + 1)(1)
again = compile_ahead.start({"uint16"})
print(json.dumps({"codes": codes, "compiled": compiled, "table": r.table.tolist(),
                  "again": len(again.children)}))
"""


@pytest.mark.slow
def test_the_search_after_compiles_neither_kernel(tmp_path):
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "PYTHONPATH": str(ROOT),
    }
    run = subprocess.run(
        [sys.executable, "-c", FRESH], env=env, capture_output=True, text=True, check=True
    )
    out = json.loads(run.stdout.splitlines()[-1])
    assert out["codes"] == [0]  # one child, for pull_layer, and it compiled it
    assert "<lambda>" in out["compiled"]  # the listener hears compiles
    assert "push_layer" not in out["compiled"] and "pull_layer" not in out["compiled"]
    assert out["again"] == 0
    here = bfs_pattern("3x3", (1, 2, 3, 4), progress=False)
    assert np.array_equal(np.array(out["table"], np.uint8), here.table)
