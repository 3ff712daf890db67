"""The data directory: where databases live, checked writable, cleared of the temporaries of
killed builds (layer 1: tables).

Imports: the standard library, :mod:`solver.core`, :mod:`.trust` (the user directories),
:mod:`.errors`.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

from ..core import config
from .errors import DataDirError
from .trust import user_dir as _user_dir

# A file being written carries this mark and the writer's process id in its name until it is
# complete and renamed into place.
TMP_MARK = ".tmp-"


# Where this package lives does not change while it runs; asked afresh, it cost a realpath
# and two stats per question (a tenth of a Korf's-100 search).
@functools.cache
def _source_checkout_data() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "solver").is_dir():
        return root / "data"
    return None


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Where databases live: ``explicit`` > ``$NPUZZLE_DATA`` > ``data/`` of a source checkout
    > the user data directory (``$XDG_DATA_HOME/npuzzle``)."""
    if explicit is not None and str(explicit) != "":
        return Path(explicit).expanduser()
    env = os.environ.get(config.ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    return _source_checkout_data() or _user_dir("XDG_DATA_HOME", ".local/share")


def named(explicit: str | os.PathLike | None = None) -> Path:
    """The data directory a reader uses (:func:`data_dir`), which must exist when the user
    named it -- ``explicit`` (``--data-dir``) or else ``$NPUZZLE_DATA``: a mistyped name must
    not read as "nothing is built there" (:class:`DataDirError`, naming the variable when it
    named the directory).  Only the default directory may be absent (a fresh install has
    built nothing yet), and only a build creates a named one (:func:`ensure_writable`)."""
    directory = data_dir(explicit)
    if explicit is not None and str(explicit) != "":
        return existing(directory)
    if os.environ.get(config.ENV_DATA_DIR):
        return existing(directory, f" (named by ${config.ENV_DATA_DIR})")
    return directory


def existing(directory: Path, source: str = "") -> Path:
    """``directory``, when it is a directory; else :class:`DataDirError` saying what it is
    (``source``: where its name came from, said after it)."""
    if not directory.is_dir():
        raise DataDirError(
            f"data directory {directory}{source} does not exist"
            if not os.path.lexists(directory)
            else f"data directory {directory}{source} is not a directory"
        )
    return directory


def ensure_writable(directory: Path) -> Path:
    """Create ``directory`` if needed and check that files can be written in it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DataDirError(f"cannot create data directory {directory}: {e.strerror}") from None
    if not directory.is_dir():
        raise DataDirError(f"data directory {directory} is not a directory")
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
