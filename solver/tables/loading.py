"""How a proven database file reaches memory: mapped, mapped and pre-faulted, or read into
anonymous memory backed by huge pages (layer 1: tables).

A search looks its tables up at random.  The 550 MB of the 4x4 7-8 database hold 134,000 pages
of 4 KB.  A plain memory mapping pays a page fault the first time each page is touched --
*during* the search.  Pre-faulting the mapping (``MAP_POPULATE``) builds all the page-table
entries before the search, from the page cache, in about 0.1 s.  Reading the file into private
anonymous memory advised ``MADV_HUGEPAGE`` (what the C reference does) gives 2 MB pages: far
fewer TLB misses, which is what a search that prefetches its lookups waits for (the kernels do,
:mod:`solver.search.prefetch`): Korf's 100 (7-8 + reflection) took 0.43 s of search read
against 0.58-0.64 s populated, and the whole process was no slower despite the copy (1.25-1.31
s against 1.47-1.64 s; see docs/research/end-to-end.md, "How tables reach memory").  Reading
can cost the kernel's compaction when memory is fragmented (0.4-2.5 s measured on some days),
so a single board, which touches a few dozen entries, maps, and a batch of lookups
(``heuristic -``: 300,000 boards in 1.7 s populated, 2.3-2.6 s read) populates.

Where the kernel keeps a file in the page cache in 2 MB folios (Linux 6 with large folios on
ext4 or xfs), a mapping can take them as they are, and the huge pages of a read come without
the copy: Korf's 100 over the 7-8 twin took 0.65 s whole against 0.84 s read in (the same
research record, "Tables in the page cache's huge pages").  ``read`` therefore maps first and
reads only where the mapping comes in small pages.

The rule (:func:`choose`), overridable by ``--load`` or ``$NPUZZLE_LOAD``:

========= ====================================================================================
``map``      memory-map the file: nothing is read until used (one board, any lookup)
``populate`` map and fault every page in now (``MAP_POPULATE``)
``read``     the file in 2 MB pages: mapped where the page cache holds it in 2 MB pages
             (:func:`_mapped_in_huge_pages`), else read into private anonymous memory
             advised ``MADV_HUGEPAGE``
``auto``     for a batch (``-`` on stdin, a ``--jobs`` pool): ``read`` if it searches
             (``solve``, ``hint``), ``populate`` if it looks up (``heuristic``, ``distance``, ...),
             and files smaller than :data:`SMALL_FILE` read (a few page faults saved);
             ``map`` for one board, whatever the size (a lookup touches one page of the 3 MB
             exact 3x3 file, and a search over 6-6-3 took as long mapped as read)
========= ====================================================================================

Forked ``--jobs`` workers share the pages either way: a mapping shares the page cache, and
anonymous memory is mapped private, so that workers forked after the tables are loaded share
its pages copy-on-write (they never write): ``--jobs N`` holds one copy, not N.

Imports: numpy, the standard library, :mod:`solver.core.config`.
"""

from __future__ import annotations

import mmap
import os
import threading
from pathlib import Path

import numpy as np

from ..core import config

MODES = ("auto", "map", "populate", "read")
# What auto means for a batch of lookups and for a batch of searches (measured: see above).
BATCH_MODE = "populate"
SEARCH_BATCH_MODE = "read"
SMALL_FILE = 1 << 24  # 16 MiB: the exact tables and the 6-6-3 database; a batch reads them
_READ_STEP = 1 << 26  # read in 64 MiB slices (a short read from a pipe-like file is retried)
_PREADV = hasattr(os, "preadv")  # reading at an offset, so that threads share one file
_HUGE_PAGE = 1 << 21  # 2 MB: what a page-table entry of the level above maps
_ROLLUP = "/proc/self/smaps_rollup"  # Linux 4.14+: this process's memory, summed

_batch = False  # set by a batch command
_searches = False  # set by a batch command whose lines are searches
_override: str | None = None  # set by --load


def prefer(
    mode: str | None = None, *, batch: bool | None = None, searches: bool | None = None
) -> None:
    """Set this process's rule: ``mode`` (one of :data:`MODES`, from ``--load``), whether it
    answers a batch (``auto`` then populates) and whether the batch's lines are searches
    (``auto`` then reads).  Call before the first table is opened."""
    global _override, _batch, _searches
    if mode is not None:
        if mode not in MODES:
            raise ValueError(f"unknown load mode '{mode}': use {', '.join(MODES)}")
        _override = None if mode == "auto" else mode
    if batch is not None:
        _batch = batch
    if searches is not None:
        _searches = searches


