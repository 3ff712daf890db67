"""Keeping freed memory for the next chunk of a batch (layer 0: core).

A batch answers its input a chunk at a time with numpy arrays of a few MB, freed when the
chunk is done.  glibc's malloc serves allocations above its mmap threshold (128 KiB at first,
growing to at most 32 MiB) with fresh mappings and gives them back to the kernel when they are
freed, so every chunk faults in fresh zeroed pages again: 0.3 s of kernel time per million
JSON lines, a quarter of the whole batch (measured with ``distance -``).  Raising the mmap and
trim thresholds keeps those pages in the heap for the next chunk; memory stays bounded (at
most :data:`TRIM_THRESHOLD` of freed memory is kept).

Imports: the standard library only.
"""

from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's mallopt parameters
MMAP_THRESHOLD = 64 << 20  # allocations below this come from the heap, and are reused
TRIM_THRESHOLD = 128 << 20  # freed memory kept before the heap is trimmed
TOP_PAD = 16 << 20  # extra asked of the kernel each time the heap grows

_kept = False


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep freed memory for reuse (see the module's docstring); return
    whether it agreed.  Elsewhere (another C library, another system) nothing changes."""
    global _kept
    if _kept:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):  # musl and others have no mallopt
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    settings = (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
        (M_TOP_PAD, TOP_PAD),
    )
    _kept = all(mallopt(param, value) == 1 for param, value in settings)
    return _kept


__all__ = ["keep_freed_memory"]
