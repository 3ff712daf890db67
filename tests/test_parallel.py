"""Parallel IDA* and the work-unit API (solver.search.units, solver.search.parallel).

Truth is the serial search.  The units of an iteration must search exactly the serial tree --
the same nodes, the same next bound -- and a walk that gives work away must lose or repeat
none of it; the parallel search must return a solution of the serial length (every unit of
an iteration shares the bound, so any solution found in it is a shortest one) that replays to
the goal.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from solver import api
from solver.api import SearchOptions
from solver.core import config
from solver.core.board import Board, Shape, goal_board
from solver.core.solution import SearchLimitReached
from solver.search import driver, parallel, units
from solver.search import walk_state as K
from solver.search.walk import READY, Walk

SHAPE3, SHAPE4 = Shape(3, 3), Shape(4, 4)
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def random_walk(goal: Board, steps: int, seed: int) -> Board:
    """A board ``steps`` random moves from ``goal`` (never undoing the previous one)."""
    rng = random.Random(seed)
    board, last = goal, None
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    for _ in range(steps):
        last = rng.choice([m for m in board.legal_moves() if m != undo.get(last)])
        board = board.move(last)
    return board


def problem_of(board: Board, opts: SearchOptions):
    return units.prepare(api.search_request(board, goal_board(board.shape), opts))[0]


def whole_iteration(problem, bound: int) -> tuple[int, int, int, int]:
    """(status, generated, expanded, next_f) of one serial iteration."""
    w = Walk(problem)
    status = w.enter((), bound)
    while status in (READY, K.BUDGET_SPENT):
        status = w.run(1 << 30)
    return status, w.generated, w.expanded, w.next_f


def options(kind: str, pdb_dir) -> SearchOptions:
    if kind == "3x3 linear-conflict":
        return SearchOptions(algorithm="idastar", heuristic="linear-conflict")
    if kind == "3x3 manhattan":
        return SearchOptions(algorithm="idastar", heuristic="manhattan")
    return SearchOptions(algorithm="idastar", partition="5-5-5", data_dir=pdb_dir)


KINDS = ["3x3 linear-conflict", "3x3 manhattan", "4x4 5-5-5 + reflection"]


def board_for(kind: str, seed: int) -> Board:
    shape = SHAPE4 if kind.startswith("4x4") else SHAPE3
    return random_walk(goal_board(shape), 40 if shape == SHAPE4 else 30, seed)


@pytest.fixture
def eager(monkeypatch):
    """Parallel from the first iteration, with tiny slices and few units up front, so that
    small boards exercise the splitting and the work sharing."""
    monkeypatch.setattr(driver, "PARALLEL_AFTER", 0.0)
    monkeypatch.setattr(parallel, "SLICE_NODES", 50)
    monkeypatch.setattr(parallel, "UNITS_PER_JOB", 2)


# --- the units of an iteration are the iteration ---------------------------------------------


@SETTINGS
@given(
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 10**6),
    depth=st.integers(1, 5),
    extra=st.integers(0, 3),
)
def test_units_search_exactly_the_serial_tree(pdb_dir, kind, seed, depth, extra):
    problem = problem_of(board_for(kind, seed), options(kind, pdb_dir))
    if problem.root_h == 0:
        return
    bound = problem.first_bound() + 2 * extra
    status, gen, exp, nxt = whole_iteration(problem, bound)
    sp = units.split(problem, bound, want=1, depth=depth)  # one pass at this depth
    results = [units.run_unit(problem, u, bound) for u in sp.units]
    found = [r.moves for r in results if r.moves] + ([sp.moves] if sp.moves else [])
    if status == K.FOUND:
        assert found and all(len(m) <= bound for m in found)
        return
    assert not found
    assert sp.generated + sum(r.generated for r in results) == gen
    assert sp.expanded + sum(r.expanded for r in results) == exp
    assert min([sp.next_f] + [r.next_f for r in results]) == nxt


@SETTINGS
@given(
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 10**6),
    pick=st.integers(0, 10**6),
    deeper=st.integers(1, 3),
)
def test_the_pieces_of_a_unit_are_the_unit(pdb_dir, kind, seed, pick, deeper):
    """A unit cut into pieces (split below it, as the pool cuts its most promising unit):
    the cut and the pieces search exactly the unit's subtree."""
    problem = problem_of(board_for(kind, seed), options(kind, pdb_dir))
    if problem.root_h == 0:
        return
    bound = problem.first_bound() + 4
    sp = units.split(problem, bound, want=1, depth=2)
    if not sp.units:
        return
    unit = sp.units[pick % len(sp.units)]
    whole = units.run_unit(problem, unit, bound)
    cut = units.split(problem, bound, want=1, depth=unit.g + deeper, below=unit)
    pieces = [units.run_unit(problem, u, bound) for u in cut.units]
    assert all(u.moves.startswith(unit.moves) for u in cut.units)
    found = [r.moves for r in pieces if r.moves] + ([cut.moves] if cut.moves else [])
    if whole.moves is not None:
        assert found and all(m.startswith(unit.moves) and len(m) <= bound for m in found)
        return
    assert not found
    assert cut.generated + sum(r.generated for r in pieces) == whole.generated
    assert cut.expanded + sum(r.expanded for r in pieces) == whole.expanded
    assert min([cut.next_f] + [r.next_f for r in pieces]) == whole.next_f


