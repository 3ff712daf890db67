"""Solving on a Dask cluster (solver.workloads.cluster, cluster_search; ``--scheduler``).

A real ``dask.distributed.LocalCluster`` -- two worker processes behind nannies, on the
loopback address only -- runs the tasks.  Truth is the serial answer on this process: a batch
gives the same answers in input order, also when a worker is killed in the middle; a board cut
into work units gives the optimal (published or exact) length; a worker without the database
fails with the exit-3 message naming itself.
"""

from __future__ import annotations

import functools
import json
import logging
import operator
import os
import random
import signal
import sys
from dataclasses import replace

import distributed
import pytest
from conftest import assert_one_line_error, reference_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import api
from solver.core.board import Board, Shape, goal_board
from solver.core.solution import SearchLimitReached, Solution
from solver.search import race
from solver.tables.store import DatabaseMissing
from solver.workloads import cluster, cluster_search
from solver.workloads.batch import solve_line

SHAPE3, SHAPE4 = Shape(3, 3), Shape(4, 4)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A client of a two-worker local cluster (processes) on 127.0.0.1."""
    env = pytest.MonkeyPatch()
    # The workers inherit these: no real data directory, a private cache of verified files.
    env.setenv("NPUZZLE_DATA", str(tmp_path_factory.mktemp("workers-have-no-default-data")))
    env.setenv("NPUZZLE_CACHE", str(tmp_path_factory.mktemp("workers-cache")))
    lc = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.CRITICAL,
    )
    c = distributed.Client(lc, set_as_default=False)
    try:
        yield c
    finally:
        c.close()
        lc.close()
        env.undo()


def random_walk(goal: Board, steps: int, rng: random.Random) -> Board:
    board, last = goal, None
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    for _ in range(steps):
        last = rng.choice([m for m in board.legal_moves() if m != undo.get(last)])
        board = board.move(last)
    return board


def flat(board: Board) -> str:
    return " ".join(map(str, board.tiles))


def serial(lines, opts):
    """The answers of one process: moves, None for blank lines, or the error's class."""
    return answers_of((line, solve_line(line, options=opts)) for line in lines)


def without_seconds(stdout: str) -> list[dict]:
    return [
        {k: v for k, v in json.loads(line).items() if k != "seconds"}
        for line in stdout.splitlines()
    ]


def answers_of(pairs):
    return [
        r.moves if isinstance(r, Solution) else (None if r is None else type(r)) for _, r in pairs
    ]


# --- batches ---------------------------------------------------------------------------------


def test_batch_answers_in_input_order(client, exact_dir):
    rng = random.Random(3)
    lines = [flat(random_walk(goal_board(SHAPE3), 40, rng)) for _ in range(300)]
    lines[5:5] = ["", "# a comment", "1 2 3 4 5 6 8 7 0", "1 2 3 junk"]
    opts = api.SearchOptions(data_dir=exact_dir)
    got = list(cluster.solve_lines(client, iter(lines), options=opts))
    assert [line for line, _ in got] == lines
    assert answers_of(got) == serial(lines, opts)
    for _, r in got:
        if isinstance(r, Solution):
            assert r.check().optimal


def test_a_task_that_raises_a_bug_raises_it_here(client):
    """The answers are fetched by the caller's own call: a task's error that is no line's
    (a bug) comes out as it is, not as the cluster's failure or a lost scheduler."""
    inverse = functools.partial(operator.truediv, 1)  # 1 / 0 raises in the task
    got = []
    with pytest.raises(ZeroDivisionError):
        for pair in cluster.map_ordered(client, inverse, [1, 2, 0, 4]):
            got.append(pair)
    assert got == [(1, 1.0), (2, 0.5)][: len(got)]


def test_pacer_puts_many_quick_boards_in_a_task():
    p = cluster.Pacer(threads=2)
    assert p.boards() == 1 and p.window == 2 * cluster.TASKS_PER_THREAD
    p.learn(100, 0.002)  # 20 microseconds a board
    assert p.boards() == cluster.MAX_BOARDS_PER_TASK
    p.learn(1, 5.0)
    assert p.boards() == 1
    big = cluster.Pacer(threads=1000)  # the scheduler would be the limit: longer tasks
    assert big.task_seconds > cluster.TARGET_TASK_SECONDS
    big.learn(100, 0.002)  # ... but the lines held stay capped
    b = big.boards()
    assert 1 < b and b * cluster.MIN_TASKS_PER_THREAD * 1000 <= cluster.MAX_BOARDS_HELD


def test_a_worker_killed_mid_batch_loses_nothing(client, pdb_dir):
    rng = random.Random(7)
    lines = [flat(random_walk(goal_board(SHAPE4), 100, rng)) for _ in range(16)]
    opts = api.SearchOptions(data_dir=pdb_dir, partition="5-5-5")
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    got = []
    for i, pair in enumerate(cluster.solve_lines(client, iter(lines), options=opts)):
        got.append(pair)
        if i == 0:  # the other tasks are in flight: kill a worker under them
            os.kill(pids[victim], signal.SIGKILL)
    assert pids[victim] not in client.run(os.getpid).values()  # it did die (and came back)
    assert [line for line, _ in got] == lines  # each once, in order
    assert answers_of(got) == serial(lines, opts)


