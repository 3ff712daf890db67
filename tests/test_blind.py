"""The teaching searches (solver.search.blind) and `npuzzle compare`.

Optimal lengths are checked against the independent reference BFS of ``tests/naive_bfs.py``:
one BFS from the 3x3 goal over plain tile tuples, run once per session.
"""

from __future__ import annotations

import json
import random

import pytest
from conftest import assert_one_line_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive_bfs import distances_from

from solver import api
from solver.api import SearchOptions
from solver.core.board import Board, BoardError, Shape, goal_board, is_solvable
from solver.core.solution import SearchLimitReached, Unsolvable
from solver.search import blind

GOAL = goal_board("3x3")
SEED_START = "3 6 4/2 5 8/0 1 7"
SEED_GOAL = "0 1 2/3 4 5/6 7 8"
N_STATES_3x3 = 181_440  # 9!/2, one parity class
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="session")
def distance_3x3():
    """Distance to GOAL of every solvable 3x3 state, by the independent reference BFS."""
    dist = distances_from(GOAL.tiles, 3, 3)
    assert len(dist) == N_STATES_3x3
    return dist


@st.composite
def solvable_3x3(draw):
    """Any solvable 3x3 arrangement (an unsolvable draw gets two tiles swapped)."""
    tiles = list(draw(st.permutations(range(9))))
    board = Board.from_tiles(tiles, "3x3")
    if not is_solvable(board, GOAL):
        i, j = [k for k, t in enumerate(tiles) if t != 0][:2]
        tiles[i], tiles[j] = tiles[j], tiles[i]
        board = Board.from_tiles(tiles, "3x3")
    return board


@st.composite
def near_goal(draw, max_moves=12):
    """A 3x3 board a random walk of at most ``max_moves`` from GOAL (a short distance)."""
    board = GOAL
    for _ in range(draw(st.integers(0, max_moves))):
        board = board.move(draw(st.sampled_from(board.legal_moves())))
    return board


def run(board, goal=GOAL, **kw):
    return api.solve(board, goal, **kw)


# --- optimal algorithms ---------------------------------------------------------------------


@settings(max_examples=4, **SETTINGS)
@given(board=solvable_3x3())
def test_bfs_is_optimal(board, distance_3x3):
    sol = run(board, algorithm="bfs")
    assert sol.length == distance_3x3[board.tiles]
    assert sol.optimal is True


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict"])
@settings(max_examples=25, **SETTINGS)
@given(board=solvable_3x3())
def test_astar_is_optimal(heuristic, board, distance_3x3):
    sol = run(board, algorithm="astar", heuristic=heuristic)
    assert sol.length == distance_3x3[board.tiles]
    assert sol.optimal is True and sol.heuristic == heuristic
    assert sol.root_h <= sol.length


@pytest.fixture(scope="session")
def pdb_3x3_dir(tmp_path_factory):
    """A data directory with a 3x3 additive pattern database (tiles 1-4 / 5-8)."""
    pytest.importorskip("pdb_builder.build_apdb")
    from pdb_builder.build import build_partition

    d = tmp_path_factory.mktemp("apdb")
    build_partition(Shape(3, 3), "1,2,3,4/5,6,7,8", data_dir=d, progress=False)
    return d


@settings(max_examples=15, **SETTINGS)
@given(board=solvable_3x3())
def test_astar_with_a_pattern_database_is_optimal(board, distance_3x3, pdb_3x3_dir):
    sol = run(board, algorithm="astar", heuristic="pdb", data_dir=pdb_3x3_dir)
    assert sol.length == distance_3x3[board.tiles]
    assert sol.heuristic == "pdb" and sol.database and sol.root_h <= sol.length


def test_astar_auto_heuristic(pdb_3x3_dir, tmp_path):
    board = Board.parse("8 6 7/2 5 4/3 0 1")
    assert run(board, algorithm="astar", data_dir=pdb_3x3_dir).heuristic == "pdb"
    assert run(board, algorithm="astar", data_dir=tmp_path).heuristic == "linear-conflict"


def test_astar_reads_the_partition_asked_for(pdb_dir, run_cli):
    """``--partition`` is read for A* where it is read for IDA* (solver.api): a preset or
    tiles pick that database; a partition not built is exit 3 and words that name none exit
    2, with either algorithm, in the same words."""
    board = "8 6 7 2 5 4 3 0 1"
    for words, database in (("4-4", "apdb-3x3-4-4.h5"), ("3,6/7,4,1/8,5,2", "1.4.7-2.5.8-3.6")):
        sol = run(board, algorithm="astar", partition=words, data_dir=pdb_dir)
        assert sol.length == 31 and sol.heuristic == "pdb" and database in sol.database
    for words, code in (("1,2/3,4/5,6/7,8", 3), ("4-5", 2)):
        said = set()
        for algorithm in ("astar", "idastar"):
            r = run_cli(["solve", board, "-a", algorithm, "-p", words, "--data-dir", pdb_dir])
            assert_one_line_error(r, code)
            said.add(r.stderr)
        assert len(said) == 1, said