@SETTINGS
@given(
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 10**6),
    slices=st.lists(st.integers(1, 400), min_size=1, max_size=6),
)
def test_give_away_loses_and_repeats_nothing(pdb_dir, kind, seed, slices):
    problem = problem_of(board_for(kind, seed), options(kind, pdb_dir))
    if problem.root_h == 0:
        return
    bound = problem.first_bound() + 4
    status, gen, exp, nxt = whole_iteration(problem, bound)
    w = Walk(problem)
    given_away, state = [], w.enter((), bound)
    for budget in slices:  # run a little, give some away, again
        if state not in (READY, K.BUDGET_SPENT):
            break
        state = w.run(budget)
        if state == K.BUDGET_SPENT:
            given_away += w.give_away()
    while state in (READY, K.BUDGET_SPENT):
        state = w.run(1 << 30)
    results = [
        units.run_unit(problem, units.WorkUnit(problem.letters(p)), bound) for p in given_away
    ]
    found = [r.moves for r in results if r.moves] + ([1] if state == K.FOUND else [])
    if status == K.FOUND:
        assert found
        return
    assert not found
    assert w.generated + sum(r.generated for r in results) == gen
    assert w.expanded + sum(r.expanded for r in results) == exp
    assert min([w.next_f] + [r.next_f for r in results]) == nxt


def least_h_entered(problem, bound: int) -> int:
    """The least h of a node a plain depth-first iteration within ``bound`` enters below the
    start (never undoing the last move), by the plan's own heuristic: the independent count
    the kernel's ``least_h`` must equal when it prunes only undone moves.  The pruning machine
    enters fewer nodes: where the heuristic is inconsistent (a pattern database's values may
    drop by more than one a move) the twin it keeps of a path can leave the bound on the way
    to a board the dropped one entered, so its least is at least this one."""
    plan, rows, cols = problem.plan, problem.plan.shape.rows, problem.plan.shape.cols
    tiles = list(problem.start)
    least = K.INFINITE_F

    def walk(blank: int, g: int, came_from: int) -> bool:
        nonlocal least
        r, c = divmod(blank, cols)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            nb = nr * cols + nc
            if not (0 <= nr < rows and 0 <= nc < cols) or nb == came_from:
                continue
            tiles[blank], tiles[nb] = tiles[nb], 0
            h = plan.h(tiles)
            if g + 1 + h <= bound:
                least = min(least, h)
                if h == 0 or walk(nb, g + 1, blank):
                    return True  # the goal: the kernel stops there too
            tiles[nb], tiles[blank] = tiles[blank], 0
        return False

    walk(problem.start.index(0), 0, -1)
    return least


@SETTINGS
@given(
    kind=st.sampled_from(["3x3 manhattan", "4x4 5-5-5 + reflection"]),
    seed=st.integers(0, 10**6),
    extra=st.integers(0, 2),
)
@example(kind="4x4 5-5-5 + reflection", seed=108290, extra=1)  # the machine enters less
def test_a_walk_knows_the_least_h_it_entered(pdb_dir, kind, seed, extra):
    shape = SHAPE4 if kind.startswith("4x4") else SHAPE3
    board = random_walk(goal_board(shape), 24 if shape == SHAPE4 else 16, seed)
    for fsm in (2, config.DEFAULT_FSM_DEPTH):  # never undo a move; the default machine
        problem = problem_of(board, replace(options(kind, pdb_dir), fsm=fsm))
        if problem.root_h == 0:
            return
        bound = problem.first_bound() + 2 * extra
        w = Walk(problem)
        status = w.enter((), bound)
        while status in (READY, K.BUDGET_SPENT):
            status = w.run(37)  # many calls: the least carries over between them
        reference = least_h_entered(problem, bound)
        assert w.least_h == reference if fsm == 2 else w.least_h >= reference
        assert (w.least_h == 0) == (status == K.FOUND)