def test_missing_database_names_the_worker(client, tmp_path):
    opts = api.SearchOptions(data_dir=tmp_path)  # nothing built there
    line = flat(random_walk(goal_board(SHAPE4), 30, random.Random(1)))
    ((_, result),) = cluster.solve_lines(client, [line], options=opts)
    assert isinstance(result, DatabaseMissing)
    text = str(result)
    assert text.startswith("worker tcp://127.0.0.1:") and " on host " in text
    assert "build-pdb" in text  # the fix, to run on that worker


# --- one board, cut into work units ----------------------------------------------------------


@pytest.fixture
def always_split(monkeypatch):
    """No probe: every iteration is cut into units and run on the workers."""
    monkeypatch.setattr(cluster_search, "PROBE_SECONDS", 0.0)


@pytest.fixture
def short_probe(monkeypatch):
    """A probe that ends with the first iteration: every later one in units, however fast the
    machine (a probe of some milliseconds let a warm worker finish the whole search alone)."""
    monkeypatch.setattr(cluster_search, "PROBE_SECONDS", 0.0)


def test_korf_instance_in_work_units(client, pdb_dir, short_probe):
    row = reference_file("korf100.txt").read_text().splitlines()
    _, tiles, length = next(r.split("\t") for r in row if r and r[0].isdigit())[:3]
    opts = api.SearchOptions(partition="5-5-5", data_dir=pdb_dir)
    sol = cluster_search.solve_board(client, tiles, "blank-first", options=opts)
    assert sol.length == int(length) and sol.optimal and sol.check()
    local = api.solve(tiles, "blank-first", options=opts)
    assert sol.extra["work_units"] > 0 and sol.iterations == local.iterations
    assert (sol.heuristic, sol.database, sol.root_h) == (
        local.heuristic,
        local.database,
        local.root_h,
    )


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10**6))
def test_work_units_give_the_exact_distance(client, pdb_dir, exact_dir, always_split, seed):
    board = random_walk(goal_board(SHAPE3), 30, random.Random(seed))
    opts = api.SearchOptions(algorithm="idastar", partition="4-4", data_dir=pdb_dir)
    sol = cluster_search.solve_board(client, board, options=opts)
    assert sol.check().length == api.distance(board, data_dir=exact_dir)


def test_probe_answers_easy_boards_and_tables(client, exact_dir, pdb_dir):
    sol = cluster_search.solve_board(
        client, "8 6 7 2 5 4 3 0 1", options=api.SearchOptions(data_dir=exact_dir)
    )
    assert sol.length == 31 and sol.algorithm == "table"
    easy = flat(random_walk(goal_board(SHAPE4), 20, random.Random(2)))
    opts = api.SearchOptions(data_dir=pdb_dir, partition="5-5-5")
    sol = cluster_search.solve_board(client, easy, options=opts)
    assert sol.length == api.solve(easy, options=opts).length and sol.extra["work_units"] == 0


def test_weighted_search_in_work_units(client, pdb_dir, short_probe):
    board = random_walk(goal_board(SHAPE4), 100, random.Random(11))
    opts = api.SearchOptions(partition="5-5-5", data_dir=pdb_dir)
    best = api.solve(board, options=opts).length
    sol = cluster_search.solve_board(
        client, board, options=api.SearchOptions(partition="5-5-5", data_dir=pdb_dir, weight=1.5)
    )
    assert sol.check().optimal is False and sol.length <= 1.5 * best
    assert sol.extra["bound"] == 1.5 and sol.lower_bound <= best


def test_node_cap_stops_a_split_search(client, pdb_dir, always_split):
    tiles = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf's first instance, 57 moves
    opts = api.SearchOptions(partition="5-5-5", reflect=False, data_dir=pdb_dir, max_nodes=3_000)
    with pytest.raises(SearchLimitReached) as e:
        cluster_search.solve_board(client, tiles, "blank-first", options=opts)
    assert 0 < e.value.partial.lower_bound <= 57 and e.value.partial.moves is None


@pytest.mark.parametrize("order", [True, False])
def test_the_cluster_runs_the_local_search(client, twin_dir, short_probe, order):
    """Korf's first two instances: the same length, heuristic (the twin), unit order and
    pruning as two local threads, with iterations in work units."""
    row = reference_file("korf100.txt").read_text().splitlines()
    rows = [r.split("\t") for r in row if r and r[0].isdigit()][:2]
    opts = api.SearchOptions(partition="5-5-5", data_dir=twin_dir, promising_first=order)
    for _, tiles, length in (r[:3] for r in rows):
        there = cluster_search.solve_board(client, tiles, "blank-first", options=opts)
        here = api.solve(tiles, "blank-first", options=replace(opts, jobs=2))
        assert there.length == here.length == int(length) and there.optimal
        assert "zero-aware" in there.heuristic
        assert there.extra["work_units"] > 0
        for name in ("heuristic", "database", "root_h"):
            assert getattr(there, name) == getattr(here, name)
        for name in ("unit_order", "pruning", "tables_bytes"):
            assert there.extra[name] == here.extra[name]
        assert "race" not in there.extra  # no rival built


