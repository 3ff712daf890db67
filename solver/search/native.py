"""Which IDA* kernels a search runs: the ones compiled ahead of time (``solver.search._kernels_c``,
built from ``native_*.c`` at install time) where they are built and current, else none,
and the search runs numba's (:mod:`solver.search.kernels`) (layer 3: search).

The compiled module carries the CRC-32 of the sources it was built from; one built from another
version of them (a checkout moved on since ``pip install -e .``) is a miss, as is
one built for another Python (its file name says which: the import does not find it).
``NPUZZLE_KERNELS=jit`` always takes numba's kernels (for comparing the two), ``auto`` (the
default) the compiled ones where they can, ``native`` the compiled ones or an error (a test run
that must not fall back in silence).  Where they are not built, :func:`numba_kernels` imports
numba's, and :data:`JIT_NOTE` says once how to get the fast start (:func:`jit_note`).

Imports: the standard library and :mod:`solver.core.config` -- no numpy, and numba only in
:func:`numba_kernels`.
"""

from __future__ import annotations

import functools
import importlib
import zlib
from pathlib import Path
from typing import NamedTuple

from ..core import config

HERE = Path(__file__).parent
CHOICES = ("auto", "native", "jit")
# Said once by a command whose search runs numba's kernels because the compiled ones are not
# there (not when NPUZZLE_KERNELS=jit asks for numba's).
JIT_NOTE = (
    "the compiled search kernels are not built here (no C compiler at install?); searching"
    " with numba's JIT, slower to start: reinstall with a C compiler (pip install -e .)"
)


class Native(NamedTuple):
    """The compiled kernels, called exactly as :func:`solver.search.kernels.ida_pdb` and
    :func:`solver.search.kernels.ida_lc` are."""

    ida_pdb: object
    ida_lc: object


def source_digest(directory: Path = HERE) -> str | None:
    """The CRC-32 of the kernels' C sources and headers in ``directory``, read in order of their
    names, in hex (None where they are not installed): it tells a changed source, and needs no
    ``hashlib`` (OpenSSL's library) on the cold path."""
    try:
        files = sorted(f for f in directory.iterdir() if is_source(f))
        return f"{zlib.crc32(b''.join(f.read_bytes() for f in files)):08x}" if files else None
    except OSError:
        return None


def is_source(path: Path) -> bool:
    """Whether ``path`` is one of the C sources or headers the module is built from (setup.py
    compiles and digests the same files: ``native_*.c`` and ``native_*.h``)."""
    return path.name.startswith("native_") and path.suffix in (".c", ".h")


def load(module: str = "solver.search._kernels_c", source: Path = HERE) -> Native | None:
    """The kernels of the compiled ``module`` when it imports and was built from the sources in
    ``source`` as they are now (a module whose sources are not installed beside it is taken as
    built); else None."""
    try:
        compiled = importlib.import_module(module)
    except ImportError:
        return None
    want = source_digest(source)
    if want is not None and getattr(compiled, "SOURCE_DIGEST", None) != want:
        return None  # built from another version of the source: its kernels may differ
    return Native(compiled.ida_pdb, compiled.ida_lc)


@functools.cache
def kernels() -> Native | None:
    """The compiled kernels the searches of this process run, or None for numba's (once per
    process: ``NPUZZLE_KERNELS`` and the module are read the first time)."""
    choice = config.env_choice(config.ENV_KERNELS, CHOICES, "auto")
    if choice == "jit":
        return None
    found = load()
    if found is None and choice == "native":
        raise RuntimeError(
            f"{config.ENV_KERNELS}=native, but the compiled kernels are not built for this"
            " source and Python: pip install -e . with a C compiler builds them"
        )
    return found


def numba_kernels():
    """numba's kernels (:mod:`solver.search.kernels`), imported: what a search runs where
    :func:`kernels` is None.  The first call imports numba."""
    from . import kernels as jit

    return jit


def jit_note() -> str | None:
    """:data:`JIT_NOTE` where the searches of this process fall back to numba's kernels for
    want of compiled ones, else None (compiled kernels, or ``NPUZZLE_KERNELS=jit``)."""
    if kernels() is not None:
        return None
    return None if config.env_choice(config.ENV_KERNELS, CHOICES, "auto") == "jit" else JIT_NOTE
