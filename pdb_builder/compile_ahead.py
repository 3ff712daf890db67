"""numba compiles the pattern searches' two layer kernels ahead, each in a process of its own,
while ``build-pdb`` goes on with other work (builder layer).

numba compiles a kernel the first time it is called with new argument types, and keeps it in
its on-disk cache (``cache=True``).  A pattern database's breadth-first search calls
:func:`pdb_builder.pattern_kernels.push_layer`, then ``pull_layer``, both for the word type of
the pattern's placements; on a fresh install the two compiles, one after the other on one core,
were most of the default ``build-pdb``
(docs/research/end-to-end.md, "The README's first command on a fresh clone").

:func:`start` runs, for each word type and each of the two kernels,
``python -m pdb_builder.compile_ahead WORD_TYPE KERNEL``: the search of one tile on a small
board with the same word type, every layer pulled (or every layer pushed), so numba compiles
that one kernel and writes it to its cache.  Meanwhile ``build-pdb`` builds the exact tables;
before its first pattern search it waits (:meth:`Ahead.wait`), and the search loads both
kernels from the cache.  Where they were cached already, each child only loads its kernel.

A child that fails, or that Ctrl-C stops, costs nothing but its time: the search compiles
whatever it does not find, as it would without it.  Its output goes nowhere.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

from solver.core.board import Shape

from .pattern_bfs import bfs_pattern, geometry

# Small boards, smallest first: one tile on the first with a word type is the search of it.
BOARDS = ("2x2", "3x4", "4x5")
KERNELS = ("pull", "push")  # pull first: its compile is the longer
QUIET = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def word_types(shape: Shape, sizes) -> set[str]:
    """The word types (numpy dtype names) of the placements of patterns of ``sizes`` tiles on
    ``shape``: the types the layer kernels are compiled for."""
    return {geometry(shape, k).word_type.__name__ for k in sizes}


class Ahead:
    """The children compiling the kernels; a context manager that stops those still running
    when the block is left early (an error, Ctrl-C)."""

    def __init__(self, children: list[subprocess.Popen]):
        self.children = children

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
    """Start one child per word type in ``types`` and kernel (see the module's docstring)."""
    # The children import this copy of the package, wherever the interpreter would find one.
    root = str(Path(__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH")))),
    }
    children = []
    for word_type in sorted(types):
        for kernel in KERNELS:
            command = [sys.executable, "-m", __name__, word_type, kernel]
            try:
                children.append(subprocess.Popen(command, env=env, **QUIET))
            except OSError:  # no interpreter to start (an embedded Python): the search compiles
                continue
    return Ahead(children)


def compile_kernel(word_type: str, kernel: str) -> None:
    """Make numba compile (or load) ``kernel`` (``pull`` or ``push``) for ``word_type``: the
    search of one tile on the smallest board of :data:`BOARDS` with that word type."""
    board = next(b for b in map(Shape.parse, BOARDS) if word_types(b, [1]) == {word_type})
    pull_when = math.inf if kernel == "pull" else 0.0
    bfs_pattern(board, (1,), progress=False, threads=1, pull_when=pull_when)


if __name__ == "__main__":
    compile_kernel(*sys.argv[1:3])
