"""Every file in data/ is a batch the tools read: its header comment names the columns, the
board comes from the column called ``tiles`` and is read for the goal that column names."""

from __future__ import annotations

import json

import pytest
from conftest import REFERENCE_DIR

from solver.core.board import goal_board

FILES = sorted(p.name for p in REFERENCE_DIR.glob("*.txt"))
WITHOUT_BOARDS = {"distances-4x4.txt", "korf-felner-24-clausecker.txt"}


def data_lines(name: str) -> list[tuple[int, list[str]]]:
    """(line number, columns) of each line of a reference file that is not a comment."""
    text = (REFERENCE_DIR / name).read_text().splitlines()
    return [(n, line.split("\t")) for n, line in enumerate(text, 1) if line[:1].isdigit()]


def tiles(value) -> list[str]:
    """A record's board or goal as a list of tile words, whether written flat or as a list."""
    return value.split() if isinstance(value, str) else [str(t) for t in value]


def records(run_cli, name: str, *args, bulk: bool = True) -> tuple[int, list[dict]]:
    env = {"NPUZZLE_BULK": "1" if bulk else "0"}
    text = (REFERENCE_DIR / name).read_text()
    r = run_cli(["check", "-", "--json", *args], input=text, env=env)
    return r.exit_code, [json.loads(x) for x in r.stdout.splitlines()]


def test_every_reference_file_is_known():
    assert set(FILES) >= WITHOUT_BOARDS and len(FILES) >= 6


@pytest.mark.parametrize("bulk", [True, False])
@pytest.mark.parametrize("name", sorted(set(FILES) - WITHOUT_BOARDS))
def test_each_board_reads_with_its_own_goal(run_cli, name, bulk):
    code, got = records(run_cli, name, bulk=bulk)
    rows = data_lines(name)
    assert code == 0, got[:2]
    assert [g["line"] for g in got] == [n for n, _ in rows]
    for rec, (_, cells) in zip(got, rows):
        assert rec["solvable"] is True and rec["id"] == cells[0], rec
        assert tiles(rec["board"]) == cells[1].split(), rec
        assert tiles(rec["goal"]) == goal_board(rec["shape"], "blank-first").flat().split()


def test_a_file_with_a_board_for_each_goal_reads_the_column_asked(run_cli):
    rows = data_lines("hardest80.txt")
    for goal, column in (("blank-first", 1), ("blank-last", 3)):
        code, got = records(run_cli, "hardest80.txt", "--goal", goal)
        assert code == 0 and len(got) == len(rows) == 17
        assert [tiles(g["board"]) for g in got] == [cells[column].split() for _, cells in rows]
        assert all(tiles(g["goal"]) == goal_board("4x4", goal).flat().split() for g in got)


@pytest.mark.parametrize("name", sorted(WITHOUT_BOARDS))
def test_a_file_without_boards_says_so_on_each_line(run_cli, name):
    code, got = records(run_cli, name)
    assert code == 2 and len(got) == len(data_lines(name))
    for rec in got:
        assert "no column is called board or tiles" in rec["error"], rec
        assert "the header on line" in rec["error"], rec