def choose(size: int, mode: str | None = None) -> str:
    """The concrete mode (``map``, ``populate`` or ``read``) for a file of ``size`` bytes:
    ``mode`` when given, else ``--load``, else ``$NPUZZLE_LOAD``, else the auto rule."""
    asked = mode or _override or config.env_choice(config.ENV_LOAD, MODES, "auto")
    if asked != "auto":
        return asked
    if not _batch:
        return "map"
    if size <= SMALL_FILE:
        return "read"
    return SEARCH_BATCH_MODE if _searches else BATCH_MODE


def load(path: Path, size: int, mode: str) -> np.ndarray:
    """The first ``size`` bytes of ``path`` as a read-only uint8 array, brought into memory
    the way ``mode`` says.  Raises OSError when the file cannot be read (the caller reports
    it as a damaged database)."""
    if size == 0:
        return np.zeros(0, dtype=np.uint8)
    if mode == "read":
        mapped = _mapped_in_huge_pages(path, size)
        return mapped if mapped is not None else _read_anonymous(path, size)
    return _map(path, size, populate=mode == "populate")


def _map(path: Path, size: int, populate: bool) -> np.ndarray:
    populating = getattr(mmap, "MAP_POPULATE", 0) if populate else 0
    mm = _mapping(path, size, populating)
    if populate and not populating:
        _advise(mm, "MADV_WILLNEED")
    return _readonly(np.frombuffer(mm, dtype=np.uint8))


def _mapping(path: Path, size: int, flags: int = 0) -> mmap.mmap:
    """The first ``size`` bytes of ``path`` mapped shared and read-only (with ``flags``)."""
    with open(path, "rb") as fh:
        return mmap.mmap(fh.fileno(), size, flags=mmap.MAP_SHARED | flags, prot=mmap.PROT_READ)


