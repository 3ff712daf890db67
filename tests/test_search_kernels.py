"""The compiled IDA* kernels (``solver/engine/search_*.c``) against a plain IDA*
(``tests/naive_ida.py``): on every search configuration the suite's small databases allow,
the iterations that find no solution generate and expand exactly the nodes the plain search
does with the same heuristic -- nodes that do not depend on the order children are entered in.
Then the kernels' own checks: their constants, a build from other sources refused, bad
arrays refused with a clear error."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import naive_pdb
import numpy as np
import pytest
from naive_ida import iterations

from pdb_builder.build_apdb import build_apdb
from pdb_builder.zero_aware import build_zero_aware
from solver import api
from solver import engine as E
from solver.core.board import Board, Shape, goal_board
from solver.search import plans, walk
from solver.search import walk_state as K
from solver.search.driver import SearchSettings, search
from solver.search.race import RaceRule
from solver.search.weights import Weighting
from solver.tables import catalog, pattern_db
from solver.tables.partitions import parse_partition

LAZY_PARTITION = "1,2,3/4,5,6/7,8,9/10,11,12/13,14,15/16,17"


def _scrambled(goal: Board, steps: int, seed: int) -> Board:
    rng = random.Random(seed)
    board, prev = goal, None
    for _ in range(steps):
        m = rng.choice([m for m in board.legal_moves() if m != prev])
        board = board.move(m)
        prev = {"U": "D", "D": "U", "L": "R", "R": "L"}[m]
    return board


def _pdb(data: Path, shape: str, partition: str | None = None):
    shape_ = Shape.parse(shape)
    goal = goal_board(shape_)
    parsed = parse_partition(partition, shape_, goal) if partition else None
    entry, _ = catalog.resolve(shape_, goal, parsed, data)
    return pattern_db.open_entry(entry, data)


@pytest.fixture(scope="module")
def lazy_dir(tmp_path_factory):
    """A 3x6 (18-cell) database of small patterns and its zero-aware twin: lazy classes."""
    d = tmp_path_factory.mktemp("lazy")
    build_apdb("3x6", LAZY_PARTITION, None, d, progress=False)
    build_zero_aware("3x6", LAZY_PARTITION, None, d, progress=False)
    return d


def _wide(machine):
    """The pruning machine with its transitions as int32, as a machine of more than 32,767
    states keeps them: the kernels read both widths."""
    trans = machine.trans.astype(np.int32)
    trans.setflags(write=False)
    return machine._replace(trans=trans)


def _same_as_plain(plan, h, boards, monkeypatch, wide=False) -> int:
    """Search each board's iterations below its optimal length on the compiled kernels (the
    pruning machine that only forbids undoing a move) and compare their nodes with the plain
    search's over ``h``; returns the nodes generated in all (the caller asserts that enough
    was compared)."""
    if wide:
        machine_for = walk.machine_for
        monkeypatch.setattr(walk, "machine_for", lambda *a: _wide(machine_for(*a)))
    total = 0
    for board in boards:
        optimal = api.solve(board, plan.target, algorithm="idastar", heuristic="manhattan")
        stop = optimal.length - 2
        plain = iterations(board.tiles, plan.target.tiles, board.shape.cols, h, stop)
        if not plain:
            continue  # the start's own bound is its optimal length: no iteration to compare
        got = search(plan, board.tiles, SearchSettings(fsm_depth=2), RaceRule(stop_bound=stop))
        assert got.pruning == "undo" and got.paused is not None
        assert (got.iterations, got.generated, got.expanded) == (
            len(plain),
            sum(i[1] for i in plain),
            sum(i[2] for i in plain),
        ), (board, plain)
        total += got.generated
    return total


def _boards(goal: Board, steps: int, count: int = 3) -> list[Board]:
    return [_scrambled(goal, steps, seed) for seed in range(count)]


@pytest.mark.parametrize("shape", ["3x3", "2x5", "3x4", "4x4"])
@pytest.mark.parametrize("wide", [False, True])
def test_manhattan_and_linear_conflict(shape, wide, monkeypatch):
    s = Shape.parse(shape)
    goal = goal_board(s)
    boards = _boards(goal, {"4x4": 36, "3x4": 30}.get(shape, 24))
    md = lambda t: naive_pdb.manhattan(t, goal.tiles, s.cols)  # noqa: E731
    lc = lambda t: naive_pdb.linear_conflict(t, goal.tiles, s.rows, s.cols)  # noqa: E731
    for plan, h in ((plans.lc_plan(s, goal), lc), (plans.manhattan_plan(s, goal), md)):
        assert _same_as_plain(plan, h, boards, monkeypatch, wide) > 100


@pytest.mark.parametrize("partition", ["4-4", "1,4,7/2,5,8/3,6"])
def test_3x3_databases_against_plain_tables(pdb_dir, partition, monkeypatch):
    # The plain tables of tests/naive_pdb.py: the sum of the patterns' values.
    s = Shape(3, 3)
    goal = goal_board(s)
    pdb = _pdb(pdb_dir, "3x3", partition)
    patterns = [t.tiles for t in pdb.tables]
    tables = [naive_pdb.pattern_table(goal.tiles, 3, 3, p) for p in patterns]

    def h(tiles):
        return sum(t[tuple(tiles.index(x) for x in sorted(p))] for t, p in zip(tables, patterns))

    plan = plans.pdb_plan_from([pdb], False)
    assert _same_as_plain(plan, h, _boards(goal, 30, 4), monkeypatch) > 100


@pytest.mark.parametrize("reflect", [False, True])
@pytest.mark.parametrize("wide", [False, True])
def test_3x3_databases_their_maximum_and_reflections(pdb_dir, reflect, wide, monkeypatch):
    # The plan's own value (the sums, the reflection, the largest), which
    # test_3x3_databases_against_plain_tables and the heuristics' tests check.
    goal = goal_board(Shape(3, 3))
    pdbs = [_pdb(pdb_dir, "3x3", "4-4"), _pdb(pdb_dir, "3x3", "1,4,7/2,5,8/3,6")]
    for chosen in ([pdbs[0]], [pdbs[1]], pdbs):
        plan = plans.pdb_plan_from(chosen, reflect)
        assert _same_as_plain(plan, plan.h, _boards(goal, 30), monkeypatch, wide) > 100


@pytest.mark.parametrize("reflect", [False, True])
def test_4x4_5_5_5(pdb_dir, reflect, monkeypatch):
    goal = goal_board(Shape(4, 4))
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "4x4", "5-5-5")], reflect)
    assert _same_as_plain(plan, plan.h, _boards(goal, 50, 5), monkeypatch) > 100


@pytest.mark.parametrize("reflect", [False, True])
def test_eager_zero_aware_4x4(twin_dir, reflect, monkeypatch):
    plan = plans.pdb_plan_from([_pdb(twin_dir, "4x4", "5-5-5")], reflect, zero_aware=True)
    assert plan.zero is not None and plan.zero.chunks == ()
    goal = goal_board(Shape(4, 4))
    assert _same_as_plain(plan, plan.h, _boards(goal, 50, 5), monkeypatch) > 100


@pytest.mark.parametrize("reflect", [False, True])
def test_lazy_zero_aware_3x6(lazy_dir, reflect, monkeypatch):
    plan = plans.pdb_plan_from([_pdb(lazy_dir, "3x6", LAZY_PARTITION)], reflect, zero_aware=True)
    assert plan.zero is not None and plan.zero.chunks == (0, 1, 2)
    goal = goal_board(Shape(3, 6))
    assert _same_as_plain(plan, plan.h, _boards(goal, 30), monkeypatch) > 100


def _iterations_in_slices(problem: walk.Problem, budget: int, cut: int = K.NO_CUT) -> tuple:
    """Iterative deepening through one walk in slices of ``budget`` nodes (with ``cut``, each
    iteration stops at every node of that depth and goes on past it); returns the statuses
    seen and the solution's length, or None where a cut skipped it."""
    w = walk.Walk(problem)
    bound, seen = problem.first_bound(), set()
    for _ in range(60):
        assert w.enter((), bound, cut) == walk.READY
        while (status := w.run(budget)) in (K.BUDGET_SPENT, K.FRONTIER):
            seen.add(status)
        seen.add(status)
        if status == K.FOUND:
            return seen, bound
        if cut != K.NO_CUT and bound >= problem.first_bound() + 6:
            return seen, None
        bound = problem.next_bound(w.next_f)
    pytest.fail("no solution within 60 iterations")