@given(
    paths=st.lists(st.text("UDLR", min_size=1, max_size=4), unique=True, max_size=12),
    seen=st.dictionaries(st.text("UDLR", min_size=1, max_size=5), st.integers(0, 60), max_size=12),
)
def test_promising_units_first_is_a_reordering_by_the_last_iteration(paths, seen):
    todo = [units.WorkUnit(p) for p in paths]
    least = units.least_by_prefix(seen)
    for prefix, h in least.items():  # the least below each prefix, over every unit under it
        assert h == min(v for m, v in seen.items() if m.startswith(prefix))
    out = units.promising_first(todo, least)
    assert sorted(out, key=todo.index) == todo  # the same units, each once
    assert units.promising_first(todo, {}) == todo  # nothing known: search order

    def score(u):  # its own subtree's least, else its nearest searched ancestor's
        return next(
            (least[u.moves[:k]] for k in range(len(u.moves), -1, -1) if u.moves[:k] in least),
            K.INFINITE_F,
        )

    keys = [(score(u), todo.index(u)) for u in out]
    assert keys == sorted(keys)  # nearest the goal first, ties in search order


# --- the parallel search ---------------------------------------------------------------------


@SETTINGS
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 10**6), jobs=st.integers(2, 4))
def test_parallel_length_equals_serial(pdb_dir, eager, kind, seed, jobs):
    board = board_for(kind, seed)
    opts = options(kind, pdb_dir)
    serial = api.solve(board, options=opts)  # api.solve replays every answer
    par = api.solve(board, options=replace(opts, jobs=jobs))
    assert par.length == serial.length and par.optimal
    assert par.extra["jobs"] == jobs
    if serial.nodes_generated > 2000:  # smaller trees may be searched by the split alone
        assert par.extra["work_units"] > 0


@SETTINGS
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 10**6))
def test_one_thread_goes_on_in_units_with_the_serial_length(pdb_dir, monkeypatch, kind, seed):
    board = board_for(kind, seed)
    opts = options(kind, pdb_dir)
    serial = api.solve(board, options=opts)
    monkeypatch.setattr(driver, "UNITS_AFTER", 200)
    monkeypatch.setattr(parallel, "UNITS_PER_JOB", 4)
    in_units = api.solve(board, options=opts)  # api.solve replays every answer
    assert in_units.length == serial.length and in_units.optimal
    if serial.nodes_generated > 20_000:  # iterations after the first 200 nodes: in units
        assert in_units.extra["work_units"] > 0


def test_the_unit_order_is_switched_and_said(pdb_dir, run_cli, eager, monkeypatch):
    """--search-order keeps the units in search order (and a one-thread search serial);
    the JSON's "unit_order" says which order ran, and both give the optimal length."""
    import json

    seen = []
    take = units.promising_first
    monkeypatch.setattr(
        parallel, "promising_first", lambda u, least: seen.append(1) or take(u, least)
    )
    args = ["solve", HARD, "--goal", "blank-first", "--partition", "5-5-5"]
    args += ["--data-dir", pdb_dir, "--json", "-j", "2"]
    ordered = json.loads(run_cli(args).output)
    assert ordered["unit_order"] == "promising first" and ordered["work_units"] > 0 and seen
    seen.clear()
    plain = json.loads(run_cli(args + ["--search-order"]).output)
    assert plain["unit_order"] == "search order" and plain["work_units"] > 0 and not seen
    assert ordered["length"] == plain["length"] == 57


def test_parallel_on_korf_instances(pdb_dir):
    """Real parallel runs (default policy) on hard enough 4x4 boards: Korf's first three."""
    from test_idastar import korf_instances

    for _, tiles, length in korf_instances(3):
        sol = api.solve(
            tiles, "blank-first", algorithm="idastar", partition="5-5-5", data_dir=pdb_dir, jobs=2
        )
        assert sol.length == length and sol.optimal
        assert sol.nodes_generated > 0 and sol.extra["jobs"] == 2


def test_work_units_travel_to_other_processes(pdb_dir):
    """The unit protocol with a process pool: units, bounds and results are plain data."""
    ctx = multiprocessing.get_context("fork")
    goal = goal_board(SHAPE4)
    opts = options("4x4", pdb_dir)
    boards = [random_walk(goal, 44, s) for s in (1, 2, 3)]
    with ctx.Pool(2) as pool:
        for board in boards:
            request = api.search_request(board, goal, opts)
            moves, nodes, count = units.search_units(request, mapper=pool.map, want=8)
            assert board.apply(moves) == goal
            assert len(moves) == api.solve(board, options=opts).length
            assert nodes > 0


