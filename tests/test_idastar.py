"""IDA* (solver.search.idastar) and batch solving (solver.workloads.batch).

Truth comes from an independent breadth-first search (tests/naive_bfs.py) on 3x3 and from the
published lengths of Korf's instances on 4x4.  The incremental rank updates are checked by a
trick: pattern tables filled with the Manhattan distance of the pattern's tiles give exactly the
Manhattan heuristic, so IDA* over them (with or without the reflection lookup) must retrace the
Manhattan search node for node -- any wrong rank would change some h and the node count.
"""

from __future__ import annotations

import os
import random
import re
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import reference_file, watched
from naive_bfs import distances_from

from solver import api
from solver.api import SearchOptions
from solver.core.board import Board, Shape, goal_board
from solver.core.ranking import count_placements, unrank_many
from solver.core.solution import SearchLimitReached
from solver.core.symmetry import diagonal_reflection
from solver.search import idastar
from solver.tables.store import DatabaseMissing
from solver.workloads.batch import solve_stream

SHAPE3 = Shape(3, 3)
SHAPE4 = Shape(4, 4)


def first_plan(goal, opts):
    """The plan an IDA* search towards ``goal`` with ``opts`` starts with, and its reduction."""
    return api.search_request(goal, goal, opts).plans[0]


def korf_instances(count: int | None = None) -> list[tuple[int, str, int]]:
    """(id, tiles for the blank-first goal, optimal length) of Korf's 100 instances."""
    path = reference_file("korf100.txt")
    rows = []
    for line in path.read_text().splitlines():
        if line and line[0].isdigit():
            f = line.split("\t")
            rows.append((int(f[0]), f[1], int(f[2])))
    return rows[:count]


def random_walk(goal: Board, steps: int, rng: random.Random) -> Board:
    """A board ``steps`` moves from ``goal`` (never undoing the previous move)."""
    board, last = goal, None
    for _ in range(steps):
        moves = [
            m
            for m in board.legal_moves()
            if m != {"U": "D", "D": "U", "L": "R", "R": "L"}.get(last)
        ]
        last = rng.choice(moves)
        board = board.move(last)
    return board


