"""Proving a database file before h5py parses a byte of it (layer 1: tables).

A file's first :data:`HEADER_SIZE` bytes are an HDF5 *user block* (bytes the HDF5 library
skips) holding one line -- ``npuzzle-digest <format version> sha256 <digest> <size>`` -- that
the builder writes once the file is complete (:func:`seal`).  :func:`prove` opens the file
without blocking, refuses anything but a regular file, and checks the size and the digest of
everything after the header.  Damaged HDF5 metadata can make the HDF5 library hang or crash,
so it must never see a file that was not proven.

Hashing is paid on the first use after a file's identity (device, inode, size, modification
and change times) changes: identities that matched are remembered in this process and in
``verified.json`` of the npuzzle cache directory (``$NPUZZLE_CACHE``, else
``$XDG_CACHE_HOME/npuzzle``), so a warm start pays one ``stat``; the builder proves the files
it writes, so their first use is free too.  A write to the file changes its change time and so
its identity; damage that bypasses the file system (a failing disk) does not, which is why
``build-pdb --verify`` always hashes afresh (``fresh=True``).

Imports: the standard library, :mod:`solver.core` (config, interrupts), :mod:`.errors`.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from ..core import config, interrupts
from .errors import DatabaseCorrupt, DatabaseMissing

HEADER_SIZE = 512  # the HDF5 user block: a power of two of at least 512 bytes
HEADER_MAGIC = "npuzzle-digest"
DIGEST = "sha256"  # OpenSSL's, with the SHA extensions where the processor has them
_READ_STEP = 1 << 24


def user_dir(env: str, default: str) -> Path:
    """``$env/npuzzle``, else ``~/<default>/npuzzle`` (the XDG convention)."""
    base = os.environ.get(env) or os.path.join(os.path.expanduser("~"), *default.split("/"))
    return Path(base) / "npuzzle"


def cache_dir() -> Path:
    """npuzzle's cache directory: ``$NPUZZLE_CACHE``, else ``$XDG_CACHE_HOME/npuzzle``, else
    ``~/.cache/npuzzle``.  What lives there can always be made again."""
    env = os.environ.get(config.ENV_CACHE_DIR)
    return Path(env) if env else user_dir("XDG_CACHE_HOME", ".cache")


def hash_after_header(path: Path) -> str:
    """The digest of everything after the header (what the header must hold)."""
    with open(path, "rb") as fh:
        return _hash_open_file(fh.fileno())


def _hash_open_file(fd: int) -> str:
    import hashlib  # here: a file proven before is one stat (the cold path hashes nothing)

    h = hashlib.new(DIGEST)
    offset = HEADER_SIZE
    while chunk := os.pread(fd, _READ_STEP, offset):
        h.update(chunk)
        offset += len(chunk)
    return h.hexdigest()


def _header_line(digest: str, size: int, version: int) -> bytes:
    line = f"{HEADER_MAGIC} {version} {DIGEST} {digest} {size}\n".encode()
    return line + b"\0" * (HEADER_SIZE - len(line))


def seal(path: Path, version: int) -> None:
    """Write the digest of the finished HDF5 file (of format ``version``) into its user
    block."""
    digest = hash_after_header(path)
    with open(path, "r+b") as fh:
        fh.write(_header_line(digest, os.path.getsize(path), version))
        fh.flush()
        os.fsync(fh.fileno())


def _parse_header(head: bytes) -> tuple[str, int] | None:
    words = head.split(b"\n", 1)[0].decode("ascii", "replace").split(" ")
    if len(words) != 5 or words[0] != HEADER_MAGIC or words[2] != DIGEST:
        return None
    if not (words[1].isdigit() and words[4].isdigit()):
        return None
    return words[3], int(words[4])


class Trusted:
    """The identities of files whose digest matched: in this process and, across processes,
    in ``verified.json`` of the npuzzle cache directory (best effort: an unwritable cache only
    means hashing again).

    An identity includes the change time, which every write updates, so a file edited in
    place is hashed again.  Damage that bypasses the file system (a failing disk) keeps the
    identity: ``build-pdb --verify`` always hashes afresh."""

    def __init__(self):
        self.seen: dict[str, tuple] = {}

    @staticmethod
    def record_path() -> Path:
        return cache_dir() / "verified.json"

    def _load(self) -> dict:
        try:
            with open(self.record_path(), encoding="utf-8") as fh:
                data = json.load(fh)
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError, RecursionError):
            return {}

    def known(self, key: str, stamp: tuple) -> bool:
        if self.seen.get(key) == stamp:
            return True
        if self._load().get(key) == list(stamp):
            self.seen[key] = stamp
            return True
        return False

    def forget(self, key: str) -> None:
        self.seen.pop(key, None)

    def remember(self, key: str, stamp: tuple) -> None:
        self.seen[key] = stamp
        record = self.record_path()
        data = {k: v for k, v in self._load().items() if os.path.exists(k)}
        data[key] = list(stamp)
        tmp = record.with_name(f"{record.name}.tmp-{os.getpid()}")
        try:
            with contextlib.suppress(OSError), interrupts.temporary(tmp):
                record.parent.mkdir(parents=True, exist_ok=True)
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(data, fh)
                os.replace(tmp, record)
        finally:  # also when a signal stops us half-way
            with contextlib.suppress(OSError):
                tmp.unlink()


TRUSTED = Trusted()


def prove(path: Path, fix: str | None = None, fresh: bool = False) -> tuple:
    """Check that ``path`` is a regular file whose bytes match the digest in its header;
    return its :func:`file_stamp`.  Hashes only on the first use after the file changed
    (always with ``fresh``).

    The file is opened without blocking and checked through that one descriptor, so a FIFO,
    a directory or a device under a database's name is refused at once instead of hanging.

    Raises :class:`DatabaseMissing` (no file) or :class:`DatabaseCorrupt` (anything else)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise DatabaseMissing(f"no database {path}", fix) from None
    except OSError as e:
        raise DatabaseCorrupt(f"cannot read database {path} ({e.strerror or e})", fix) from None
    try:
        return _prove_open_file(path, fd, fix, fresh)
    except OSError as e:
        raise DatabaseCorrupt(f"cannot read database {path} ({e.strerror or e})", fix) from None
    finally:
        os.close(fd)


def _prove_open_file(path: Path, fd: int, fix: str | None, fresh: bool) -> tuple:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise DatabaseCorrupt(f"database {path} is not a regular file", fix)
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    key = str(path.absolute())
    if not fresh and TRUSTED.known(key, stamp):
        return stamp
    TRUSTED.forget(key)
    header = _parse_header(os.pread(fd, HEADER_SIZE, 0))
    if header is None:
        raise DatabaseCorrupt(
            f"{path} has no npuzzle digest header (damaged, or built by an older npuzzle)", fix
        )
    digest, size = header
    if size != st.st_size:
        raise DatabaseCorrupt(
            f"{path} is {st.st_size:,} bytes, its header says {size:,} (truncated or extended)", fix
        )
    if _hash_open_file(fd) != digest:
        raise DatabaseCorrupt(f"{path} does not match its digest (damaged)", fix)
    TRUSTED.remember(key, stamp)
    return stamp


__all__ = [
    "prove",
    "seal",
    "hash_after_header",
    "user_dir",
    "TRUSTED",
    "HEADER_SIZE",
    "HEADER_MAGIC",
    "DIGEST",
]