def test_the_race_runs_on_the_cluster(client, three_cuts, exact_dir, monkeypatch):
    """Races after 5 nodes (the client tells the probe when), the rivals as tasks: optimal
    answers, and the same race -- bound, nodes, winner -- as the local search's on one
    thread; where a rival wins, the units search with its database."""
    monkeypatch.setattr(race, "RACE_AFTER", 5)
    rng = random.Random(5)
    raced = switched = 0
    for _ in range(10):
        board = random_walk(goal_board(SHAPE3), 80, rng)
        opts = api.SearchOptions(algorithm="idastar", data_dir=three_cuts)
        there = cluster_search.solve_board(client, board, options=opts)
        here = api.solve(board, options=opts)
        assert there.check().length == api.distance(board, data_dir=exact_dir)
        assert there.optimal and there.extra["race"] == here.extra["race"]
        assert there.heuristic == here.heuristic
        raced += there.extra["race"].startswith("raced to bound")
        switched += not there.heuristic.startswith("pdb 4-4")
    assert raced >= 5 and switched >= 2


def test_unsolvable_and_bad_boards_are_answered_here(client):
    with pytest.raises(ValueError, match="unsolvable"):
        cluster_search.solve_board(client, "1 2 3 4 5 6 8 7 0")
    with pytest.raises(ValueError, match="appears twice"):
        cluster_search.solve_board(client, "1 1 3 4 5 6 8 7 0")


# --- the command line ------------------------------------------------------------------------


def boards4(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [flat(random_walk(goal_board(SHAPE4), 40, rng)) for _ in range(count)]


def test_cli_batch_with_scheduler_option(client, run_cli, pdb_dir):
    # 4x4 boards: searched on the workers (exact-table shapes are answered here, in bulk)
    lines = boards4(12, 5)
    lines[3:3] = ["", "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0", "bad"]
    text = "\n".join(lines) + "\n"
    args = ["solve", "-", "--data-dir", pdb_dir, "--partition", "5-5-5"]
    here = run_cli(args, input=text)
    there = run_cli([*args, "--scheduler", client.scheduler.address], input=text)
    assert there.exit_code == here.exit_code == 2, there.output  # the 'bad' line
    assert there.stdout == here.stdout
    out = there.stdout.splitlines()
    assert len(out) == len(lines) and out[4].startswith("unsolvable") and out[5].startswith("error")


def test_cli_distance_with_the_dask_environment_variable(client, run_cli, pdb_dir, exact_dir):
    env = {"DASK_SCHEDULER_ADDRESS": client.scheduler.address}
    text = "\n".join(boards4(6, 6) + ["1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0"]) + "\n"
    args = ["distance", "-", "--data-dir", pdb_dir, "--json"]
    r = run_cli(args, input=text, env=env)
    assert r.exit_code == 1, r.output  # the last start is unsolvable
    there, here = (without_seconds(x.stdout) for x in (r, run_cli(args, input=text)))
    assert there == here and there[-1]["solvable"] is False and len(there) == 7
    one = run_cli(["distance", "8 6 7 2 5 4 3 0 1", "--data-dir", exact_dir], env=env)
    assert one.exit_code == 0 and one.stdout == "31\n"


def test_cli_one_board_with_scheduler(client, run_cli, pdb_dir):
    board = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
    args = ["solve", board, "--goal", "blank-first", "--partition", "5-5-5", "--data-dir", pdb_dir]
    r = run_cli([*args, "--scheduler", client.scheduler.address, "--json"])
    assert r.exit_code == 0, r.output
    assert '"length":57' in r.stdout and '"optimal":true' in r.stdout


def test_cli_missing_database_on_the_workers_is_exit_3(client, run_cli, tmp_path):
    r = run_cli(
        ["solve", "-", "--data-dir", tmp_path, "--scheduler", client.scheduler.address],
        input="1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15\n",
    )
    assert_one_line_error(r, 3)
    assert "worker tcp://127.0.0.1:" in r.stderr and "build-pdb" in r.stderr


def test_cli_without_a_scheduler_there(run_cli, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 0.5)
    r = run_cli(["solve", "-", "--scheduler", "tcp://127.0.0.1:9"], input="1 2 3 4 0 5\n")
    assert_one_line_error(r, 2)
    assert "cannot reach the Dask scheduler" in r.stderr


def test_cli_without_dask_says_how_to_install(run_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    r = run_cli(["solve", "1 2 3 4 0 5", "--scheduler", "tcp://127.0.0.1:8786"])
    assert_one_line_error(r, 2)
    assert "pip install" in r.stderr and "npuzzle[cluster]" in r.stderr


def test_cluster_modules_load_only_with_the_option():
    code = (
        "import sys, solver.cli; "
        "print(any(m.startswith(('distributed', 'solver.workloads.cluster')) "
        "for m in sys.modules))"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
