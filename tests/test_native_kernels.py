"""The IDA* kernels compiled ahead of time (``solver/search/native_kernels.c``) walk exactly as
numba's do: on every search configuration the suite's small databases allow, two walks -- one
on each implementation -- are run side by side in the same slices, and after every call their
statuses, state vectors, stacks and boards must be equal; whole searches through both give the
same node counts.  Skipped where the extension is not built (``pip install -e .`` builds it).

Marked slow: on a fresh numba cache it compiles every JIT specialisation the configurations
need (three to four minutes on 2 cores), so it runs with ``--slow``; ``.ci/run`` runs it with
numba's JIT run, beside the README's test command."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pdb_builder.build_apdb import build_apdb
from pdb_builder.zero_aware import build_zero_aware
from solver import api
from solver.core import config
from solver.core.board import Board, Shape, goal_board
from solver.search import kernels as K
from solver.search import native, plans, walk
from solver.search.weights import Weighting
from solver.tables import catalog, pattern_db
from solver.tables.partitions import parse_partition

COMPILED = native.load()
pytestmark = [
    pytest.mark.skipif(
        COMPILED is None, reason="the compiled kernels are not built (pip install -e . builds them)"
    ),
    pytest.mark.slow,
]
ROOT = Path(__file__).resolve().parents[1]


def _scrambled(goal: Board, steps: int, seed: int) -> Board:
    rng = random.Random(seed)
    board, prev = goal, None
    for _ in range(steps):
        moves = [m for m in board.legal_moves() if m != prev]
        m = rng.choice(moves)
        board = board.move(m)
        prev = {"U": "D", "D": "U", "L": "R", "R": "L"}[m]
    return board


def _state(w: walk.Walk) -> list[np.ndarray]:
    arrays = [w.st, *w.stack, w.tiles]
    if w.node is not None:
        arrays += list(w.node)
    if w.conflicts is not None:
        arrays.append(w.conflicts)
    return arrays


class Pair:
    """Two walks of one problem, one on numba's kernels and one on the compiled ones."""

    def __init__(self, problem: walk.Problem, monkeypatch):
        self.walks = [walk.Walk(problem), walk.Walk(problem)]
        self.monkeypatch = monkeypatch
        self.calls = 0

    def enter(self, path, bound, cut=K.NO_CUT, go_on=False) -> int:
        ready = [w.enter(path, bound, cut, go_on) for w in self.walks]
        assert ready[0] == ready[1]
        self.same()
        return ready[0]

    def run(self, budget: int) -> int:
        statuses = []
        for w, chosen in zip(self.walks, (None, COMPILED)):
            self.monkeypatch.setattr(walk, "compiled_kernels", lambda chosen=chosen: chosen)
            statuses.append(w.run(budget))
        self.calls += 1
        assert statuses[0] == statuses[1], statuses
        self.same()
        return statuses[0]

    def same(self) -> None:
        jit, compiled = (_state(w) for w in self.walks)
        for i, (a, b) in enumerate(zip(jit, compiled)):
            assert np.array_equal(a, b), (i, a, b)


def _search(problem: walk.Problem, monkeypatch, budget: int, cut: int = K.NO_CUT, go_on=False):
    """Iterative deepening from the start through a :class:`Pair`, in slices of ``budget``
    nodes; with ``cut`` each iteration stops at every node of that depth (FRONTIER) and goes
    on past it.  Returns the statuses seen and the nodes generated."""
    pair = Pair(problem, monkeypatch)
    bound, seen, generated = problem.first_bound(), set(), 0
    pair.most = 0  # the most nodes one placement of the walk generated
    for _ in range(60):
        if pair.enter((), bound, cut, go_on) != walk.READY:
            pytest.fail("the start is the goal or over its own bound")
        while True:
            status = pair.run(budget)
            seen.add(status)
            if status not in (K.BUDGET_SPENT, K.FRONTIER):
                break
        generated += pair.walks[0].generated
        pair.most = max(pair.most, pair.walks[0].generated)
        if status == K.FOUND:
            return seen, generated, pair
        if cut != K.NO_CUT and (
            bound >= problem.first_bound() + 6 or pair.walks[0].next_f >= K.INFINITE_F
        ):
            return seen, generated, pair  # a frontier cut skips subtrees: no goal to expect
        bound = problem.next_bound(pair.walks[0].next_f)
    pytest.fail("no solution within 60 iterations")


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


LAZY_PARTITION = "1,2,3/4,5,6/7,8,9/10,11,12/13,14,15/16,17"