def _mapped_in_huge_pages(path: Path, size: int) -> np.ndarray | None:
    """The file mapped and faulted in, where the page cache holds it in 2 MB pages and the
    mapping takes them as they are (Linux with large folios in the page cache: the huge pages
    of a read without the copy); None where it does not, or where that cannot be told, and
    the caller reads.  One 2 MB piece in the middle is faulted in first, to see (a file's
    first pages may come in small ones even where the rest does not)."""
    before = _pmd_mapped_kb()
    if before is None or size < 4 * _HUGE_PAGE:
        return None
    try:
        mm = _mapping(path, size)
    except (OSError, ValueError):  # the read says what is wrong (e.g. a short file)
        return None
    _advise(mm, "MADV_HUGEPAGE")  # a file not in the page cache comes in 2 MB pieces
    middle = _huge_page_near(mm, size // 2)

    def gained() -> int:  # bytes mapped in 2 MB pages since the mapping was made
        return ((_pmd_mapped_kb() or 0) - before) << 10

    try:
        mm.madvise(MADV_POPULATE_READ, middle, _HUGE_PAGE)
        if gained() >= _HUGE_PAGE:
            mm.madvise(MADV_POPULATE_READ)
            # The lookups that land in small pages cost the search about 13 % on Korf's 100
            # with all of them small; a read costs 0.1-1 s.  Under half in 2 MB pages, the
            # read pays.
            if gained() >= size // 2:
                return _readonly(np.frombuffer(mm, dtype=np.uint8))
    except (OSError, ValueError):  # an older kernel
        pass
    mm.close()
    return None


def _huge_page_near(mm: mmap.mmap, offset: int) -> int:
    """The offset in ``mm`` of the first 2 MB boundary of memory at or after ``offset``."""
    probe = np.frombuffer(mm, dtype=np.uint8, count=1)
    address = probe.__array_interface__["data"][0]
    del probe  # no view may outlive the probe: a mapping with one cannot be closed
    return offset + (-(address + offset) % _HUGE_PAGE)


def _pmd_mapped_kb() -> int | None:
    """How many kB of files this process maps in 2 MB pages (``FilePmdMapped`` of
    ``/proc/self/smaps_rollup``); None where the system does not say."""
    try:
        with open(_ROLLUP, "rb") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith(b"FilePmdMapped:"):
            return int(line.split()[1])
    return None


def _read_anonymous(path: Path, size: int) -> np.ndarray:
    # Private, so that forked workers share the pages copy-on-write (and so that the kernel
    # backs it with transparent huge pages: shared anonymous memory is shmem, which usually
    # is not).  The advice must come before the first write touches the pages.
    mm = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    _advise(mm, "MADV_HUGEPAGE")
    view = memoryview(mm)
    try:
        with open(path, "rb", buffering=0) as fh:
            _read_into(fh, view, path)
    finally:
        view.release()
    return _readonly(np.frombuffer(mm, dtype=np.uint8))


def _read_into(fh, view: memoryview, path: Path) -> None:
    """Fill ``view`` from the start of the open file ``fh``: its slices read on a thread per
    usable core where the platform reads at an offset (``os.preadv``).  The copy from the page
    cache and the first touch of each page are the kernel's work, on the reading thread: on
    2 cores two threads read the 550 MB of 7-8 in about half the time of one
    (docs/research/end-to-end.md, "How tables reach memory")."""
    size = len(view)
    parts = min(config.usable_cores(), -(-size // _READ_STEP)) if _PREADV else 1
    if parts == 1:
        _read_slice(fh, view, 0, size, path)
        return
    cuts = [size * i // parts for i in range(parts + 1)]
    failed: list[BaseException] = []

    def read(lo: int, hi: int) -> None:
        try:
            _read_slice(fh, view, lo, hi, path)
        except BaseException as e:  # raised again on the calling thread
            failed.append(e)

    threads = [threading.Thread(target=read, args=cut, daemon=True) for cut in zip(cuts, cuts[1:])]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException:  # Ctrl-C: the view is released only once no thread writes into it
        for thread in threads:
            thread.join()
        raise
    if failed:
        raise failed[0]


def _read_slice(fh, view: memoryview, lo: int, hi: int, path: Path) -> None:
    """Read bytes ``lo`` to ``hi`` of ``fh`` into the same bytes of ``view`` (without
    ``os.preadv``, from the file's position, which must be ``lo``), a step at a time; a short
    read is retried."""
    pos = lo
    while pos < hi:
        # The slice is never named: a traceback keeping it would keep the view exported.
        if _PREADV:
            n = os.preadv(fh.fileno(), [view[pos : min(hi, pos + _READ_STEP)]], pos)
        else:
            n = fh.readinto(view[pos : min(hi, pos + _READ_STEP)])
        if not n:
            raise OSError(f"{path} ended after {pos:,} of {len(view):,} bytes")
        pos += n


MADV_POPULATE_READ = 22  # Linux 5.14+: fault a range's pages in now (not named by mmap yet)


def prefault(array: np.ndarray) -> None:
    """Fault in again the pages of a table loaded ``populate``: a process forked after the
    mapping was made shares the pages but not their page-table entries (best effort)."""
    mm = getattr(getattr(array, "base", None), "obj", None)
    if isinstance(mm, mmap.mmap):
        try:
            mm.madvise(MADV_POPULATE_READ)
        except (OSError, ValueError):  # an older kernel: the pages fault in as they are used
            pass


def _advise(mm: mmap.mmap, name: str) -> None:
    advice = getattr(mmap, name, None)
    if advice is not None:
        try:
            mm.madvise(advice)
        except OSError:  # not supported here: the memory works the same, only slower
            pass


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def within(buffer: np.ndarray, arrays) -> np.ndarray | None:
    """The byte offsets of ``arrays`` (1-d uint8) inside ``buffer``, or None when any of them
    does not lie inside it.  Lets a search use one loaded file as one joined table."""
    start = buffer.__array_interface__["data"][0]
    end = start + buffer.nbytes
    offsets = []
    for a in arrays:
        if not isinstance(a, np.ndarray) or a.dtype != np.uint8 or a.ndim != 1:
            return None
        p = a.__array_interface__["data"][0]
        if not (start <= p and p + a.nbytes <= end):
            return None
        offsets.append(p - start)
    return np.array(offsets, dtype=np.int64)