def test_slices_and_frontier_cuts_search_the_same_iterations(pdb_dir):
    # A walk run in slices of a few hundred nodes, or stopped at every node of a depth, finds
    # what one call finds: the optimal length, by the same bounds.
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "4x4", "5-5-5")], True)
    for seed in range(3):
        board = _scrambled(plan.target, 60, seed)
        optimal = api.solve(board, plan.target, algorithm="idastar", data_dir=pdb_dir).length
        problem = walk.Problem(plan, board.tiles, Weighting.of(None), 14)
        seen, length = _iterations_in_slices(problem, 300)
        assert length == optimal and K.BUDGET_SPENT in seen
        seen, _ = _iterations_in_slices(problem, 300, cut=3)
        assert K.FRONTIER in seen


@pytest.mark.parametrize("weight", ["1.5", "3"])
def test_weighted_searches_stay_within_their_bound(pdb_dir, twin_dir, weight):
    goal = goal_board(Shape(4, 4))
    for data, zero in ((pdb_dir, False), (twin_dir, True), (None, None)):
        for seed in range(2):
            board = _scrambled(goal, 60, seed)
            opts = (
                {"partition": "5-5-5", "zero_aware": zero}
                if data
                else {"heuristic": "linear-conflict"}
            )
            sol = api.solve(board, goal, algorithm="idastar", weight=weight, data_dir=data, **opts)
            best = api.solve(board, goal, algorithm="idastar", data_dir=pdb_dir, partition="5-5-5")
            assert board.apply(sol.moves).tiles == goal.tiles
            assert best.length <= sol.length <= float(weight) * best.length


