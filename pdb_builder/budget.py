"""What a build will cost in memory and disk, checked before it starts (builder layer).

A build that cannot fit must be refused in one line before any work, not die of a
``MemoryError`` (or the kernel's OOM killer) an hour in: a 15-tile pattern on 4x4 would need
a table of 16!/1! = 21 trillion entries.  The memory model of each builder lives here, next to
the numbers it is checked against:

* exact tables (:mod:`solver.tables.exact_bfs`): per goal cell a uint8 table of ``N!`` entries and an int64
  queue of half of them; one cell's search is alive at a time;
* pattern tables: one pattern's search is alive at a time, its finished table written straight
  away.  Which search a pattern gets is :func:`pdb_builder.pattern_bfs.uses_region`'s choice,
  and :func:`pdb_builder.pattern_bfs.pattern_bytes` prices it with one of the two models here:
  :func:`region_bytes` (:mod:`.region_bfs`: a byte a (placement, blank region) state, plus a
  table of ``N!/(N-k)!`` placements while they are folded) or :func:`placement_bytes`
  (the placement BFS: per placement a uint8 distance and a 32-bit (boards of up to 16 cells)
  or 64-bit word of blank regions).

Memory available is the smallest of ``MemAvailable`` (``/proc/meminfo``), the cgroup's limit
less its usage, and the address-space limit (``ulimit -v``); disk is the free space of the data
directory, all of the new file (the old one stays until the new one is renamed over it).

Also the peak memory a finished build reports (:func:`peak_rss_mb`), kept here, below every
builder, so that none of them imports another for it.

Imports: the standard library only.
"""

from __future__ import annotations

import math
import resource
import shutil
from pathlib import Path

SLACK = 1.25  # allocator and library overhead on top of the arrays counted
FIXED = 200 << 20  # the interpreter, numpy and h5py themselves
FILE_OVERHEAD = 1 << 20  # HDF5 metadata per file, generously


class BudgetError(ValueError):
    """A build that would not fit in memory or on disk (bad request: exit 2)."""


def exact_cost(n: int) -> tuple[int, int]:
    """(peak memory, disk) in bytes for the exact tables of a board of ``n`` cells."""
    entries = math.factorial(n)
    memory = entries + 8 * (entries // 2 + 1)
    return FIXED + int(SLACK * memory), n * entries + FILE_OVERHEAD


def placement_bytes(n: int, k: int, classes: int = 1) -> int:
    """Bytes of the arrays of the placement BFS (:func:`pdb_builder.pattern_bfs.bfs_pattern`'s
    own search) of k tiles on ``n`` cells, with ``classes`` distances a placement (2:
    zero-aware, the pairs kept beside the search's, their minimum to check them and the packed
    bytes: :func:`pdb_builder.zero_aware.pack_classes`)."""
    word = 4 if n <= 16 else 8
    extra = 2 * classes + 1 if classes > 1 else 0
    return math.perm(n, k) * (1 + word + extra)


def region_bytes(n: int, k: int, entries: int, classes: int = 1) -> int:
    """Peak bytes of the region BFS (:mod:`pdb_builder.region_bfs`) of k tiles on ``n`` cells
    whose search has ``entries`` states (``region_bfs.entry_count``, one byte each): the
    entries and one table of placements while they are folded (a twin: its packed bytes, then
    the additive table taken from them once the entries are freed), plus the plan (per set of
    k cells its mask, offset and a label a cell; the permutations' move table)."""
    placements = math.perm(n, k)
    plan = math.comb(n, k) * (16 + n) + 2 * k * k * math.factorial(k)
    return max(entries + placements, 2 * placements if classes > 1 else 0) + plan


def partition_cost(n: int, sizes: list[int], peaks: list[int]) -> tuple[int, int]:
    """(peak memory, disk) in bytes for pattern tables of ``sizes`` tiles on ``n`` cells whose
    searches peak at ``peaks`` bytes of arrays each (one alive at a time; a byte a placement
    on disk)."""
    disk = sum(math.perm(n, k) for k in sizes) + FILE_OVERHEAD
    return FIXED + int(SLACK * max(peaks)), disk


def pattern_cost(n: int, sizes: list[int], classes: int = 1) -> tuple[int, int]:
    """(peak memory, disk) in bytes for pattern tables of ``sizes`` tiles on ``n`` cells, all
    built by the placement BFS (:func:`placement_bytes`), with ``classes`` distances a
    placement (2: zero-aware tables, stored packed into one byte a placement)."""
    return partition_cost(n, sizes, [placement_bytes(n, k, classes) for k in sizes])


def available_memory() -> int | None:
    """Bytes this process can still allocate (None when nothing says)."""
    limits = []
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    limits += _cgroup_room()
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limits.append(soft)
    return min(limits) if limits else None


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB): the figure
    every build's summary row reports."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cgroup_room() -> list[int]:
    base = Path("/sys/fs/cgroup")
    try:
        limit = (base / "memory.max").read_text().strip()
        used = int((base / "memory.current").read_text().strip())
    except (OSError, ValueError):
        return []
    return [] if limit == "max" else [int(limit) - used]


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} PB"


def check(what: str, cost: tuple[int, int], directory: Path) -> str:
    """Raise :class:`BudgetError` when ``cost`` (peak memory, disk) will not fit; else return
    the line that says what it needs (``<what> needs about 8.3 GB of memory (24.0 GB
    available) and 2.7 GB of disk``)."""
    memory, disk = cost
    room = available_memory()
    if room is not None and memory > room:
        raise BudgetError(
            f"{what} needs about {_size(memory)} of memory, only {_size(room)} "
            f"is available: use smaller patterns"
        )
    need = f"{what} needs about {_size(memory)} of memory" + (
        f" ({_size(room)} available)" if room is not None else ""
    )
    try:
        free = shutil.disk_usage(directory).free
    except OSError:
        return f"{need} and {_size(disk)} of disk"
    if disk > free:
        raise BudgetError(
            f"{what} needs about {_size(disk)} of disk, only {_size(free)} is free in {directory}"
        )
    return f"{need} and {_size(disk)} of disk ({_size(free)} free)"


__all__ = [
    "BudgetError",
    "check",
    "exact_cost",
    "partition_cost",
    "pattern_cost",
    "placement_bytes",
    "region_bytes",
    "available_memory",
    "peak_rss_mb",
]
