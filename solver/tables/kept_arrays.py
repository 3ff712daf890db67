"""Arrays that take long to make and never change for their name, kept in npuzzle's cache
directory (layer 1: tables): the pruning machines and the zero-aware search's region tables.

A kept array is one file, ``<name>.arr``: a line ``npuzzle-array <dtype> <shape> <crc32>``,
then the array's bytes.  It is read back only where the bytes match the checksum -- a damaged
machine or region table could prune a shortest path or overstate a distance, so it is made
again instead -- and written under a temporary name, then renamed into place.  A name says
everything the array depends on (the maker's format version among it).  Best effort: a cache
directory that cannot be read or written only means making the array again.  Reading one is
a file read and a CRC-32 (``zlib``: damage, not forgery, is what it guards against), where
``np.load`` of an ``.npz`` would import ``zipfile`` and ``hashlib`` OpenSSL's library.

Imports: numpy, the standard library, :mod:`solver.core.interrupts`, :mod:`.trust`.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core import interrupts
from . import trust

MAGIC = b"npuzzle-array"


def kept(name: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    """The array kept under ``name``, or ``make()``'s, kept for later processes.  Read-only."""
    path = path_of(name)
    array = read(path)
    if array is None:
        array = np.ascontiguousarray(make())
        write(path, array)
    array.setflags(write=False)
    return array


def path_of(name: str) -> Path:
    """Where the array ``name`` is kept."""
    return trust.cache_dir() / f"{name}.arr"


def read(path: Path) -> np.ndarray | None:
    """The array kept at ``path``, or None where there is none or its bytes are not the ones
    that were written."""
    try:
        data = path.read_bytes()
        header, body = data.split(b"\n", 1)
        magic, dtype, shape, check = header.split(b" ")
        if magic != MAGIC or _crc(body).encode() != check:
            return None
        dims = tuple(int(d) for d in shape.split(b",") if d)
        return np.frombuffer(body, np.dtype(dtype.decode())).reshape(dims)
    except (OSError, ValueError, TypeError):
        return None


def _crc(data: bytes) -> str:
    return f"{zlib.crc32(data):08x}"


def write(path: Path, array: np.ndarray) -> None:
    """Keep ``array`` at ``path``, whole or not at all (best effort)."""
    body = array.tobytes()
    shape = ",".join(str(d) for d in array.shape)
    header = f"{MAGIC.decode()} {array.dtype.str} {shape} {_crc(body)}\n"
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with contextlib.suppress(OSError), interrupts.temporary(tmp):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(header.encode() + body)
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
