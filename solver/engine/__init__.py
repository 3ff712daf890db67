"""The compiled engine: ``solver.engine._engine``, built from the C sources beside this file
at install time (layer 0, beside core).

Every loop that visits states runs here, one implementation of each: IDA*'s walks
(``search_kernels.c``, ``ida_pdb`` and ``ida_lc``), the pattern databases' and their
zero-aware twins' breadth-first searches (``pattern_*.c``) and the exact tables'
(``exact_*.c``).  Each part has its own method table; ``module.c`` joins them.  Arrays arrive
through Python's buffer protocol (no numpy C API: a mapped file or a bytes object serves as
well as an array), each checked on entry by one checker (``buffers.c``), and the loops run
with the GIL released, so Python's threads share one table.

The module carries the CRC-32 of the sources it was built from; one built from another version
of them (a checkout moved on since ``pip install -e .``) is refused, as one built for another
Python is (the import does not find it).

Imports: the standard library only.
"""

from __future__ import annotations

import functools
import importlib
import zlib
from pathlib import Path

HERE = Path(__file__).parent
MODULE = "solver.engine._engine"
REBUILD = "reinstall npuzzle with a C compiler (pip install -e .)"


class EngineMissing(RuntimeError):
    """The compiled engine is not built for these sources and this Python."""


def is_source(path: Path) -> bool:
    """Whether ``path`` is one of the C sources or headers the engine is built from (setup.py
    compiles and digests the same files)."""
    return path.suffix in (".c", ".h")


def source_digest(directory: Path = HERE) -> str | None:
    """The CRC-32 of the C sources and headers in ``directory``, read in order of their names,
    in hex (None where they are not installed)."""
    try:
        files = sorted(f for f in directory.iterdir() if is_source(f))
        return f"{zlib.crc32(b''.join(f.read_bytes() for f in files)):08x}" if files else None
    except OSError:
        return None


def load(module: str = MODULE, source: Path = HERE):
    """The compiled ``module`` when it imports and was built from the sources in ``source`` as
    they are now (a module whose sources are not installed beside it is taken as built); else
    raises :class:`EngineMissing` saying which."""
    try:
        compiled = importlib.import_module(module)
    except ImportError as e:
        raise EngineMissing(f"npuzzle's compiled engine is not built ({e}): {REBUILD}") from None
    want = source_digest(source)
    if want is not None and getattr(compiled, "SOURCE_DIGEST", None) != want:
        raise EngineMissing(
            f"npuzzle's compiled engine was built from other sources than these: {REBUILD}"
        )
    return compiled


@functools.cache
def engine():
    """The engine this process runs (loaded and checked once)."""
    return load()
