"""What can go wrong with a database, as exceptions (layer 1: tables).

Kept apart from :mod:`.store` (which needs numpy and, to open a file, h5py) so that the CLI can
name and classify these errors without importing either.

Imports: nothing.
"""

from __future__ import annotations


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
    """The file exists but its bytes, metadata or sizes are not what they must be."""


class DataDirError(OSError):
    """The data directory cannot be created or written."""


class DiskFull(DataDirError):
    """The disk filled while a database was written: ``path`` the file, ``needed`` its size in
    bytes (at least), ``free`` the bytes left on the data directory's file system."""

    def __init__(self, path, needed: int, free: int | None):
        self.path, self.needed, self.free = path, needed, free
        room = "" if free is None else f", {_amount(free)} free"
        super().__init__(
            f"no space left on the device for {path.name}: it needs about {_amount(needed)} "
            f"in {path.parent}{room} (free some space and build it again; no partial file "
            "was left behind)"
        )

    def __str__(self) -> str:
        return self.args[0]


def _amount(n: int) -> str:
    """A number of bytes as people read it: ``6,048 bytes``, ``2.6 MB``, ``1.2 GB``."""
    if n < 1_000_000:
        return f"{n:,} bytes"
    return f"{n / 1e6:,.1f} MB" if n < 1_000_000_000 else f"{n / 1e9:,.1f} GB"