def _problem(plan, steps, seed, weight=None, fsm_depth=14, wide_machine=False):
    board = _scrambled(plan.target, steps, seed)
    problem = walk.Problem(plan, board.tiles, Weighting.of(weight), fsm_depth)
    if wide_machine:  # a machine of more than 32,767 states keeps its transitions as int32
        trans = problem.machine.trans.astype(np.int32)
        trans.setflags(write=False)
        problem.machine = problem.machine._replace(trans=trans)
    return problem


def test_the_modules_constants_are_the_kernels():
    import importlib

    compiled = importlib.import_module("solver.search._kernels_c")
    for name in ("FOUND", "ITERATION_DONE", "BUDGET_SPENT", "FRONTIER", "STATE_SLOTS"):
        assert getattr(compiled, name) == getattr(K, name)
    assert compiled.SOURCE_DIGEST == native.source_digest()


@pytest.mark.parametrize("reflect", [False, True])
@pytest.mark.parametrize("partition", ["4-4", "1,4,7/2,5,8/3,6"])
@pytest.mark.parametrize(("fsm_depth", "wide"), [(2, False), (14, False), (14, True)])
def test_3x3_databases(pdb_dir, monkeypatch, reflect, partition, fsm_depth, wide):
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "3x3", partition)], reflect)
    for seed in range(4):
        problem = _problem(plan, 30, seed, fsm_depth=fsm_depth, wide_machine=wide)
        seen, *_ = _search(problem, monkeypatch, 97)
        assert K.FOUND in seen


@pytest.mark.parametrize("reflect", [False, True])
def test_a_maximum_of_two_3x3_databases(pdb_dir, monkeypatch, reflect):
    pdbs = [_pdb(pdb_dir, "3x3", "4-4"), _pdb(pdb_dir, "3x3", "1,4,7/2,5,8/3,6")]
    plan = plans.pdb_plan_from(pdbs, reflect)
    assert plan.deltas is not None and len(plan.frames.ids) == 2 * (1 + reflect)
    for seed in range(4):
        _search(_problem(plan, 30, seed), monkeypatch, 61)


@pytest.mark.parametrize("reflect", [False, True])
def test_4x4_5_5_5_in_slices_and_whole_iterations(pdb_dir, monkeypatch, reflect):
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "4x4", "5-5-5")], reflect)
    for seed, budget, go_on in ((1, 200, False), (2, 10**9, True), (3, 300, True)):
        seen, generated, pair = _search(_problem(plan, 80, seed), monkeypatch, budget, go_on=go_on)
        assert generated > 300 and K.FOUND in seen
        assert (K.BUDGET_SPENT in seen) == (pair.most >= budget)


def test_4x4_frontier_cuts(pdb_dir, monkeypatch):
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "4x4", "5-5-5")], True)
    seen, _, pair = _search(_problem(plan, 60, 4), monkeypatch, 300, cut=3)
    assert K.FRONTIER in seen and pair.calls > 20


def test_eager_zero_aware_4x4(twin_dir, monkeypatch):
    pdb = _pdb(twin_dir, "4x4", "5-5-5")
    for reflect in (False, True):
        plan = plans.pdb_plan_from([pdb], reflect, zero_aware=True)
        assert plan.zero is not None and plan.zero.chunks == ()
        for seed in range(3):
            _search(_problem(plan, 55, seed), monkeypatch, 700)
        _search(_problem(plan, 55, 9), monkeypatch, 200, cut=4)


def test_lazy_zero_aware_on_3x6(lazy_dir, monkeypatch):
    pdb = _pdb(lazy_dir, "3x6", LAZY_PARTITION)
    for reflect in (False, True):
        plan = plans.pdb_plan_from([pdb], reflect, zero_aware=True)
        assert plan.zero is not None and plan.zero.chunks == (0, 1, 2)
        for seed in range(3):
            _search(_problem(plan, 30, seed), monkeypatch, 400)


@pytest.mark.parametrize("weight", ["1.5", "3"])
def test_weighted(pdb_dir, twin_dir, monkeypatch, weight):
    pdb = _pdb(pdb_dir, "4x4", "5-5-5")
    for plan in (
        plans.pdb_plan_from([pdb], True),
        plans.pdb_plan_from([_pdb(twin_dir, "4x4", "5-5-5")], True, zero_aware=True),
        plans.lc_plan(Shape(4, 4), goal_board(Shape(4, 4))),
    ):
        for seed in range(2):
            _search(_problem(plan, 60, seed, weight=weight), monkeypatch, 500)


def _without_conflicts(problem: walk.Problem) -> walk.Problem:
    """``ida_lc`` with ``use_lc`` off: Manhattan distance alone, the lines' conflicts left at
    0 (the root's h without them; whole iterations only)."""
    md = problem.plan.lines.md
    h = int(sum(md[t, c] for c, t in enumerate(problem.start) if t))
    problem.root = (np.zeros_like(problem.root[0]), h)
    problem.root_h = h
    return problem


