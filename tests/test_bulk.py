"""Batches answered in bulk (numpy) are byte for byte the batches answered line by line:
mixed input through every batch command, the vectorised answers against their one-board
twins, and every producer's output piped into every batch command."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import heuristics
from solver.core.board import Board, goal_board, solvability
from solver.tables import exact
from solver.workloads import bulk_answers as ba

COMMANDS = ["distance", "check", "solve", "heuristic"]
TIMINGS = re.compile(r'"(search_)?seconds":[0-9.e-]+')


def run_both(run_cli, args, text):
    """(bulk result, line-by-line result), outputs without the timing fields."""
    out = []
    for flag in ("1", "0"):
        r = run_cli(args, input=text, env={"NPUZZLE_BULK": flag})
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        assert "Traceback" not in r.stderr
        # (stderr is left out: a notice is said once per process, and both run in this one)
        out.append((r.exit_code, TIMINGS.sub("", r.stdout)))
    return out


def board_text(tiles, shape, style: int) -> str:
    rows, cols = shape
    flat = " ".join(map(str, tiles))
    grid = [list(tiles[i : i + cols]) for i in range(0, len(tiles), cols)]
    return [
        flat,
        ",".join(map(str, tiles)),
        "/".join(" ".join(map(str, r)) for r in grid),
        json.dumps(grid),
        json.dumps({"board": flat, "id": len(tiles)}),
        json.dumps({"start": list(tiles), "goal": "blank-first", "note": [1, 2]}),
        f"{'/'.join(' '.join(map(str, r)) for r in grid)}\t{sum(tiles)}",
        " ".join("x" if t == 0 else str(t) for t in tiles),
    ][style]


GARBAGE = [
    "junk",
    "",
    "# comment",
    "1 2 3",
    "1 1 2 3 4 5",
    "[[1,2],[3",
    '{"board": 5}',
    "{",
    "1 2 3 4 5 6 7 8 " + "9" * 4301,
    "[" * 1000 + "]" * 1000,
    "08 06 07 02 05 04 03 00 01",
    "1 2 3 4 5 6 7 8 0 9",
    "\t",
    "x x x x x x x x x",
    '{"board": "1 2 3 4 0 5", "shape": "3x2"}',
    "-1 2 3 4 5 6 7 8 0",
    "1 2 3 4 5 6 7 8 0\x00",
    "٣ 1 2 4 5 6 7 8 0",
]


@st.composite
def mixed_input(draw):
    out = []
    for _ in range(draw(st.integers(1, 25))):
        if draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(GARBAGE)))
            continue
        shape = draw(st.sampled_from([(2, 3), (3, 3)]))
        tiles = draw(st.permutations(range(shape[0] * shape[1])))
        out.append(board_text(tiles, shape, draw(st.integers(0, 7))))
    return "\n".join(out) + draw(st.sampled_from(["\n", "", "\r\n"]))


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("as_json", [False, True])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=mixed_input())
def test_bulk_is_the_line_by_line_path(run_cli, tables_dir, command, as_json, text):
    args = [command, "-", "--data-dir", tables_dir] + (["--json"] if as_json else [])
    bulk, one = run_both(run_cli, args, text)
    assert bulk == one


def test_hostile_lines_are_answered_one_by_one(run_cli, tables_dir):
    hostile = [g for g in GARBAGE if "3x2" not in g]  # (heuristic has no 3x2 database: exit 3)
    text = "\n".join(["8 6 7 2 5 4 3 0 1", *hostile, "x" * 2_000_000, "8 6 7 2 5 4 3 0 1"]) + "\n"
    for command in COMMANDS:
        for extra in ([], ["--json"]):
            bulk, one = run_both(run_cli, [command, "-", "--data-dir", tables_dir, *extra], text)
            assert bulk == one
            code, out = bulk
            answers = out.split("\n")[:-1]
            # Text: a line for each line; JSON: a record for each line that asks something.
            asking = [g for g in hostile if g.strip() and not g.startswith("#")]
            assert len(answers) == len(asking if extra else hostile) + 3 and code == 2
            assert "longer than 1,048,576 bytes" in answers[-2]


def test_a_broken_first_line_does_not_stop_a_big_batch(run_cli, tables_dir):
    good = "8 6 7 2 5 4 3 0 1\n" * 20000
    r = run_cli(["distance", "-", "--data-dir", tables_dir], input=b"\xff\n" + good.encode())
    out = r.stdout.split("\n")[:-1]
    assert r.exit_code == 2 and out[0].startswith("error: line 1 is not UTF-8")
    assert out[1:] == ["31"] * 20000


# --- vectorised answers against their one-board twins ------------------------------------------


def random_boards(shape, count, seed):
    g = goal_board(shape)
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(g.shape.size) for _ in range(count)])


@pytest.mark.parametrize(
    "shape,goal",
    [
        ("3x3", None),
        ("3x3", "spiral"),
        ("2x3", "blank-first"),
        ("4x4", None),
        ("4x4", "snake"),
        ("3x4", None),
    ],
)
def test_parity_manhattan_linear_conflict(shape, goal):
    g = goal_board(shape, goal)
    tiles = random_boards(shape, 200, 1)
    p = ba.parity_many(tiles, g)
    lc, md = ba.linear_conflict_many(tiles, g), ba.manhattan_many(tiles, g)
    for i, row in enumerate(tiles):
        b = Board(g.shape, tuple(int(t) for t in row))
        s = solvability(b, g)
        assert (p.solvable[i], p.start_inversions[i], p.start_blank_row[i]) == (
            s.solvable,
            s.start_inversions,
            s.start_blank_row_from_bottom,
        )
        assert lc[i] == heuristics.linear_conflict(b, g) and md[i] == heuristics.manhattan(b, g)


@pytest.mark.parametrize("shape,goal", [("3x3", None), ("3x3", "snake"), ("2x3", "blank-first")])
def test_table_walks_and_distances(tables_dir, shape, goal):
    g = goal_board(shape, goal)
    tiles = random_boards(shape, 300, 2)
    walks = ba.table_walks(tiles, g, tables_dir)
    d = ba.exact_distances(tiles, g, tables_dir)
    for i, row in enumerate(tiles):
        b = Board(g.shape, tuple(int(t) for t in row))
        assert walks[i] == exact.optimal_moves(b, g, tables_dir)
        assert d[i] == (-1 if walks[i] is None else len(walks[i]))


@pytest.mark.parametrize("shape,goal", [("4x4", None), ("4x4", "blank-first"), ("3x3", None)])
def test_pattern_values(tables_dir, shape, goal):
    g = goal_board(shape, goal)
    tiles = random_boards(shape, 200, 3)
    tiles = tiles[ba.parity_many(tiles, g).solvable]
    for reflect in (True, False):
        v = ba.pattern_values(tiles, g, None, reflect, tables_dir)
        for i, row in enumerate(tiles):
            e = heuristics.evaluate(
                Board(g.shape, tuple(int(t) for t in row)), g, None, reflect, tables_dir
            )
            assert e["h"] == v.h[i] and e["plain"] == v.plain[i]
            assert [p["h"] for p in e["patterns"]] == v.parts[i].tolist()


# --- what the tools write, read back --------------------------------------------------------


PRODUCERS = [
    ["generate", "--count", "6", "--seed", "4"],
    ["generate", "--count", "6", "--seed", "5", "--json"],
    ["generate", "--count", "4", "--seed", "6", "--goal", "blank-first", "--json"],
]


@pytest.mark.parametrize("producer", PRODUCERS)
def test_every_producer_feeds_every_batch_command(run_cli, tables_dir, producer):
    made = run_cli([*producer, "--data-dir", tables_dir])
    assert made.exit_code == 0, made.output
    produced = made.stdout
    boards = [
        json.loads(l)["board"] if l.startswith("{") else l.split("\t")[0]
        for l in produced.splitlines()
    ]
    goals = [json.loads(l)["goal"] if l.startswith("{") else None for l in produced.splitlines()]
    stages = [produced]
    for command in ("distance", "solve"):  # their --json answers feed the batch commands too
        r = run_cli([command, "-", "--json", "--data-dir", tables_dir], input=produced)
        stages.append(r.stdout)
    for text in stages:
        for command in COMMANDS:
            r = run_cli([command, "-", "--json", "--data-dir", tables_dir], input=text)
            got = [json.loads(l) for l in r.stdout.splitlines()]
            assert [g["line"] for g in got] == list(range(1, len(boards) + 1))
            for board, goal, rec in zip(boards, goals, got):
                one = run_cli(
                    [command, board, "--json", "--data-dir", tables_dir]
                    + (["--goal", goal] if goal else [])
                )
                want = json.loads(one.stdout.splitlines()[0])
                assert strip(rec, want) == strip(want, want), (command, board)


def strip(rec: dict, like: dict) -> dict:
    """The fields of ``rec`` that ``like`` has, without timings and the note (a batch's first
    record carries it, a one-board command's its only one)."""
    return {k: rec.get(k) for k in like if k not in ("seconds", "search_seconds", "notice")}


def test_generate_solve_stats_pipeline(run_cli, tables_dir):
    made = run_cli(["generate", "--count", "40", "--seed", "8", "--data-dir", tables_dir])
    lengths = [int(l.split("\t")[1]) for l in made.stdout.splitlines()]
    solved = run_cli(["solve", "-", "--data-dir", tables_dir], input=made.stdout)
    assert solved.exit_code == 0
    for text in (made.stdout, solved.stdout):
        r = run_cli(["stats", "-", "--json", "--data-dir", tables_dir], input=text)
        rec = json.loads(r.stdout)
        assert rec["total"] == 40 and rec["errors"] == 0
        assert rec["counts"] == [lengths.count(d) for d in range(max(lengths) + 1)]
    table = run_cli(["stats", "-", "--data-dir", tables_dir], input=solved.stdout)
    assert "40 answers" in table.stdout and f"maximum {max(lengths)}" in table.stdout


def test_stats_plots_the_lengths(run_cli, tables_dir, tmp_path, monkeypatch):
    from unittest import mock

    from solver.cli import stats as stats_cli

    plt = mock.MagicMock()
    fig, ax = mock.MagicMock(), mock.MagicMock()
    plt.subplots.return_value = (fig, ax)
    monkeypatch.setattr(stats_cli, "_pyplot", lambda: plt)
    target = tmp_path / "lengths.png"
    r = run_cli(
        ["stats", "-", "--plot", target, "--data-dir", tables_dir],
        input="31\n1 move: R\nunsolvable\n8 6 7 2 5 4 3 0 1\n",
    )
    assert r.exit_code == 0 and "3 answers, 1 without a length" in r.stdout
    counts = ax.bar.call_args[0][1]
    assert counts[31] == 2 and counts[1] == 1 and sum(counts) == 3
    fig.savefig.assert_called_once()
    assert fig.savefig.call_args[0][0] == str(target)


@pytest.fixture(scope="module")
def compact_dir(tmp_path_factory):
    """2x4 exact tables in the compact layout (one per blank-cell class)."""
    from pdb_builder.build import build_exact
    from solver.core.board import Shape
    from solver.tables import names

    d = tmp_path_factory.mktemp("compact")
    shape = Shape.parse("2x4")
    for cell in range(shape.size):
        build_exact(
            shape,
            d,
            progress=False,
            layout=names.COMPACT,
            goal=names.canonical_goal(shape, cell).flat(),
        )
    return d


@pytest.mark.parametrize("goal", ["blank-last", "blank-first", "spiral"])
def test_bulk_on_compact_tables(run_cli, compact_dir, goal):
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(60):
        t = rng.permutation(8)
        rows.append(" ".join(map(str, t[:4])) + "/" + " ".join(map(str, t[4:])))
    text = "\n".join(rows + ["junk", "1 2 3 4/5 6 7 7"]) + "\n"
    for command in ("distance", "solve", "check"):
        for extra in ([], ["--json"]):
            args = [command, "-", "--goal", goal, "--data-dir", compact_dir, *extra]
            bulk, one = run_both(run_cli, args, text)
            assert bulk == one and bulk[1].count("\n") == 62


def test_batches_keep_freed_memory_where_glibc_allows():
    import platform

    from solver.core import heap

    kept = heap.keep_freed_memory()
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert kept is True and heap.keep_freed_memory() is True  # and asking twice is fine
    else:
        assert kept is False