def test_astar_refuses_the_maximum_of_several_databases(pdb_dir, run_cli):
    """``A+B`` is IDA*'s: A* says so in one line (exit 2); IDA* searches with it."""
    board, both = "8 6 7 2 5 4 3 0 1", "4-4+1,4,7/2,5,8/3,6"
    r = run_cli(["solve", board, "-a", "astar", "-p", both, "--data-dir", pdb_dir])
    assert_one_line_error(r, 2)
    assert "one pattern database" in r.stderr and "IDA*" in r.stderr
    with pytest.raises(BoardError, match="IDA"):
        run(board, algorithm="astar", partition=both, data_dir=pdb_dir)
    assert run(board, algorithm="astar", heuristic="manhattan", partition=both).length == 31
    r = run_cli(["solve", board, "-a", "idastar", "-p", both, "--data-dir", pdb_dir])
    assert r.exit_code == 0 and r.stdout.startswith("31 moves")


@pytest.mark.parametrize("check", ["path", "parent"])
@settings(max_examples=20, **SETTINGS)
@given(board=near_goal())
def test_iddfs_is_optimal(check, board, distance_3x3):
    sol = run(board, algorithm="iddfs", cycle_check=check)
    assert sol.length == distance_3x3[board.tiles]
    assert sol.optimal is True
    assert sol.iterations == sol.length + 1  # limits 0, 1, ..., distance


@pytest.mark.parametrize("check", ["parent", "path"])
@settings(max_examples=10, **SETTINGS)
@given(board=near_goal(max_moves=10))
def test_bfs_with_other_cycle_checks_is_optimal(check, board, distance_3x3):
    sol = run(board, algorithm="bfs", cycle_check=check)
    assert sol.length == distance_3x3[board.tiles]


@pytest.mark.parametrize("shape", ["2x3", "3x2", "2x4"])
def test_bfs_and_astar_agree_on_other_shapes(shape):
    rng = random.Random(shape)
    goal = goal_board(shape)
    for _ in range(5):
        tiles = list(range(Shape.parse(shape).size))
        rng.shuffle(tiles)
        board = Board.from_tiles(tiles, shape)
        if not is_solvable(board, goal):
            continue
        assert (
            run(board, goal, algorithm="bfs").length
            == run(board, goal, algorithm="astar", heuristic="manhattan").length
        )


def test_bfs_visits_every_state_of_the_8_puzzle(distance_3x3):
    far = max(distance_3x3, key=distance_3x3.get)  # one of the two 31-move states
    sol = run(Board.from_tiles(far, "3x3"), algorithm="bfs")
    assert sol.length == 31
    # The goal is the last state popped, so (nearly) every state was expanded.
    assert sol.nodes_expanded >= N_STATES_3x3 - 2
    assert sol.peak_states <= 2 * N_STATES_3x3


def test_optimal_flag_of_dfs_comes_from_the_exact_table(exact_dir, distance_3x3):
    board = Board.parse(SEED_START)
    sol = run(board, SEED_GOAL, algorithm="dfs", data_dir=exact_dir)
    assert sol.optimal is False
    sol = run(board, SEED_GOAL, algorithm="dls", depth_limit=25, data_dir=exact_dir)
    assert sol.optimal is True
    assert run(board, SEED_GOAL, algorithm="dfs").optimal is None  # no table: unknown


# --- non-optimal algorithms -----------------------------------------------------------------


@settings(max_examples=3, **SETTINGS)
@given(board=solvable_3x3())
def test_dfs_returns_a_replayable_solution(board, distance_3x3):
    sol = run(board, algorithm="dfs")  # cycle check 'visited'; api.solve replays it too
    assert board.apply(sol.moves) == GOAL
    assert sol.length >= distance_3x3[board.tiles]
    assert sol.depth_reached >= sol.length
    assert sol.peak_states <= 2 * N_STATES_3x3


def test_dfs_with_the_path_check_on_the_seed_board():
    # Not a property: with only the path check DFS may wander through astronomically many
    # simple paths before it meets the goal.  On this board it is quick.
    start = Board.parse(SEED_START)
    sol = run(start, SEED_GOAL, algorithm="dfs", cycle_check="path", max_nodes=2_000_000)
    assert start.apply(sol.moves) == Board.parse(SEED_GOAL) and sol.length > 24


@pytest.mark.parametrize("check", ["path", "parent"])
@settings(max_examples=15, **SETTINGS)
@given(board=near_goal(max_moves=10), slack=st.integers(0, 3))
def test_dls_finds_a_solution_within_the_limit(check, board, slack, distance_3x3):
    d = distance_3x3[board.tiles]
    sol = run(board, algorithm="dls", depth_limit=d + slack, cycle_check=check)
    assert board.apply(sol.moves) == GOAL
    assert d <= sol.length <= d + slack
    assert sol.depth_reached <= d + slack


@settings(max_examples=15, **SETTINGS)
@given(board=near_goal(max_moves=11), short=st.integers(1, 3))
def test_dls_reports_not_found_below_the_distance(board, short, distance_3x3):
    d = distance_3x3[board.tiles]
    if d < short:
        return
    sol = run(board, algorithm="dls", depth_limit=d - short)
    assert sol.moves is None and sol.status == "not-found" and sol.length is None
    assert sol.nodes_generated > 0 or d - short == 0