@pytest.mark.parametrize("shape", ["3x3", "3x4", "4x4", "2x5"])
def test_manhattan_and_linear_conflict(monkeypatch, shape):
    s = Shape.parse(shape)
    goal = goal_board(s)
    lc = plans.lc_plan(s, goal)
    md_lines = replace(lc, name="manhattan")  # ida_lc's use_lc is off
    steps = {"4x4": 26, "2x5": 20}.get(shape, 30)
    for plan in (lc, md_lines, plans.manhattan_plan(s, goal)):
        for seed, wide in ((0, False), (1, False), (2, True)):
            problem = _problem(plan, steps, seed, wide_machine=wide)
            if plan is md_lines:
                _without_conflicts(problem)
            _search(problem, monkeypatch, 333)
    _search(_problem(lc, steps, 7), monkeypatch, 50, cut=3)


# --- whole searches ----------------------------------------------------------------------------


def _solve_both(monkeypatch, *args, **kw):
    answers = []
    for chosen in (None, COMPILED):
        monkeypatch.setattr(walk, "compiled_kernels", lambda chosen=chosen: chosen)
        answers.append(api.solve(*args, **kw))
    a, b = answers
    assert (a.moves, a.nodes_generated, a.nodes_expanded) == (
        b.moves,
        b.nodes_generated,
        b.nodes_expanded,
    )
    return b


def test_korf_instances_on_one_and_two_threads(twin_dir, monkeypatch):
    from test_idastar import korf_instances

    for _, tiles, length in korf_instances(2):
        for zero in (False, True):
            sol = _solve_both(
                monkeypatch,
                tiles,
                "blank-first",
                algorithm="idastar",
                partition="5-5-5",
                zero_aware=zero,
                data_dir=twin_dir,
            )
            assert sol.length == length
    # Two threads share an iteration's work units: their count varies with the timing, the
    # answer's length does not.
    for chosen in (None, COMPILED):
        monkeypatch.setattr(walk, "compiled_kernels", lambda chosen=chosen: chosen)
        sol = api.solve(
            korf_instances(1)[0][1],
            "blank-first",
            algorithm="idastar",
            partition="5-5-5",
            jobs=2,
            data_dir=twin_dir,
        )
        assert sol.length == korf_instances(1)[0][2]


def test_the_environment_variable_chooses_the_kernels(pdb_dir):
    """``NPUZZLE_KERNELS`` in a fresh process: ``jit`` runs numba's, ``native`` the compiled
    ones, and both give the same nodes."""
    code = (
        "import sys; from solver import api; from solver.search import native, walk;"
        "s = api.solve('8,6,7,2,5,4,3,0,1', algorithm='idastar', partition='4-4',"
        f" data_dir={str(pdb_dir)!r});"
        "print(native.kernels() is not None, s.length, s.nodes_generated, s.nodes_expanded)"
    )
    out = {}
    for choice in ("jit", "native"):
        env = {**__import__("os").environ, config.ENV_KERNELS: choice, "PYTHONPATH": str(ROOT)}
        run = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        out[choice] = run.stdout.split()
    assert out["jit"][0] == "False" and out["native"][0] == "True"
    assert out["jit"][1:] == out["native"][1:] and out["jit"][1] == "31"


def test_a_module_built_from_another_source_is_a_miss(tmp_path):
    for f in native.HERE.iterdir():  # the sources as built, then one of them changed
        if native.is_source(f):
            (tmp_path / f.name).write_bytes(f.read_bytes())
    assert native.load(source=tmp_path) is not None
    (tmp_path / "native_walk.h").write_bytes(b"/* another version */\n")
    assert native.load(source=tmp_path) is None
    (tmp_path / "native_walk.h").unlink()  # a file fewer is another source too
    assert native.load(source=tmp_path) is None
    assert native.load(module="solver.search._no_such_module") is None
    assert native.load(source=tmp_path / "not-installed") is not None
    (tmp_path / "empty").mkdir()
    assert native.load(source=tmp_path / "empty") is not None


def test_bad_arrays_are_refused_with_a_clear_error(pdb_dir):
    plan = plans.pdb_plan_from([_pdb(pdb_dir, "3x3", "4-4")], False)
    problem = _problem(plan, 20, 0)
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
    for i, (value, error) in bad.items():
        with pytest.raises(error):
            COMPILED.ida_pdb(*args[:i], value, *args[i + 1 :])
    frozen = w.st.copy()
    frozen.setflags(write=False)
    with pytest.raises(TypeError):
        COMPILED.ida_pdb(*args[:2], frozen, *args[3:])
    assert COMPILED.ida_pdb(*args) in (K.FOUND, K.BUDGET_SPENT, K.ITERATION_DONE)
