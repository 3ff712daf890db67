"""Heuristics: Manhattan distance, linear conflict, and the pattern-database value of a board
with its parts (layer 2: heuristics).

The additive pattern databases themselves live in :mod:`solver.tables.pattern_db`; which one
serves a goal is decided by :mod:`solver.tables.catalog`.  This module turns them into the
answer of ``npuzzle heuristic`` and offers the database-free heuristics the searches fall back
on.

Imports: :mod:`solver.core`, :mod:`solver.tables`; never the builder, so
lookups start instantly.
"""

from __future__ import annotations

from .core.board import BLANK, Board, preset_goal
from .core.board import manhattan as _board_manhattan
from .tables import pattern_db
from .tables.partitions import Partition

# --- Manhattan distance and linear conflict ---------------------------------------------------


def _goal(board: Board, goal: Board | None) -> Board:
    return goal if goal is not None else preset_goal(board.shape)


def manhattan(board: Board, goal: Board | None = None) -> int:
    """Sum over tiles of the grid distance from their cell to their goal cell (``goal``
    default: blank-last).

    >>> manhattan(Board.parse("1 2 3/4 5 6/0 7 8"))
    2
    """
    return _board_manhattan(board, _goal(board, goal))


def _fewest_removals(seq: list[int]) -> int:
    """Fewest items to delete from ``seq`` so that the rest increases (len - LIS)."""
    best: list[int] = []  # best[j] = smallest tail of an increasing subsequence of length j+1
    for v in seq:
        lo, hi = 0, len(best)
        while lo < hi:
            mid = (lo + hi) // 2
            if best[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(best):
            best.append(v)
        else:
            best[lo] = v
    return len(seq) - len(best)


def linear_conflict(board: Board, goal: Board | None = None) -> int:
    """Manhattan distance plus 2 for each tile that must leave its line: in every row (column),
    among the tiles whose goal is in that row (column), the fewest that must be taken out so
    the others already stand in goal order -- each of those needs two extra moves to step out
    of the line and back.  Admissible and never below Manhattan.

    >>> linear_conflict(Board.parse("3 2 1/4 5 6/7 8 0"))   # 3 and 1 both need to pass 2
    8
    """
    goal = _goal(board, goal)
    rows, cols = board.shape.rows, board.shape.cols
    home = {t: c for c, t in enumerate(goal.tiles)}
    extra = 0
    for r in range(rows):
        line = [
            home[t] % cols
            for t in board.tiles[r * cols : (r + 1) * cols]
            if t != BLANK and home[t] // cols == r
        ]
        extra += _fewest_removals(line)
    for c in range(cols):
        line = [home[t] // cols for t in board.tiles[c::cols] if t != BLANK and home[t] % cols == c]
        extra += _fewest_removals(line)
    return _board_manhattan(board, goal) + 2 * extra


# --- one answer, for the CLI and the API --------------------------------------------------------


def evaluate(
    board: Board,
    goal: Board | None = None,
    partition: Partition | None = None,
    reflect: bool = True,
    data_dir=None,
) -> dict:
    """The pattern-database heuristic of ``board`` with its parts: ``h`` (what a search would
    use), ``plain`` (the additive sum), ``reflected`` (the sum for the mirrored board, None when
    the goal does not allow it), per-pattern values, the partition and file used, plus
    ``manhattan`` and ``linear_conflict`` for comparison.

    The database is ``partition``'s (tiles of ``goal``, parsed where the question arrived:
    :func:`solver.answers.heuristic_partition`) or, with none, the catalog's choice for the
    goal: its own, else one built for a goal a board symmetry and a relabelling carry it onto
    (the values are the same).
    """
    goal = _goal(board, goal)
    pdb, red = pattern_db.database_for(board.shape, goal, partition, data_dir)
    looked_up = red.board(board)
    parts = pdb.parts(looked_up)
    plain = sum(parts)
    mirrored = sum(pdb.parts(pdb.reflected(looked_up))) if pdb.reflectable else None
    used = reflect and mirrored is not None
    return {
        "h": max(plain, mirrored) if used else plain,
        "plain": plain,
        "reflected": mirrored,
        "reflect": used,
        "partition": pdb.name,
        "database": pdb.path.name,
        "patterns": [
            {"tiles": ",".join(map(str, t.tiles)), "h": v} for t, v in zip(pdb.tables, parts)
        ],
        "manhattan": manhattan(board, goal),
        "linear_conflict": linear_conflict(board, goal),
    }