def test_iddfs_with_a_max_depth_below_the_distance_is_not_found():
    sol = run(Board.parse(SEED_START), SEED_GOAL, algorithm="iddfs", depth_limit=5)
    assert sol.status == "not-found" and sol.iterations == 6


def test_dls_needs_a_depth_limit():
    with pytest.raises(BoardError, match="depth limit"):
        run(Board.parse(SEED_START), SEED_GOAL, algorithm="dls")


def test_seed_experiment():
    """The course's example: BFS 24 moves, DLS(25, path check) 24, DFS(visited) very long."""
    start = Board.parse(SEED_START)
    assert run(start, SEED_GOAL, algorithm="bfs").length == 24
    dls = run(start, SEED_GOAL, algorithm="dls", depth_limit=25, cycle_check="path")
    assert dls.length == 24  # a 25-move solution is impossible: lengths keep one parity
    assert dls.max_frontier <= 2 * 25 and dls.peak_states <= 3 * 25  # memory O(b·L)
    assert run(start, SEED_GOAL, algorithm="dfs").length > 1000


def test_statistics_are_consistent():
    sol = run(Board.parse("1 2 3/4 0 5/7 8 6"), algorithm="bfs")
    assert sol.nodes_generated >= sol.nodes_expanded > 0
    assert sol.peak_states >= sol.max_frontier > 0
    assert sol.depth_reached >= sol.length and sol.seconds > 0
    assert sol.as_dict()["cycle_check"] == "visited"


def test_already_at_goal():
    for alg in ("bfs", "dfs", "iddfs", "astar"):
        sol = run(GOAL, algorithm=alg)
        assert sol.moves == "" and sol.nodes_expanded == 0


def test_direct_call_on_unsolvable_start_raises():
    with pytest.raises(Unsolvable):
        blind.dfs(Board.parse("2 1 3/4 5 6/7 8 0"), GOAL, SearchOptions(cycle_check="parent"))


# --- caps -----------------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["bfs", "dfs", "iddfs", "astar"])
def test_max_nodes_stops_the_run(alg):
    with pytest.raises(SearchLimitReached) as e:
        run(
            Board.parse(SEED_START),
            SEED_GOAL,
            algorithm=alg,
            cycle_check=None,
            max_nodes=500,
            heuristic="manhattan",
        )
    partial = e.value.partial
    assert partial.status == "limit" and partial.moves is None
    assert 500 <= partial.nodes_generated < 510 and partial.nodes_expanded > 0


def test_timeout_stops_a_dfs_that_would_loop_forever():
    with pytest.raises(SearchLimitReached) as e:
        run(Board.parse(SEED_START), SEED_GOAL, algorithm="dfs", cycle_check="parent", timeout=0.2)
    assert e.value.partial.seconds < 2


def test_capped_iddfs_reports_its_lower_bound():
    with pytest.raises(SearchLimitReached) as e:
        run(Board.parse(SEED_START), SEED_GOAL, algorithm="iddfs", max_nodes=20_000)
    assert 0 < e.value.partial.lower_bound <= 24


# --- npuzzle compare ------------------------------------------------------------------------


def test_compare_prints_a_table(run_cli):
    result = run_cli(
        [
            "compare",
            SEED_START,
            "--goal",
            SEED_GOAL,
            "--algorithms",
            "bfs,astar,dls:path",
            "--depth-limit",
            "25",
        ]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].split()[:3] == ["algorithm", "setting", "length"]
    rows = {line.split()[0]: line for line in lines[3:]}
    assert set(rows) == {"bfs", "astar", "dls"}
    assert all(" 24 " in row for row in rows.values())


def test_compare_json_and_limits(run_cli):
    result = run_cli(
        [
            "compare",
            SEED_START,
            "--goal",
            SEED_GOAL,
            "--json",
            "--algorithms",
            "bfs,dfs:parent",
            "--max-nodes",
            "3000",
        ]
    )
    assert result.exit_code == 4  # a capped run: the table is still printed
    data = json.loads(result.stdout)
    runs = {r["algorithm"]: r for r in data["runs"]}
    assert runs["bfs"]["status"] == "limit" and runs["dfs"]["status"] == "limit"
    assert runs["dfs"]["cycle_check"] == "parent" and runs["dfs"]["nodes_generated"] >= 3000


def test_compare_shows_limit_and_not_found(run_cli):
    result = run_cli(
        [
            "compare",
            SEED_START,
            "--goal",
            SEED_GOAL,
            "-a",
            "astar,dfs:parent,dls",
            "--depth-limit",
            "10",
            "--max-nodes",
            "50000",
        ]
    )
    assert result.exit_code == 0  # A* answered: the capped DFS is a row, not a failure
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[3:]}
    assert "capped" in rows["dfs"] and "none" in rows["dls"] and "24" in rows["astar"]


def test_compare_rejects_an_unknown_algorithm(run_cli):
    result = run_cli(["compare", SEED_START, "-a", "bfs,magic"])
    assert result.exit_code == 2 and "magic" in result.output
