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
