"""Databases on disk: HDF5 files, their digests, metadata checks and memory-mapping (layer 1:
tables; where the files live is :mod:`.directory`'s).

One file per database (``exact-3x3.h5``, ``apdb-4x4-6-6-3.h5``; :mod:`.catalog` names them).
Every file carries root attributes ``format``, ``format_version``, ``kind``, ``shape``, ``goal``,
``ranking`` and ``created_by``; every table dataset is contiguous, uncompressed and carries a
``checksum`` attribute, so the whole file is brought into memory as one byte array -- mapped or
read, as :mod:`.loading` decides -- and each table is a view into it at its dataset's offset.

**Trust.** A file is proven (:func:`prove`, from :mod:`.trust`) before h5py parses a byte of
it: a digest in its HDF5 user block covers every byte after it, and damaged bytes, a
truncation, a FIFO or a directory under the name are refused with :class:`DatabaseCorrupt`
before any parsing.  Opening then checks the metadata against what the caller expects, and
:mod:`.exact`, :mod:`.pattern_db` check the tables cheaply; :mod:`.audit` checks everything.

Files are written under a temporary name in the same directory and renamed into place only
when complete, so an interrupted or killed build never leaves a partial file under the final
name (and never destroys the previous one).

One identity rule for every cache: :func:`file_stamp`.

Imports: numpy, h5py (only when a file is opened or written), the standard library,
:mod:`.trust`, :mod:`.errors`, :mod:`.layouts`, :mod:`.loading`, :mod:`.directory`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import interrupts
from . import layouts, loading, trust
from .directory import (  # noqa: F401 - where databases live is part of the store's interface
    TMP_MARK,
    data_dir,
    ensure_writable,
    existing,
    named,
    remove_stale_temporaries,
)
from .errors import (  # noqa: F401
    DatabaseCorrupt,
    DatabaseError,
    DatabaseMissing,
    DataDirError,
    DiskFull,
)
from .trust import DIGEST, HEADER_MAGIC, HEADER_SIZE, prove  # noqa: F401 - part of the API
from .trust import TRUSTED as _TRUSTED  # noqa: F401 - tests reach the record through it

FORMAT = "npuzzle"
FORMAT_VERSION = 2  # 2: a digest of the file in its user block
RANKING = "kperm-lex"  # solver.core.ranking.rank: lexicographic rank of a k-permutation


def _seal(path: Path) -> None:
    """Write the digest of the finished HDF5 file into its user block (see
    :func:`solver.tables.trust.seal`)."""
    trust.seal(path, FORMAT_VERSION)


_hash_after_header = trust.hash_after_header


def package_version() -> str:
    """The installed npuzzle version (for the ``created_by`` attribute)."""
    from .. import __version__

    return __version__


# --- identity of files -----------------------------------------------------------------------


def file_stamp(path: Path) -> tuple | None:
    """What tells one version of a file (or directory) from another: device, inode, size,
    modification and change times.  None when it does not exist.  Every cache of something
    read from disk is keyed by this."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


# --- writing ---------------------------------------------------------------------------------


def checksum(array: np.ndarray) -> str:
    """A content hash of an array's bytes (``blake2b`` with a 128-bit digest)."""
    import hashlib  # here: the cold path's searches hash nothing

    h = hashlib.blake2b(digest_size=16)
    flat = np.ascontiguousarray(array).reshape(-1)
    step = 1 << 26  # hash in 64 MiB slices so a memory-mapped table is not read whole
    for i in range(0, flat.size, step):
        h.update(memoryview(flat[i : i + step]).cast("B"))
    return "blake2b-128:" + h.hexdigest()


NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
# HDF5 reports a failed write as text, without an errno: after such a failure, a file system
# left with less than this much room is taken to be full.
FULL_BELOW = 1 << 20


