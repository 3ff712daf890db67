"""``npuzzle check``: can this board reach the goal?  The parity rule, with its working shown."""

from __future__ import annotations

import click

from .. import answers, api
from ..core.board import Board, Solvability, solvability, solvable_for
from . import errors, io, options
from .forwarding import forwarded
from .group import main_group as main

ORDINALS = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
)


def _parity(x: int) -> str:
    return "even" if x % 2 == 0 else "odd"


def _row(k: int) -> str:
    """'the first row from the bottom (row 1)'."""
    word = ORDINALS[k - 1] if k <= len(ORDINALS) else f"{k}th"
    return f"the {word} row from the bottom (row {k})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def working(start: Board, goal: Board, s: Solvability) -> list[str]:
    """The lines explaining the verdict: both boards' inversions and blank rows, the rule for
    this width, and how the two sides compare."""
    cols = start.shape.cols
    si, gi = s.start_inversions, s.goal_inversions
    sr, gr = s.start_blank_row_from_bottom, s.goal_blank_row_from_bottom
    lines = [
        f"start {start}: {_plural(si, 'inversion')} ({_parity(si)}), blank in {_row(sr)}",
        f"goal  {goal}: {_plural(gi, 'inversion')} ({_parity(gi)}), blank in {_row(gr)}",
    ]
    if s.width_even:
        lines.append(
            f"rule  the width {cols} is even: a sideways move changes nothing and an up/down "
            f"move changes the inversions by an odd number ({cols - 1} tiles jumped) and the "
            f"blank row by one, so the parity of inversions + blank row is kept"
        )
        lines.append(
            f"      start {si} + {sr} = {si + sr} ({_parity(si + sr)}), "
            f"goal {gi} + {gr} = {gi + gr} ({_parity(gi + gr)}): "
            + (
                "the same parity, so the start is solvable"
                if s.solvable
                else "different parities, so the start is unsolvable"
            )
        )
    else:
        lines.append(
            f"rule  the width {cols} is odd: a sideways move changes nothing and an up/down "
            f"move jumps a tile over {cols - 1} others, changing the inversions by an even "
            f"number, so the parity of the inversions is kept (the blank row does not matter)"
        )
        lines.append(
            f"      start {si} ({_parity(si)}), goal {gi} ({_parity(gi)}): "
            + (
                "the same parity, so the start is solvable"
                if s.solvable
                else "different parities, so the start is unsolvable"
            )
        )
    return lines


def _reason(s: Solvability, other: str | None) -> str:
    """A batch's text line: the verdict with its reason, and the preset goal an unsolvable
    start reaches instead (``other``), if any."""
    said = answers.other_goal_text(other) if not s.solvable else ""
    return f"{s.reason}; {said}" if said else s.reason


def _other_goal(group, solvable) -> str | None:
    """The preset goal the unsolvable starts of a group reach instead: the same for all of
    them (they share a parity class), so the first one says it."""
    import numpy as np

    bad = np.flatnonzero(~np.asarray(solvable, dtype=bool))
    if bad.size == 0:
        return None
    start = Board(group.shape, tuple(group.tiles[int(bad[0])].tolist()))
    return solvable_for(start, group.goal)


def _verdict(start: Board, goal: Board) -> tuple:
    return start, goal, solvability(start, goal)


def _bulk(group, as_json: bool):
    """The verdicts of a whole group of boards (the parity rule, vectorised)."""
    import numpy as np

    from ..workloads.bulk_answers import parity_many
    from .stream import BulkAnswers

    p = parity_many(group.tiles, group.goal)
    # The verdict depends only on the start's inversions and blank row: one text per pair.
    keys, first, codes = np.unique(
        np.stack([p.start_inversions, p.start_blank_row], axis=1),
        axis=0,
        return_index=True,
        return_inverse=True,
    )
    verdicts = [
        Solvability(
            bool(p.solvable[k]), int(si), p.goal_inversions, int(sr), p.goal_blank_row, p.width_even
        )
        for (si, sr), k in zip(keys.tolist(), first.tolist())
    ]
    codes = codes.reshape(-1)
    out = BulkAnswers(codes=np.where(p.solvable, errors.EXIT_OK, errors.EXIT_UNSOLVABLE))
    if as_json:
        out.record = lambda k: answers.solvability_record(
            Board(group.shape, tuple(group.tiles[k].tolist())), group.goal, verdicts[codes[k]]
        )
    else:
        other = _other_goal(group, p.solvable)
        out.words = (codes, [_reason(v, other) for v in verdicts])
    return out


@main.command()
@io.board_argument
@options.taken_by("check")
@forwarded
@errors.guarded
def check(board, goal, shape, data_dir, as_json):
    """Say whether BOARD can reach the goal, and show why (the parity rule).

    Counts the inversions (pairs of tiles in the wrong order, read row by row, the
    blank left out) of the board and of the goal; on boards of even width it adds the
    blank's row counted from the bottom.  The board is solvable exactly when both
    sides have the same parity.  Works for any shape and any goal.

    Exit status 0 solvable, 1 unsolvable, 2 bad input.  With BOARD '-', checks one
    board per line and prints one verdict per line (exit 1 if any is unsolvable).

    \b
      npuzzle check 12 13 11 2/4 5 3 14/1 9 15 6/8 7 0 10
      npuzzle check "1 2 3/4 5 6/8 7 0" --goal spiral
      npuzzle check - --json < boards.txt
    """
    if io.is_stdin(board):
        from . import stream

        batch = stream.Batch(
            one=_verdict,
            text=lambda v: _reason(v[2], solvable_for(v[0], v[1])),
            record=lambda v: answers.solvability_record(*v),
            code=lambda v: errors.EXIT_OK if v[2].solvable else errors.EXIT_UNSOLVABLE,
            bulk=_bulk,
            goal=goal,
            shape=shape,
            as_json=as_json,
        )
        raise SystemExit(stream.run(batch))
    start, goal_b = api.read_problem(io.board_text(board), goal, shape)
    s = solvability(start, goal_b)
    if as_json:
        click.echo(io.json_line(answers.solvability_record(start, goal_b, s)))
    else:
        other = answers.other_goal_text(solvable_for(start, goal_b))
        click.echo("solvable" if s.solvable else f"unsolvable ({other})" if other else "unsolvable")
        for line in working(start, goal_b, s):
            click.echo(line)
    raise SystemExit(errors.EXIT_OK if s.solvable else errors.EXIT_UNSOLVABLE)