# --- the module -------------------------------------------------------------------------------


def test_the_modules_constants_are_the_kernels():
    compiled = importlib.import_module(E.MODULE)
    assert compiled.SOURCE_DIGEST == E.source_digest()
    for name in ("FOUND", "ITERATION_DONE", "BUDGET_SPENT", "FRONTIER", "STATE_SLOTS"):
        assert getattr(compiled, name) == getattr(K, name)


def test_a_module_built_from_another_source_is_refused(tmp_path):
    for f in E.HERE.iterdir():  # the sources as built, then one of them changed
        if E.is_source(f):
            (tmp_path / f.name).write_bytes(f.read_bytes())
    assert E.load(source=tmp_path) is not None
    (tmp_path / "search_walk.h").write_bytes(b"/* another version */\n")
    with pytest.raises(E.EngineMissing, match="other sources"):
        E.load(source=tmp_path)
    (tmp_path / "search_walk.h").unlink()  # a file fewer is another source too
    with pytest.raises(E.EngineMissing, match="other sources"):
        E.load(source=tmp_path)
    with pytest.raises(E.EngineMissing, match="not built"):
        E.load(module="solver.engine._no_such_module")
    assert E.load(source=tmp_path / "not-installed") is not None
    (tmp_path / "empty").mkdir()
    assert E.load(source=tmp_path / "empty") is not None


def test_bad_arrays_are_refused_with_a_clear_error(pdb_dir):
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "3x3", "4-4")], False)
    problem = walk.Problem(plan, _scrambled(plan.target, 20, 0).tiles, Weighting.of(None), 14)
    w = walk.Walk(problem)
    assert w.enter((), problem.first_bound()) == walk.READY
    args = [
        w.node,
        w.stack,
        w.st,
        plan.tables[0],
        plan.deltas,
        plan.frames,
        problem.moves,
        problem.machine.trans,
        None,
        True,
        None,
        100,
    ]
    bad = {
        2: (w.st.astype(np.int32), TypeError),
        3: (plan.tables[0].astype(np.int16), TypeError),
        7: (problem.machine.trans.astype(np.int64), TypeError),
        8: (np.zeros(5, np.int64), ValueError),
        1: (w.stack._replace(kid=w.stack.kid[:, :, ::2]), ValueError),
        0: (w.node._replace(tiles=w.node.tiles[::-1]), ValueError),
        5: ((1, 2), TypeError),
    }
    kernels = E.engine()
    for i, (value, error) in bad.items():
        with pytest.raises(error):
            kernels.ida_pdb(*args[:i], value, *args[i + 1 :])
    frozen = w.st.copy()
    frozen.setflags(write=False)
    with pytest.raises(TypeError):
        kernels.ida_pdb(*args[:2], frozen, *args[3:])
    assert kernels.ida_pdb(*args) in (K.FOUND, K.BUDGET_SPENT, K.ITERATION_DONE)