def manhattan_tables(shape: Shape, goal: Board, patterns) -> list[np.ndarray]:
    """Pattern tables holding the Manhattan distance of the pattern's tiles (test fixture: an
    additive 'database' whose sum is exactly the Manhattan distance)."""
    n, cols = shape.size, shape.cols
    home = {t: c for c, t in enumerate(goal.tiles)}
    out = []
    for p in patterns:
        p = sorted(p)
        cells = unrank_many(np.arange(count_placements(n, len(p))), n, len(p))
        v = np.zeros(len(cells), dtype=np.int64)
        for i, t in enumerate(p):
            c = cells[:, i]
            v += abs(c // cols - home[t] // cols) + abs(c % cols - home[t] % cols)
        out.append(v.astype(np.uint8))
    return out


@pytest.fixture(scope="session")
def truth3():
    """Optimal distance of every solvable 3x3 state to the default goal (naive BFS)."""
    return distances_from(goal_board(SHAPE3).tiles, 3, 3)


def sample_states(truth: dict, count: int, seed: int) -> list[tuple[tuple, int]]:
    rng = random.Random(seed)
    states = sorted(truth)
    return [(s, truth[s]) for s in rng.sample(states, count)]


# --- Manhattan and linear conflict: exact answers on 3x3 -------------------------------------


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict"])
def test_3x3_optimal_with_simple_heuristics(truth3, heuristic):
    opts = SearchOptions(algorithm="idastar", heuristic=heuristic)
    for tiles, dist in sample_states(truth3, 300, seed=len(heuristic)):
        sol = api.solve(Board(SHAPE3, tiles), options=opts)  # api.solve replays the moves
        assert sol.length == dist, (tiles, sol.moves)
        assert sol.optimal and sol.algorithm == "idastar"
        assert sol.root_h <= dist and sol.nodes_generated >= sol.length


@pytest.mark.parametrize("goal", ["blank-first", "snake", "spiral", "4 1 2/0 8 3/7 6 5"])
def test_3x3_other_goals(goal, truth3):
    goal_b = goal_board(SHAPE3, goal)
    truth = distances_from(goal_b.tiles, 3, 3)
    for h in ("linear-conflict", "manhattan"):
        for tiles, dist in sample_states(truth, 40, seed=7):
            sol = api.solve(Board(SHAPE3, tiles), goal, algorithm="idastar", heuristic=h)
            assert sol.length == dist


def test_linear_conflict_is_admissible_and_dominates_manhattan(truth3):
    lc = idastar.lc_plan(SHAPE3, goal_board(SHAPE3))
    for tiles, dist in sample_states(truth3, 2000, seed=3):
        arr = np.array(tiles, dtype=np.int64)
        _, h = idastar.line_values(lc, arr)
        md = sum(lc.lines.md[t, c] for c, t in enumerate(tiles) if t)
        assert md <= h <= dist


def test_already_solved_and_one_move():
    g = goal_board(SHAPE4)
    for h in ("manhattan", "linear-conflict"):
        assert api.solve(g, algorithm="idastar", heuristic=h).moves == ""
        assert api.solve(g.move("U"), algorithm="idastar", heuristic=h).moves == "D"


# --- the incremental rank updates ------------------------------------------------------------


@pytest.mark.parametrize(
    "shape,patterns",
    [
        ("3x3", [(1, 2, 3, 4), (5, 6, 7, 8)]),
        ("3x3", [(2, 5, 8), (1, 4), (3, 6, 7)]),
        ("4x4", [(1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)]),
        ("4x4", [(1, 5, 9, 13), (2, 3, 6, 7), (4, 8, 12, 14), (10, 11, 15)]),
    ],
)
@pytest.mark.parametrize("reflect", [False, True])
def test_rank_updates_retrace_manhattan(shape, patterns, reflect):
    shape = Shape.parse(shape)
    goal = goal_board(shape)
    plan = idastar.pdb_plan(
        shape,
        goal,
        patterns,
        manhattan_tables(shape, goal, patterns),
        reflect=reflect,
        name="md-as-pdb",
        database=None,
    )
    assert plan.reflect == reflect
    man = idastar.manhattan_plan(shape, goal)
    rng = random.Random(11)
    for _ in range(12 if shape.size == 9 else 4):
        start = random_walk(goal, 26 if shape.size == 9 else 30, rng)
        a = idastar.search(plan, start.tiles)
        b = idastar.search(man, start.tiles)
        assert (a.moves, a.generated, a.iterations) == (b.moves, b.generated, b.iterations)


def test_the_reflection_fixes_the_goal():
    for shape in (SHAPE3, SHAPE4, Shape(5, 5)):
        goal = goal_board(shape)
        r = diagonal_reflection(goal)
        mc = r.symmetry.cells
        mirrored = [0] * shape.size
        for c, t in enumerate(goal.tiles):
            mirrored[mc[c]] = r.relabel[t]
        assert tuple(mirrored) == goal.tiles and r.board(goal) == goal
    assert diagonal_reflection(goal_board("2x3")) is None
    assert diagonal_reflection(goal_board("3x3", "4 1 2/3 0 5/6 7 8")) is not None
    assert diagonal_reflection(goal_board("3x3", "1 0 2/3 4 5/6 7 8")) is None


# --- limits, interruption and missing databases ----------------------------------------------

HARD = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf #1, 57 moves to blank-first


def test_max_nodes_raises_with_a_lower_bound():
    with pytest.raises(SearchLimitReached) as info:
        api.solve(
            HARD, "blank-first", algorithm="idastar", heuristic="manhattan", max_nodes=200_000
        )
    part = info.value.partial
    assert part.moves is None and part.status == "limit"
    assert part.root_h <= part.lower_bound <= 57
    assert (57 - part.lower_bound) % 2 == 0
    assert 200_000 <= part.nodes_generated < 200_000 + 1000
    assert "node limit" in str(info.value)


def test_timeout_raises_promptly():
    t0 = time.perf_counter()
    with pytest.raises(SearchLimitReached) as info:
        api.solve(HARD, "blank-first", algorithm="idastar", heuristic="manhattan", timeout=0.3)
    assert time.perf_counter() - t0 < 2.0
    assert "time limit" in str(info.value)
    assert 41 <= info.value.partial.lower_bound <= 57


# `npuzzle solve` on a search of hours (Manhattan on the 15-puzzle's reversal), saying each
# long iteration on stderr (-v): once one is said, the kernels are loaded and the search is
# under way.
LONG_SOLVE = [
    "solve",
    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0",
    "--goal",
    "0 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1",
    "--algorithm",
    "idastar",
    "--heuristic",
    "manhattan",
    "-v",
]


def interrupted_solve(data_dir, *options: str) -> tuple[int, str]:
    """``(exit status, stderr)`` of the long solve given Ctrl-C once an iteration is said."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    args = [sys.executable, "-m", "solver", *LONG_SOLVE, *options, "--data-dir", str(data_dir)]
    run = watched(args, env=env)
    run.wait_for(b"npuzzle: iteration")
    run.proc.send_signal(signal.SIGINT)
    # The search would go on for hours: ending at all is ending because of Ctrl-C.
    return run.proc.wait(timeout=120), run.output().decode()


def said_what_was_proven(err: str) -> bool:
    """The last line of an interrupted solve: the bound it proved and the command that goes on
    (``splitlines`` also ends the status line that the message's carriage return wrote over)."""
    last = err.splitlines()[-1]
    return (
        err.endswith("\n")
        and "Traceback" not in err
        and bool(
            re.fullmatch(
                r"npuzzle: interrupted after [\d.,]+ s: the optimal length is at least \d+; "
                r"go on with: npuzzle solve .* --resume \d+-[0-9a-f]{8}-[0-9a-f]{8}",
                last,
            )
        )
    )


def test_ctrl_c_ends_a_long_solve_in_one_line(tmp_path):
    status, err = interrupted_solve(tmp_path, "--jobs", "1")
    assert status == 130 and said_what_was_proven(err), err


def test_4x4_auto_without_database_says_how_to_build(tmp_path, monkeypatch):
    with pytest.raises(DatabaseMissing) as info:
        api.solve(HARD, "blank-first", algorithm="idastar", data_dir=tmp_path)
    assert info.value.fix.startswith("build-pdb --shape 4x4 --partition 6-6-3")
    monkeypatch.setenv("NPUZZLE_DATA", str(tmp_path))
    with pytest.raises(DatabaseMissing) as info:
        api.solve(HARD, "blank-first", algorithm="idastar")
    assert info.value.fix == "build-pdb --shape 4x4 --partition 6-6-3 --goal blank-first"


def test_pdb_without_database_is_missing(tmp_path):
    with pytest.raises(DatabaseMissing) as info:
        api.solve("1 2 3/4 5 6/0 7 8", algorithm="idastar", heuristic="pdb", data_dir=tmp_path)
    assert "build-pdb" in info.value.fix


def test_3x3_auto_without_database_uses_linear_conflict(tmp_path):
    sol = api.solve("8 6 7/2 5 4/3 0 1", algorithm="idastar", data_dir=tmp_path)
    assert sol.length == 31 and sol.heuristic == "linear-conflict"


# --- batches ---------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_batch_in_input_order_with_errors(jobs, truth3):
    states = sample_states(truth3, 12, seed=5)
    lines = [" ".join(map(str, s)) for s, _ in states]
    lines[3:3] = ["", "1 2 3/4 5 6/8 7 0", "1 2 2 4 5 6 7 8 0"]
    want = {" ".join(map(str, s)): d for s, d in states}
    opts = SearchOptions(algorithm="idastar", heuristic="linear-conflict")
    out = list(solve_stream(lines, options=opts, jobs=jobs))
    assert [line for line, _ in out] == lines
    kinds = [type(r).__name__ for _, r in out]
    assert kinds[3:6] == ["NoneType", "Unsolvable", "BoardError"]
    for line, r in out:
        if line in want:
            assert r.length == want[line]
    unsolvable = out[4][1]
    assert unsolvable.solvability.start_inversions == 1  # attributes survive the process hop


def test_batch_limits_come_back_as_values():
    opts = SearchOptions(algorithm="idastar", heuristic="manhattan", max_nodes=10_000)
    out = list(solve_stream([HARD, HARD], goal="blank-first", options=opts, jobs=2))
    for _, r in out:
        assert isinstance(r, SearchLimitReached) and r.partial.lower_bound >= 41


# --- with pattern databases built in the test session ----------------------------------------


@pytest.mark.parametrize("partition", ["4-4", "1,4,7/2,5,8/3,6"])
@pytest.mark.parametrize("reflect", [True, False])
def test_3x3_optimal_with_a_pattern_database(truth3, pdb_dir, partition, reflect):
    opts = SearchOptions(
        algorithm="idastar", heuristic="pdb", partition=partition, reflect=reflect, data_dir=pdb_dir
    )
    for tiles, dist in sample_states(truth3, 250, seed=reflect):
        sol = api.solve(Board(SHAPE3, tiles), options=opts)
        assert sol.length == dist, (tiles, sol.moves)
        assert sol.database and sol.database.startswith("apdb-3x3-")
        assert sol.root_h <= dist


@pytest.mark.parametrize("goal", ["blank-first", "snake", "8 7 6/5 4 3/2 1 0"])
def test_3x3_pattern_database_through_symmetry(pdb_dir, goal):
    goal_b = goal_board(SHAPE3, goal)
    truth = distances_from(goal_b.tiles, 3, 3)
    opts = SearchOptions(algorithm="idastar", heuristic="pdb", partition="4-4", data_dir=pdb_dir)
    for tiles, dist in sample_states(truth, 60, seed=2):
        assert api.solve(Board(SHAPE3, tiles), goal, options=opts).length == dist


def test_root_h_is_the_database_value(pdb_dir):
    from solver.tables.partitions import parse_partition
    from solver.tables.pattern_db import load_apdb

    pdb = load_apdb(SHAPE4, parse_partition("5-5-5", SHAPE4), None, pdb_dir)
    opts = SearchOptions(algorithm="idastar", partition="5-5-5", data_dir=pdb_dir)
    plan, _ = first_plan(goal_board(SHAPE4), opts)
    rng = random.Random(4)
    for _ in range(100):
        tiles = list(range(16))
        rng.shuffle(tiles)
        _, vals, _ = plan.ranks(np.array(tiles))
        h, hm = vals.sum(axis=1)
        assert h == pdb.value(tiles, reflect=False)
        assert max(h, hm) == pdb.value(tiles) == plan.h(tiles)


@pytest.mark.parametrize("reflect", [True, False])
def test_korf_instances_with_5_5_5(pdb_dir, reflect):
    opts = SearchOptions(algorithm="idastar", partition="5-5-5", reflect=reflect, data_dir=pdb_dir)
    for _, tiles, length in korf_instances(4 if reflect else 2):
        sol = api.solve(tiles, "blank-first", options=opts)
        assert sol.length == length
        assert sol.heuristic == "pdb 5-5-5" + (" + reflection" if reflect else "")
        assert sol.database == "apdb-4x4-5-5-5.h5" and sol.root_h <= length
        assert sol.iterations >= 1 and sol.nodes_expanded <= sol.nodes_generated


@pytest.mark.parametrize("goal", [None, "blank-first"])
def test_random_walks_solve_within_their_length(pdb_dir, goal):
    goal_b = goal_board(SHAPE4, goal)
    rng = random.Random(8)
    opts = SearchOptions(algorithm="idastar", data_dir=pdb_dir)  # auto: the 5-5-5 database
    for _ in range(25):
        steps = rng.randint(0, 30)
        start = random_walk(goal_b, steps, rng)
        sol = api.solve(start, goal, options=opts)
        assert sol.length <= steps and (steps - sol.length) % 2 == 0
        assert sol.heuristic == "pdb 5-5-5 + reflection"


def test_pdb_limits(pdb_dir):
    opts = SearchOptions(algorithm="idastar", partition="5-5-5", data_dir=pdb_dir, max_nodes=1000)
    with pytest.raises(SearchLimitReached) as info:
        api.solve(HARD, "blank-first", options=opts)
    part = info.value.partial
    assert part.root_h <= part.lower_bound <= 57 and part.database == "apdb-4x4-5-5-5.h5"


def test_missing_partition_names_its_build_command(pdb_dir):
    with pytest.raises(DatabaseMissing) as info:
        api.solve(HARD, "blank-first", algorithm="idastar", partition="7-8", data_dir=pdb_dir)
    assert "build-pdb --shape 4x4 --partition 7-8" in info.value.fix


def test_batch_on_two_processes_with_the_database(pdb_dir):
    rows = korf_instances(3)
    lines = [tiles for _, tiles, _ in rows]
    opts = SearchOptions(algorithm="idastar", data_dir=pdb_dir)
    out = list(solve_stream(lines, goal="blank-first", options=opts, jobs=2, progress=True))
    assert [r.length for _, r in out] == [length for _, _, length in rows]


@pytest.mark.parametrize("shape", ["2x4", "4x2", "3x2"])
def test_rectangles_with_every_heuristic(shape, tmp_path):
    from pdb_builder.build_apdb import build_apdb

    shape = Shape.parse(shape)
    goal = goal_board(shape)
    truth = distances_from(goal.tiles, shape.rows, shape.cols)
    half = shape.size // 2
    partition = (
        ",".join(map(str, range(1, half))) + "/" + ",".join(map(str, range(half, shape.size)))
    )
    build_apdb(shape, partition, None, tmp_path, progress=False)
    for h in ("manhattan", "linear-conflict", "pdb"):
        opts = SearchOptions(algorithm="idastar", heuristic=h, data_dir=tmp_path)
        for tiles, dist in sample_states(truth, 60, seed=9):
            sol = api.solve(Board(shape, tiles), options=opts)
            assert sol.length == dist, (h, tiles)
    assert first_plan(goal, SearchOptions(data_dir=tmp_path))[0].reflect is False


@pytest.mark.parametrize("first_stack", [64, 20])
def test_iterations_inside_one_kernel_call_are_the_same_search(pdb_dir, monkeypatch, first_stack):
    """A serial walk goes on to the next iteration inside the kernel call; a search whose
    progress callback hears about every iteration makes one call per iteration.  Both must be
    the same search: the same moves, nodes, iterations and bound -- also when the bound
    outgrows the walk's stack (a first stack of 20 levels), where the kernel hands the next
    iteration back to the driver to grow it."""
    from solver.search import driver, walk_state

    made = walk_state.new_stack
    first = 64  # what a new walk asks for; the walk grows it as the bound needs

    def stack(depth, lookups=1):
        return made(first_stack if depth == first else depth, lookups)

    monkeypatch.setattr(walk_state, "new_stack", stack)
    opts = SearchOptions(algorithm="idastar", partition="5-5-5", data_dir=pdb_dir)
    plan, red = first_plan(goal_board(SHAPE4, "blank-first"), opts)
    heard = []
    boards = [tiles for _, tiles, _ in korf_instances(6)]
    boards.append(str(goal_board(SHAPE4, "blank-first").move("D")))  # one move: no iteration
    for text in boards:
        tiles = red.board(api.read_problem(text, "blank-first", "4x4")[0]).tiles
        inside = driver.search(plan, tiles)
        each = driver.search(plan, tiles, driver.SearchSettings(progress=heard.append))
        assert inside.moves == each.moves
        assert (inside.generated, inside.expanded) == (each.generated, each.expanded)
        assert (inside.iterations, inside.lower_bound) == (each.iterations, each.lower_bound)
    assert heard, "the progress callback heard no iteration"
    # The same under a node cap that stops a search in a later iteration.
    tiles = red.board(api.read_problem(boards[0], "blank-first", "4x4")[0]).tiles
    cap = driver.search(plan, tiles).generated // 2
    inside = driver.search(plan, tiles, driver.SearchSettings(max_nodes=cap))
    each = driver.search(plan, tiles, driver.SearchSettings(max_nodes=cap, progress=heard.append))
    assert inside.stopped and each.stopped
    assert inside.lower_bound == each.lower_bound
