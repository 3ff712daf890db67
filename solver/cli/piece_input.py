"""The piece of a client's batch a command answers in this thread, instead of stdin (layer 7:
cli).

A server runs a forwarded batch one piece at a time (:mod:`solver.cli.capture`), several in
threads of one process: the batch driver (:mod:`.stream`) reads the piece set here, and a
command given one uses a single process (:func:`.options.usable_jobs`).
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a one-board command asks current() and needs no batch reader
    from ..client.pieces import Piece

_CURRENT = threading.local()


@contextlib.contextmanager
def answering(piece: Piece | None):
    """While the block runs, a batch in this thread answers ``piece`` (None: stdin)."""
    _CURRENT.piece = piece
    try:
        yield
    finally:
        _CURRENT.piece = None


def current() -> Piece | None:
    """The piece this thread's batch answers, or None to read stdin."""
    return getattr(_CURRENT, "piece", None)


__all__ = ["answering", "current"]
