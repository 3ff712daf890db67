"""The token that lets a stopped IDA* search go on where it stopped (layer 0: core).

A search stopped by ``--timeout``, ``--max-nodes`` or Ctrl-C has proven that no solution is
shorter than a bound B (every iteration below B ended without one).  ``npuzzle solve
--resume TOKEN`` starts IDA* at B instead of at the start's heuristic value.  The token
carries B in the clear, a digest of the board, the goal and their shape, and a checksum over
both, so that

* a bound typed by hand, or a token altered or cut short, is refused (the checksum);
* a token issued for another board or goal is refused (the digest);
* a bound of the wrong parity, which no search proves, is refused.

``78-1a2b3c4d-5e6f7a8b``: the bound, the problem's digest, the checksum (BLAKE2b, keyed with a
fixed word of npuzzle's own).  The checksum catches typing and copying mistakes and mixed-up
boards; it is not a signature: whoever reads this module can forge one, and then only fools
their own search into a longer answer.

Imports: the standard library and :mod:`solver.core.board`.
"""

from __future__ import annotations

import re

from .board import Board, BoardError

_KEY = b"npuzzle resume token v1"
_DIGITS = 8  # hex digits of the digest and of the checksum (32 bits each)
_FORM = re.compile(r"^(\d{1,5})-([0-9a-f]{8})-([0-9a-f]{8})$")


def _hex(text: str) -> str:
    import hashlib  # here: only a stopped search or a resumed one signs

    return hashlib.blake2b(text.encode(), digest_size=_DIGITS // 2, key=_KEY).hexdigest()


def _problem_digest(start: Board, goal: Board) -> str:
    return _hex(f"{start.shape}|{','.join(map(str, start.tiles))}|{','.join(map(str, goal.tiles))}")


def _checksum(bound: int, digest: str) -> str:
    return _hex(f"{bound}-{digest}")


def issue(start: Board, goal: Board, bound: int) -> str:
    """The token of a search from ``start`` to ``goal`` that proved the optimal length to be at
    least ``bound``."""
    digest = _problem_digest(start, goal)
    return f"{bound}-{digest}-{_checksum(bound, digest)}"


def proven_bound(token: str, start: Board, goal: Board) -> int:
    """The bound ``token`` proves for the search from ``start`` to ``goal``.  Raises
    :class:`~solver.core.board.BoardError` (one line) for a token npuzzle did not issue, an
    altered one, or one of another board or goal."""
    found = _FORM.match(token.strip().lower())
    if found is None:
        raise BoardError(
            f"'{token}' is not a resume token (npuzzle prints one when a search stops, "
            "e.g. 78-1a2b3c4d-5e6f7a8b)"
        )
    bound, digest, check = int(found[1]), found[2], found[3]
    if check != _checksum(bound, digest):
        raise BoardError(
            f"resume token '{token}' was altered or mistyped: use the token npuzzle printed"
        )
    if digest != _problem_digest(start, goal):
        raise BoardError(f"resume token '{token}' is for another board or goal")
    if (bound - parity(start, goal)) % 2:
        raise BoardError(f"resume token '{token}' proves no bound of this board")
    return bound


def parity(start: Board, goal: Board) -> int:
    """The parity of every solution's length from ``start`` to ``goal``: the parity of the
    blank's Manhattan distance between its two cells."""
    cols = start.shape.cols
    b, g = start.blank, goal.blank
    return (abs(b // cols - g // cols) + abs(b % cols - g % cols)) & 1


__all__ = ["issue", "proven_bound", "parity"]
