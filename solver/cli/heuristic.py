"""``npuzzle heuristic``: the additive pattern-database heuristic of a board (or a stream)."""

from __future__ import annotations

import time

import click

from .. import answers
from . import errors, io, options
from .forwarding import forwarded
from .group import main_group as main


def _bulk(partition, reflect: bool, data_dir):
    """The heuristic of a whole group of boards at once (with its parts for --json): the
    estimate :func:`solver.search.sources.heuristic_source` chooses for the group's goal."""

    def answer(group, as_json: bool):
        import numpy as np

        from ..search import sources
        from ..workloads import bulk_answers
        from .stream import BulkAnswers

        t0 = time.perf_counter()
        asked = answers.heuristic_partition(partition, group.goal)
        source = sources.heuristic_source(group.goal, asked, data_dir, partition or None)
        kind, notice = source.kind, source.notice
        if kind != answers.EXACT_ESTIMATE:  # "h is the exact distance": --json says it
            errors.notice(notice)
        parity = bulk_answers.parity_many(group.tiles, group.goal)
        ok = parity.solvable
        out = BulkAnswers(unsolvable=~ok, parity=parity, ints=np.zeros(len(ok), np.int64))
        if not ok.any():
            return out
        tiles = group.tiles[ok]
        if kind == answers.PDB_ESTIMATE:
            values = bulk_answers.pattern_values(tiles, group.goal, asked, reflect, data_dir)
            out.ints[ok] = values.h
            if as_json:
                _json_records(out, group, ok, values, reflect, t0)
            return out
        lc = bulk_answers.linear_conflict_many(tiles, group.goal)
        exact = kind == answers.EXACT_ESTIMATE
        out.ints[ok] = bulk_answers.exact_distances(tiles, group.goal, data_dir) if exact else lc
        if as_json:
            md = bulk_answers.manhattan_many(tiles, group.goal)
            _records(
                out,
                group,
                ok,
                t0,
                lambda j: answers.estimate_parts(kind, notice, group.goal, int(md[j]), int(lc[j])),
            )
        return out

    return answer


def _records(out, group, ok, t0, parts_of) -> None:
    """Fill ``out.record`` with the record of each solvable row: its ``h`` and
    ``parts_of(j)``, ``j`` its row among the solvable ones."""
    import numpy as np

    where = np.cumsum(ok) - 1  # row k of the group -> row of the solvable subset
    share = (time.perf_counter() - t0) / max(1, len(ok))
    goal, shape = group.goal.flat(), str(group.shape)

    def record(k: int) -> dict:
        parts = {"h": int(out.ints[k]), **parts_of(where[k])}
        board = " ".join(map(str, group.tiles[k].tolist()))
        return answers.heuristic_fields(board, goal, shape, parts, share)

    out.record = record


def _json_records(out, group, ok, values, reflect, t0) -> None:
    """Fill ``out.record`` from a pattern database: the same fields as
    :func:`solver.heuristics.evaluate`."""
    from ..workloads import bulk_answers

    tiles = group.tiles[ok]
    md = bulk_answers.manhattan_many(tiles, group.goal)
    lc = bulk_answers.linear_conflict_many(tiles, group.goal)
    pdb = values.pdb
    used = reflect and values.reflected is not None
    names = [",".join(map(str, t.tiles)) for t in pdb.tables]
    _records(
        out,
        group,
        ok,
        t0,
        lambda j: {
            "heuristic": answers.PDB_ESTIMATE,
            "plain": int(values.plain[j]),
            "reflected": None if values.reflected is None else int(values.reflected[j]),
            "reflect": used,
            "partition": pdb.name,
            "database": pdb.path.name,
            "patterns": [
                {"tiles": name, "h": int(v)} for name, v in zip(names, values.parts[j].tolist())
            ],
            "manhattan": int(md[j]),
            "linear_conflict": int(lc[j]),
        },
    )


@main.command()
@io.board_argument
@options.taken_by("heuristic")
@forwarded
@errors.guarded
def heuristic(board, goal, shape, data_dir, as_json, partition, reflect):
    """Print the best lower bound on BOARD's distance to the goal that is built, as
    solve chooses it: the exact table's distance where one is built for the shape (2x3,
    3x3, ...), else the additive pattern database (the max of the sum of the pattern
    tables and the same sum for the board mirrored across the diagonal), else linear
    conflict.  A note on stderr names the estimate when it is not a pattern database;
    --partition asks for that database and no other.

    The database is the one built for the goal, else one built for a goal that a
    rotation or reflection of the board and a renaming of the tiles carry it onto.
    --json names the estimate ("heuristic": "exact", "pdb" or "linear-conflict") and
    adds the parts: for a database the plain and mirrored sums, each pattern's value and
    the file; always Manhattan distance and linear conflict for comparison.  With BOARD
    '-', reads one board per line and prints one value per line.

    \b
      npuzzle heuristic 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 --goal blank-first
      npuzzle heuristic 8 6 7 2 5 4 3 0 1 --json
      npuzzle heuristic "1 2 3/4 5 6/0 7 8" --partition 1,2,3,4/5,6,7,8 --json
      npuzzle heuristic - --partition 6-6-3 < boards.txt
    """

    def answer(text, goal_b=goal) -> dict:
        rec = answers.heuristic_record(
            text, goal_b, shape, partition=partition, reflect=reflect, data_dir=data_dir
        )
        if rec.get("heuristic") != "exact":  # "h is the exact distance": --json says it
            errors.notice(rec.get("notice"))
        return rec

    if io.is_stdin(board):
        from . import stream

        batch = stream.Batch(
            one=lambda start, goal_b: answer(start, goal_b),
            text=lambda rec: str(rec["h"]),
            record=lambda rec: rec,
            bulk=_bulk(partition, reflect, data_dir),
            goal=goal,
            shape=shape,
            as_json=as_json,
        )
        raise SystemExit(stream.run(batch))
    ans = io.answer_one(answer, io.board_text(board), as_json)
    click.echo(io.json_line(ans) if as_json else str(ans["h"]))