def _needed_on_full_disk(e: BaseException, tmp: Path, size: int | None) -> int | None:
    """The bytes the file needs when ``e``, raised while ``tmp`` was written, means that the
    disk filled (None otherwise): ``size`` when the caller knows it, at least what the disk
    held of the file.  Called before ``tmp`` is removed."""
    if not isinstance(e, OSError) or isinstance(e, (DataDirError, BrokenPipeError)):
        return None
    if e.errno not in NO_SPACE:
        if e.errno is not None or (_free(tmp.parent) or FULL_BELOW) >= FULL_BELOW:
            return None
    try:
        written = os.stat(tmp).st_size
    except OSError:
        written = 0
    return max(size or 0, written)


def _free(directory: Path) -> int | None:
    try:
        import shutil  # only a write asks

        return shutil.disk_usage(directory).free
    except OSError:
        return None


@contextlib.contextmanager
def atomic_h5(path: Path, attrs: dict, size: int | None = None):
    """Open a new HDF5 file under a temporary name, yield it, then seal it (its digest in the
    user block) and rename it to ``path``.

    The root attributes of DESIGN §4 are set from ``attrs`` (plus format, version, ranking,
    created_by).  On any exception, including KeyboardInterrupt, the temporary file is removed
    and ``path`` is left as it was.  A disk that fills on the way is :class:`DiskFull`, which
    names the file, the space it needs (``size``, the file's expected bytes, when the caller
    knows them; else what the disk held of it) and the directory.  A directory standing under
    ``path`` is moved aside (see :func:`make_way`) only once the new file is complete.
    """
    import h5py

    path = Path(path)
    ensure_writable(path.parent)
    tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
    # One try around everything from the file's creation on: a signal may land just after
    # h5py created the file and before it returned the handle.
    with interrupts.temporary(tmp):
        try:
            try:
                f = h5py.File(tmp, "w", userblock_size=HEADER_SIZE)
            except OSError as e:
                raise DataDirError(f"cannot write {tmp}: {e}") from None
            with f:
                f.attrs["format"] = FORMAT
                f.attrs["format_version"] = FORMAT_VERSION
                f.attrs["ranking"] = RANKING
                f.attrs["created_by"] = f"npuzzle {package_version()}"
                for k, v in attrs.items():
                    f.attrs[k] = v
                yield f
            _seal(tmp)
            interrupts.check()  # a Ctrl-C that a finaliser swallowed still stops the rename
            make_way(path)
            os.replace(tmp, path)
        except BaseException as e:
            needed = _needed_on_full_disk(e, tmp, size)
            with contextlib.suppress(OSError):
                tmp.unlink()
            if needed is not None:  # HDF5's own text says "errno = 28" and a buffer's address
                raise DiskFull(path, needed, _free(path.parent)) from None
            raise
    with contextlib.suppress(DatabaseError):
        prove(path)  # the file we just sealed: record it, so its first use hashes nothing


def make_way(path: Path) -> Path | None:
    """Move a directory standing under a database's name aside (to ``<name>.moved-<time>``)
    so that the new file can take its place; return where it went (None when nothing was in
    the way).  Other non-regular files (a FIFO, a link) are simply replaced by the rename;
    a directory cannot be, and its contents are not ours to delete."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    aside = path.with_name(f"{path.name}.moved-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    os.rename(path, aside)
    return aside


def write_table(f, name: str, table: np.ndarray, **attrs):
    """Store ``table`` as a contiguous, uncompressed dataset with its checksum."""
    ds = f.create_dataset(name, data=table)  # contiguous layout by default
    ds.attrs["checksum"] = checksum(table)
    for k, v in attrs.items():
        ds.attrs[k] = v
    return ds


# --- reading ---------------------------------------------------------------------------------


@dataclass
class TableFile:
    """An opened database: its root attributes and its datasets by name, each a read-only
    view into ``buffer`` (the whole file, mapped or read as ``load`` says)."""

    path: Path
    attrs: dict
    stamp: tuple | None = None
    tables: dict = field(default_factory=dict)  # name -> read-only array (a view of buffer)
    table_attrs: dict = field(default_factory=dict)  # name -> dict of dataset attributes
    buffer: np.ndarray | None = None  # the file's bytes, uint8
    load: str = "map"  # how buffer reached memory: map, populate or read


def _view(path: Path, d: dict, buffer: np.ndarray, fix: str | None = None) -> np.ndarray:
    """A dataset of the layout as a read-only view of the file's bytes."""
    dtype = np.dtype(d["dtype"])
    count = int(np.prod(d["shape"], dtype=np.int64))
    offset = d["offset"]
    if offset < 0 or offset + count * dtype.itemsize > buffer.size:
        raise DatabaseCorrupt(f"{path}: a table runs past the end of the file", fix)
    return buffer[offset : offset + count * dtype.itemsize].view(dtype).reshape(d["shape"])


