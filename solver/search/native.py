"""The IDA* kernels: ``solver.search._kernels_c``, compiled from ``native_*.c`` at install time
(layer 3: search).

The compiled module carries the CRC-32 of the sources it was built from; one built from another
version of them (a checkout moved on since ``pip install -e .``) is refused, as one built for
another Python is (its file name says which: the import does not find it).

Imports: the standard library and :mod:`solver.engine` -- no numpy.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from ..engine import load as load_engine

HERE = Path(__file__).parent
MODULE = "solver.search._kernels_c"


class Native(NamedTuple):
    """The compiled kernels: ``ida_pdb`` (the pattern databases' walk) and ``ida_lc``
    (Manhattan distance and linear conflict)."""

    ida_pdb: object
    ida_lc: object


def is_source(path: Path) -> bool:
    """Whether ``path`` is one of the C sources or headers the module is built from (setup.py
    compiles and digests the same files: ``native_*.c`` and ``native_*.h``)."""
    return path.name.startswith("native_") and path.suffix in (".c", ".h")


def load(module: str = MODULE, source: Path = HERE) -> Native:
    """The kernels of the compiled ``module``, built from the sources in ``source`` as they are
    now; raises :class:`solver.engine.EngineMissing` where it is not built for them."""
    compiled = load_engine(module, source, is_source)
    return Native(compiled.ida_pdb, compiled.ida_lc)


@functools.cache
def kernels() -> Native:
    """The compiled kernels the searches of this process run (loaded and checked once)."""
    return load()
