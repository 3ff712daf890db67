"""numba compiles the pattern searches' second layer kernel ahead, in a process of its own,
while ``build-pdb`` goes on with other work (builder layer).

numba compiles a kernel the first time it is called with new argument types, and keeps it in
its on-disk cache (``cache=True``).  A pattern database's breadth-first search calls
:func:`pdb_builder.pattern_kernels.push_layer`, then ``pull_layer``, both for the word type of
the pattern's placements; on a fresh install the two compiles, one after the other on one core,
were most of the default ``build-pdb``
(docs/research/end-to-end.md, "Building the databases").

:func:`start` takes, for each word type a build needs, ``push_layer`` first, here: the search of
one tile on a small board with the same word type, every layer pushed.  Where numba had to
compile it, its cache was empty, and a child, ``python -m pdb_builder.compile_ahead WORD_TYPE
pull``, does the same with every layer pulled, so that numba compiles ``pull_layer`` and writes
it to its cache while ``build-pdb`` builds the exact tables.  Before its first pattern search
``build-pdb`` waits for the child (:meth:`Ahead.wait`), and the search loads both kernels from
the cache.  Where they were cached, no child is started: a rebuild costs about what it did.

A child that fails, or that Ctrl-C stops, costs nothing but its time: the search compiles
whatever it does not find, as it would without it.  Its output goes nowhere.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

from numba.core import event

from solver.core.board import Shape

from . import pattern_kernels
from .pattern_bfs import bfs_pattern, geometry

# Small boards, smallest first: one tile on the first with a word type is the search of it.
BOARDS = ("2x2", "3x4", "4x5")
QUIET = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def word_types(shape: Shape, sizes) -> set[str]:
    """The word types (numpy dtype names) of the placements of patterns of ``sizes`` tiles on
    ``shape``: the types the layer kernels are compiled for."""
    return {geometry(shape, k).word_type.__name__ for k in sizes}


class Ahead:
    """The children compiling the kernels; a context manager that stops those still running
    when the block is left early (an error, Ctrl-C)."""

    def __init__(self, children: list[subprocess.Popen | None]):
        self.children = [child for child in children if child is not None]

    def wait(self) -> None:
        """Wait until every child has ended, however it ended."""
        for child in self.children:
            child.wait()

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc) -> None:
        for child in self.children:
            if child.poll() is None:
                child.terminate()
        self.wait()


def start(types) -> Ahead:
    """For each word type in ``types``, ``push_layer`` here and, where numba had to compile it,
    a child that compiles ``pull_layer`` (see the module's docstring)."""
    return Ahead([_spawn(t, "pull") for t in sorted(types) if compile_kernel(t, "push")])


def _spawn(word_type: str, kernel: str) -> subprocess.Popen | None:
    """A child that runs :func:`compile_kernel` (None where none can start: an embedded Python
    has no interpreter to start, and the search compiles the kernel itself)."""
    # The child imports this copy of the package, wherever the interpreter would find one.
    root = str(Path(__file__).resolve().parent.parent)
    path = os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))
    command = [sys.executable, "-m", __name__, word_type, kernel]
    try:
        return subprocess.Popen(command, env={**os.environ, "PYTHONPATH": path}, **QUIET)
    except OSError:
        return None


def compile_kernel(word_type: str, kernel: str) -> bool:
    """Make numba compile (or load) ``kernel`` (``pull`` or ``push``) for ``word_type``: the
    search of one tile on the smallest board of :data:`BOARDS` with that word type.  Return
    whether numba compiled it (its on-disk cache did not have it)."""
    board = next(b for b in map(Shape.parse, BOARDS) if word_types(b, [1]) == {word_type})
    dispatcher = pattern_kernels.pull_layer if kernel == "pull" else pattern_kernels.push_layer
    pull_when = math.inf if kernel == "pull" else 0.0
    # numba's event API, for applications: a compile is broadcast, a load from the cache not.
    with event.install_recorder("numba:compile") as compiles:
        bfs_pattern(board, (1,), progress=False, threads=1, pull_when=pull_when)
    return any(ev.data["dispatcher"] is dispatcher for _, ev in compiles.buffer)


if __name__ == "__main__":
    compile_kernel(*sys.argv[1:3])