def _memmap(path: Path, ds) -> np.ndarray:
    """One dataset, memory-mapped (for :func:`verify`, which reads each once)."""
    offset = ds.id.get_offset()
    if offset is None or ds.chunks is not None or ds.compression is not None:
        return ds[...]
    d = {"offset": int(offset), "dtype": np.dtype(ds.dtype).str, "shape": list(ds.shape)}
    return _view(path, d, loading.load(path, os.path.getsize(path), "map"))


def _decode(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


_OPEN: dict = {}


def open_tables(path: Path, expect: dict, fix: str, load: str | None = None) -> TableFile:
    """Prove ``path`` (:func:`prove`), check its root attributes against ``expect`` and bring
    its datasets into memory as ``load`` says (``map``, ``populate``, ``read``; None: the rule
    of :func:`solver.tables.loading.choose`).  The same version of a file is opened once per
    process (asking for another ``load`` opens it again).

    Raises :class:`DatabaseMissing` when there is no file and :class:`DatabaseCorrupt` when the
    file is damaged, of another format or version, or its metadata differs from ``expect``
    (e.g. another shape or goal); ``fix`` is the command to suggest.
    """
    path = Path(path)
    stamp = prove(path, fix)
    key = str(path.absolute())
    mode = loading.choose(stamp[2], load)
    hit = _OPEN.get(key)
    if hit is not None and hit.stamp == stamp and (load is None or hit.load == mode):
        _check_attrs(path, hit.attrs, expect, fix)
        return hit
    cache = _TRUSTED.record_path().parent
    layout = layouts.recall(cache, key, stamp)
    copies: dict = {}
    if layout is None:
        layout, copies = _read_layout(path, fix)
        if not copies:
            layouts.remember(cache, key, stamp, layout)
    _check_attrs(path, layout["attrs"], expect, fix)
    # The bytes come in only after the metadata is known to be what the caller needs.
    try:
        buffer = loading.load(path, stamp[2], mode)
    except (OSError, ValueError) as e:
        raise DatabaseCorrupt(f"cannot read database {path} ({e})", fix) from None
    if file_stamp(path) != stamp:
        # Replaced between the proof and the loading (a rebuild racing with us): what was
        # loaded may not be what was proven.
        raise DatabaseCorrupt(
            f"{path} changed while it was being opened; run the command again", fix
        )
    out = TableFile(path, layout["attrs"], stamp, buffer=buffer, load=mode)
    for name, d in layout["datasets"].items():
        out.table_attrs[name] = d["attrs"]
        out.tables[name] = copies[name] if name in copies else _view(path, d, buffer, fix)
    _OPEN[key] = out
    return out


def _read_layout(path: Path, fix: str) -> tuple[dict, dict]:
    """The file's layout read by h5py: root attributes and, per dataset, offset, dtype, shape
    and attributes; plus a copy of every dataset that is not stored contiguously (which
    npuzzle's builder never writes) -- such a file's layout is not remembered."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            attrs = {k: _decode(v) for k, v in f.attrs.items()}
            datasets, copies = {}, {}
            for name, ds in f.items():
                if not isinstance(ds, h5py.Dataset):
                    continue
                offset = ds.id.get_offset()
                datasets[name] = {
                    "offset": -1 if offset is None else int(offset),
                    "dtype": np.dtype(ds.dtype).str,
                    "shape": [int(n) for n in ds.shape],
                    "attrs": {k: _decode(v) for k, v in ds.attrs.items()},
                }
                if offset is None or ds.chunks is not None or ds.compression is not None:
                    copies[name] = ds[...]
    except Exception as e:  # noqa: BLE001 - anything h5py raises on a proven file is a bug
        raise DatabaseCorrupt(
            f"cannot read database {path} ({type(e).__name__}: {e})", fix
        ) from None
    return {"attrs": attrs, "datasets": datasets}, copies


def clear_cache() -> None:
    """Forget opened files (they are opened and mapped again on next use)."""
    _OPEN.clear()
    layouts.forget()


def prefault_opened() -> None:
    """In a forked worker: fault in the page-table entries of the files opened ``populate``
    or ``read`` before the fork (the pages themselves are shared, not copied; a file read in
    may be one mapped in huge pages, :func:`solver.tables.loading.load`)."""
    for tf in _OPEN.values():
        if tf.load in ("populate", "read") and tf.buffer is not None:
            loading.prefault(tf.buffer)


def joined(arrays) -> tuple[np.ndarray, np.ndarray] | None:
    """When every array of ``arrays`` is a uint8 table of one opened file: that file's bytes
    (one read-only array) and each table's offset in it -- so a search can index all of a
    database's tables as one array without copying them.  None otherwise."""
    arrays = list(arrays)
    for tf in _OPEN.values():
        if tf.buffer is not None and tf.buffer.size:
            offsets = loading.within(tf.buffer, arrays)
            if offsets is not None:
                return tf.buffer, offsets
    return None


def _check_attrs(path: Path, attrs: dict, expect: dict, fix: str) -> None:
    if attrs.get("format") != FORMAT:
        raise DatabaseCorrupt(f"{path} is not an npuzzle database", fix)
    if attrs.get("format_version") != FORMAT_VERSION:
        raise DatabaseCorrupt(
            f"{path} has format version {attrs.get('format_version')}, this npuzzle reads "
            f"{FORMAT_VERSION}",
            fix,
        )
    if attrs.get("ranking") != RANKING:
        raise DatabaseCorrupt(f"{path} uses ranking {attrs.get('ranking')}, not {RANKING}", fix)
    for k, v in expect.items():
        if attrs.get(k) != v:
            raise DatabaseCorrupt(f"{path} has {k}={attrs.get(k)!r}, expected {v!r}", fix)


def read_root_attrs(path: Path, fix: str | None = None) -> dict:
    """The root attributes of a proven database file, decoded to Python values (raises
    :class:`DatabaseError` when the file cannot be proven; h5py never sees an unproven
    file)."""
    import h5py

    prove(path, fix)
    try:
        with h5py.File(path, "r") as f:
            return {k: _decode(v) for k, v in f.attrs.items()}
    except Exception as e:  # noqa: BLE001 - a proven file that h5py cannot read
        raise DatabaseCorrupt(
            f"cannot read database {path} ({type(e).__name__}: {e})", fix
        ) from None


def verify(path: Path) -> list[str]:
    """Prove the file's digest afresh (never from the record of verified files), then
    recompute every dataset's checksum; return a list of problems (empty when sound).
    :mod:`solver.tables.audit` checks the rest of what a reader relies on."""
    import h5py

    path = Path(path)
    try:
        prove(path, fresh=True)
    except DatabaseError as e:
        return [f"{path.name}: {e.args[0]}"]
    problems = []
    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != FORMAT:
                return [f"{path.name}: not an npuzzle database"]
            for name, ds in f.items():
                if not isinstance(ds, h5py.Dataset):
                    problems.append(f"{path.name}/{name}: not a dataset")
                    continue
                want = ds.attrs.get("checksum")
                if want is None:
                    problems.append(f"{path.name}/{name}: no checksum attribute")
                    continue
                got = checksum(_memmap(path, ds))
                if got != _decode(want):
                    problems.append(f"{path.name}/{name}: checksum mismatch")
    except Exception as e:  # noqa: BLE001 - a proven file that h5py cannot read: report it
        problems.append(f"{path.name}: unreadable ({type(e).__name__}: {e})")
    return problems