def test_a_unit_is_plain_data():
    import pickle

    unit = units.WorkUnit("ULDR")
    assert pickle.loads(pickle.dumps(unit)) == unit and unit.g == 4
    res = units.UnitResult(None, 57, 10, 4)
    assert pickle.loads(pickle.dumps(res)) == res
    # What a unit's task carries: the search resolved once, without its tables.
    goal = goal_board("3x3")
    opts = SearchOptions(partition="1,2,3,4/5,6,7,8", weight=1.5)
    request = api.search_request(goal.move("L"), goal, opts, plans=False)
    assert request.heuristic.partitions[0].name == "4-4" and not request.plans
    task = units.UnitTask(request.bare(), 7)
    assert pickle.loads(pickle.dumps(task)) == task and hash(task.request)


HARD = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf #1, 57 moves to blank-first


def test_parallel_limits(eager):
    with pytest.raises(SearchLimitReached) as info:
        api.solve(
            HARD,
            "blank-first",
            algorithm="idastar",
            heuristic="manhattan",
            max_nodes=300_000,
            jobs=2,
        )
    part = info.value.partial
    assert 41 <= part.lower_bound <= 57 and (57 - part.lower_bound) % 2 == 0
    assert 300_000 <= part.nodes_generated < 400_000
    with pytest.raises(SearchLimitReached) as info:
        api.solve(
            HARD, "blank-first", algorithm="idastar", heuristic="manhattan", timeout=0.3, jobs=2
        )
    assert "time limit" in str(info.value)


def test_a_failing_worker_stops_the_search(eager, monkeypatch):
    calls = []
    run = Walk.run

    def broken(self, budget):  # fails in the worker threads only
        if threading.current_thread() is threading.main_thread():
            return run(self, budget)
        calls.append(budget)
        raise RuntimeError("boom")

    board = random_walk(goal_board(SHAPE3), 30, 5)
    monkeypatch.setattr(Walk, "run", broken)
    with pytest.raises(RuntimeError, match="boom"):
        api.solve(board, algorithm="idastar", heuristic="manhattan", jobs=2)
    assert calls


def test_ctrl_c_stops_every_thread(tmp_path):
    """Ctrl-C during parallel iterations: the coordinating thread stops the workers, and the
    command ends in one line with status 130, saying the bound proven."""
    from test_idastar import interrupted_solve, said_what_was_proven

    status, err = interrupted_solve(tmp_path, "--jobs", "2")
    assert status == 130 and said_what_was_proven(err), err


def test_in_order_shares_the_most_promising_unit_in_pieces(pdb_dir):
    """The order the pool and a cluster take units in: most promising first, that unit cut
    into pieces below it (several workers) or not (one), the other units as they were; the
    pieces search what the unit did."""
    board = random_walk(goal_board(SHAPE4), 100, 4)
    problem = problem_of(board, options("4x4 5-5-5 + reflection", pdb_dir))
    bound = problem.first_bound()
    sp = units.split(problem, bound, 16)
    while len(sp.units) < 16:  # an iteration with a tree to share
        bound += 2
        sp = units.split(problem, bound, 16)
    assert sp.moves is None
    searched = {u.moves: units.run_unit(problem, u, bound) for u in sp.units}
    least = units.least_by_prefix({m: r.least_h for m, r in searched.items()})
    ordered = units.promising_first(sp.units, least)
    assert parallel.in_order(problem, bound, sp, least, 1).units == ordered
    assert parallel.in_order(problem, bound, sp, {}, 2) == sp  # no order known: as split
    shared = parallel.in_order(problem, bound, sp, least, 2)
    first = ordered[0]
    pieces = shared.units[: len(shared.units) - len(ordered) + 1]
    assert shared.units[len(pieces) :] == ordered[1:] and len(pieces) > 1
    assert all(p.moves.startswith(first.moves) and p.g > first.g for p in pieces)
    whole = searched[first.moves]
    parts = [units.run_unit(problem, p, bound) for p in pieces]
    found = [r.moves for r in parts if r.moves is not None]
    assert bool(found) == (whole.moves is not None)  # here the unit holds a solution
    assert all(len(m) == len(whole.moves) for m in found)
    assert shared.generated > sp.generated  # the cutting is counted
