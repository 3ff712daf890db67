"""Databases on disk: HDF5 files, metadata checks, memory-mapping and the data directory (layer 3).

One file per database (``exact-3x3.h5``, ``apdb-4x4-6-6-3.h5``).  Every file carries root
attributes ``format``, ``format_version``, ``kind``, ``shape``, ``goal``, ``ranking`` and
``created_by``; every table dataset is contiguous, uncompressed (so it is memory-mapped rather
than read) and carries a ``checksum`` attribute that :func:`verify` recomputes.

Files are written under a temporary name in the same directory and renamed into place only
when complete, so an interrupted or killed build never leaves a partial file under the final
name (and never destroys the previous one).

Imports: numpy, h5py, the standard library.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import h5py
import numpy as np

FORMAT = "npuzzle"
FORMAT_VERSION = 1
RANKING = "kperm-lex"  # solver.ranking.rank: lexicographic rank of a k-permutation
ENV_DATA_DIR = "NPUZZLE_DATA"
TMP_MARK = ".tmp-"


class DatabaseError(Exception):
    """A database is missing, stale or corrupt; ``fix`` is the command that repairs it."""

    def __init__(self, message: str, fix: str | None = None):
        super().__init__(message)
        self.fix = fix

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}; fix: {self.fix}" if self.fix else base


class DatabaseMissing(DatabaseError):
    """The file that would answer this question has not been built."""


class DatabaseCorrupt(DatabaseError):
    """The file exists but its metadata, size or checksum is not what it must be."""


class DataDirError(OSError):
    """The data directory cannot be created or written."""


def package_version() -> str:
    """The installed npuzzle version (for the ``created_by`` attribute)."""
    from .. import __version__

    return __version__


# --- the data directory ----------------------------------------------------------------------


def _source_checkout_data() -> Path | None:
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "solver").is_dir():
        return root / "data"
    return None


def _user_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "npuzzle"


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Where databases live: ``explicit`` > ``$NPUZZLE_DATA`` > ``data/`` of a source checkout
    > the user data directory (``$XDG_DATA_HOME/npuzzle``)."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    return _source_checkout_data() or _user_data_dir()


def ensure_writable(directory: Path) -> Path:
    """Create ``directory`` if needed and check that files can be written in it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DataDirError(f"cannot create data directory {directory}: {e.strerror}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise DataDirError(f"data directory {directory} is not writable")
    return directory


def remove_stale_temporaries(directory: Path) -> list[Path]:
    """Delete temporary files left by builds that were killed; return what was removed."""
    removed = []
    if directory.is_dir():
        for p in directory.glob(f"*{TMP_MARK}*"):
            pid = p.name.rsplit(TMP_MARK, 1)[-1]
            if pid.isdigit() and _process_alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                p.unlink()
                removed.append(p)
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- writing ---------------------------------------------------------------------------------


def checksum(array: np.ndarray) -> str:
    """A content hash of an array's bytes (``blake2b`` with a 128-bit digest)."""
    h = hashlib.blake2b(digest_size=16)
    flat = np.ascontiguousarray(array).reshape(-1)
    step = 1 << 26  # hash in 64 MiB slices so a memory-mapped table is not read whole
    for i in range(0, flat.size, step):
        h.update(memoryview(flat[i : i + step]).cast("B"))
    return "blake2b-128:" + h.hexdigest()


@contextlib.contextmanager
def atomic_h5(path: Path, attrs: dict):
    """Open a new HDF5 file under a temporary name, yield it, then rename it to ``path``.

    The root attributes of DESIGN §4 are set from ``attrs`` (plus format, version, ranking,
    created_by).  On any exception, including KeyboardInterrupt, the temporary file is removed
    and ``path`` is left as it was.
    """
    path = Path(path)
    ensure_writable(path.parent)
    tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
    try:
        f = h5py.File(tmp, "w")
    except OSError as e:
        raise DataDirError(f"cannot write {tmp}: {e}") from None
    try:
        with f:
            f.attrs["format"] = FORMAT
            f.attrs["format_version"] = FORMAT_VERSION
            f.attrs["ranking"] = RANKING
            f.attrs["created_by"] = f"npuzzle {package_version()}"
            for k, v in attrs.items():
                f.attrs[k] = v
            yield f
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_table(f: h5py.File, name: str, table: np.ndarray, **attrs) -> h5py.Dataset:
    """Store ``table`` as a contiguous, uncompressed dataset with its checksum."""
    ds = f.create_dataset(name, data=table)  # contiguous layout by default
    ds.attrs["checksum"] = checksum(table)
    for k, v in attrs.items():
        ds.attrs[k] = v
    return ds


# --- reading ---------------------------------------------------------------------------------


@dataclass
class TableFile:
    """An opened database: its root attributes and its datasets, memory-mapped by name."""

    path: Path
    attrs: dict
    tables: dict = field(default_factory=dict)  # name -> np.memmap (read-only)
    table_attrs: dict = field(default_factory=dict)  # name -> dict of dataset attributes


def _memmap(path: Path, ds: h5py.Dataset) -> np.ndarray:
    offset = ds.id.get_offset()
    if offset is None or ds.chunks is not None or ds.compression is not None:
        # Not mappable (empty or chunked): read it into memory instead.
        return ds[...]
    return np.memmap(path, dtype=ds.dtype, mode="r", offset=offset, shape=ds.shape)


def _decode(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def open_tables(path: Path, expect: dict, fix: str) -> TableFile:
    """Open ``path``, check its root attributes against ``expect`` and memory-map its datasets.

    Raises :class:`DatabaseMissing` when there is no file and :class:`DatabaseCorrupt` when the
    file cannot be read, is of another format or version, or its metadata differs from
    ``expect`` (e.g. another shape or goal); ``fix`` is the command to suggest.
    """
    path = Path(path)
    if not path.is_file():
        raise DatabaseMissing(f"no database {path}", fix)
    try:
        with h5py.File(path, "r") as f:
            attrs = {k: _decode(v) for k, v in f.attrs.items()}
            _check_attrs(path, attrs, expect, fix)
            out = TableFile(path, attrs)
            for name, ds in f.items():
                if isinstance(ds, h5py.Dataset):
                    out.table_attrs[name] = {k: _decode(v) for k, v in ds.attrs.items()}
                    out.tables[name] = _memmap(path, ds)
    except DatabaseError:
        raise
    except (OSError, KeyError, ValueError) as e:
        raise DatabaseCorrupt(f"cannot read database {path} ({e})", fix) from None
    return out


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


def read_root_attrs(path: Path) -> dict:
    """The root attributes of an HDF5 file, decoded to Python values."""
    with h5py.File(path, "r") as f:
        return {k: _decode(v) for k, v in f.attrs.items()}


def verify(path: Path) -> list[str]:
    """Recompute every dataset's checksum; return a list of problems (empty when sound)."""
    problems = []
    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != FORMAT:
                return [f"{path.name}: not an npuzzle database"]
            for name, ds in f.items():
                want = ds.attrs.get("checksum")
                if want is None:
                    problems.append(f"{path.name}/{name}: no checksum attribute")
                    continue
                got = checksum(_memmap(path, ds))
                if got != _decode(want):
                    problems.append(f"{path.name}/{name}: checksum mismatch")
    except OSError as e:
        problems.append(f"{path.name}: unreadable ({e})")
    return problems
