"""Duplicate pruning by a finite-state machine (solver.search.fsm): it must never remove every
shortest path, and IDA* with it must give the same lengths with no more nodes."""

from __future__ import annotations

import random
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import api
from solver.core import config
from solver.core.board import MOVES, Board, Shape, goal_board
from solver.search import fsm
from solver.tables import exact, kept_arrays


def _random_board(shape: Shape, rng: random.Random, walk: int = 200) -> Board:
    board = goal_board(shape)
    for _ in range(walk):
        board = board.move(rng.choice(board.legal_moves()))
    return board


def _allowed_reach(board: Board, machine: fsm.Automaton, length: int) -> set:
    """Every board reachable from ``board`` by move strings of at most ``length`` moves that
    the machine allows."""
    seen = {(board.tiles, 0)}
    frontier = [(board, 0)]
    reached = {board.tiles}
    for _ in range(length):
        following = []
        for b, state in frontier:
            for letter in b.legal_moves():
                nxt = int(machine.trans[state, MOVES.index(letter)])
                if nxt == fsm.PRUNED:
                    continue
                child = b.move(letter)
                if (child.tiles, nxt) not in seen:
                    seen.add((child.tiles, nxt))
                    following.append((child, nxt))
                    reached.add(child.tiles)
        frontier = following
    return reached


def test_depth_two_is_never_undo_the_previous_move():
    machine = fsm.machine_for(Shape(4, 4), 2)
    assert machine.name == "undo"
    for a in "UDLR":
        for b in "UDLR":
            undo = MOVES.index(a) ^ 1 == MOVES.index(b)
            assert machine.allows(a + b) is not undo


def test_the_first_duplicates_are_the_undos_and_the_square_turns():
    strings = ["".join(MOVES[d] for d in s) for s in fsm.forbidden_strings(6)]
    assert strings[:4] == ["UD", "DU", "LR", "RL"]
    # one and a half turns round a 2x2 square equal as many turns the other way: the later of
    # each equal pair in (length, UDLR) order is forbidden (RDLURD = DRULDR, LURDLU = ULDRUL)
    assert set(strings[4:]) == {"RDLURD", "LDRULD", "LURDLU", "RULDRU"}


@pytest.mark.parametrize("shape,depth", [("3x3", 8), ("2x4", 8), ("4x4", 8), ("3x4", 6)])
def test_every_forbidden_string_has_an_allowed_equivalent_no_longer(shape, depth):
    """Replay: wherever a forbidden string can be played, some string the machine allows, of
    no more moves, reaches the same board."""
    shape = Shape.parse(shape)
    machine = fsm.machine_for(shape, depth)
    rng = random.Random(7)
    strings = fsm.forbidden_strings(depth, shape.rows, shape.cols)
    assert strings and not any(machine.allows("".join(MOVES[d] for d in s)) for s in strings)
    for s in strings:
        letters = "".join(MOVES[d] for d in s)
        for _ in range(3):
            start = _random_board(shape, rng)
            try:
                end = start.apply(letters)
            except Exception:  # not playable from this blank cell
                continue
            assert end.tiles in _allowed_reach(start, machine, len(s)), letters


@pytest.mark.parametrize("shape", ["2x3", "3x2", "2x4", "4x2"])
def test_breadth_first_with_the_machine_finds_every_state_at_its_distance(shape):
    """Over a whole state space: the shortest allowed path to every state is a shortest path."""
    shape = Shape.parse(shape)
    machine = fsm.machine_for(shape, 8)
    start = goal_board(shape)
    plain = {start.tiles: 0}
    queue = deque([start])
    while queue:
        b = queue.popleft()
        for letter in b.legal_moves():
            c = b.move(letter)
            if c.tiles not in plain:
                plain[c.tiles] = plain[b.tiles] + 1
                queue.append(c)
    pruned = {start.tiles: 0}
    seen = {(start.tiles, 0)}
    queue = deque([(start, 0, 0)])
    while queue:
        b, state, g = queue.popleft()
        for letter in b.legal_moves():
            nxt = int(machine.trans[state, MOVES.index(letter)])
            if nxt == fsm.PRUNED:
                continue
            c = b.move(letter)
            if (c.tiles, nxt) in seen:
                continue
            seen.add((c.tiles, nxt))
            pruned.setdefault(c.tiles, g + 1)
            queue.append((c, nxt, g + 1))
    assert pruned == plain


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict"])
def test_idastar_with_the_machine_is_optimal_on_the_8_puzzle(exact_dir, heuristic):
    rng = random.Random(3)
    shape = Shape(3, 3)
    for goal in ("blank-last", "blank-first"):
        g = goal_board(shape, goal)
        for _ in range(25):
            start = _random_board(shape, rng)  # both goals have the default's parity on 3x3
            opts = api.SearchOptions(algorithm="idastar", heuristic=heuristic, fsm=8)
            sol = api.solve(start, g, options=opts)
            assert start.apply(sol.moves).tiles == g.tiles
            assert sol.length == exact.distance(start, g, data_dir=exact_dir)
            assert sol.extra["pruning"].startswith("fsm 8")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_machine_never_costs_nodes_on_the_15_puzzle(pdb_dir, seed):
    """Random 15-puzzles (walks of 60 moves): the same length as with "never undo", and no
    iteration that searches its whole tree generates more nodes.  (The last iteration stops at
    the first solution, which may be one the machine skips for an equal one found later.)"""
    from solver.search import walk_state as kernels
    from solver.search.walk import READY, Problem, Walk

    start = _random_board(Shape(4, 4), random.Random(seed), 60)
    goal = goal_board(Shape(4, 4))
    runs = [
        api.solve(start, goal, options=api.SearchOptions(fsm=depth, data_dir=pdb_dir))
        for depth in (2, 8)
    ]
    assert runs[0].extra["pruning"] == "undo" and runs[1].extra["pruning"].startswith("fsm 8")
    assert runs[0].length == runs[1].length
    assert start.apply(runs[1].moves).tiles == goal.tiles

    plan, red = api.search_request(goal, goal, api.SearchOptions(data_dir=pdb_dir)).plans[0]

    def whole_iteration(depth: int, bound: int) -> int:
        problem = Problem(plan, red.board(start).tiles, None, depth)
        problem.machine = fsm.machine_for(plan.shape, depth)
        walk = Walk(problem)
        status = walk.enter((), bound)
        while status in (READY, kernels.BUDGET_SPENT):
            status = walk.run(1 << 20)
        assert status == kernels.ITERATION_DONE
        return walk.generated

    for bound in range(runs[0].root_h, runs[0].length, 2):
        assert whole_iteration(8, bound) <= whole_iteration(2, bound)


def test_deep_machines_are_kept_in_the_cache_and_a_damaged_one_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUZZLE_CACHE", str(tmp_path))
    monkeypatch.setattr(fsm, "_MACHINES", {})
    shape = Shape(2, 3)  # a small board: its machine of depth 11 takes a fraction of a second
    path = kept_arrays.path_of(fsm.cache_name(11, 2, 3))
    assert kept_arrays.read(path) is None  # nothing kept yet
    made = fsm.machine_for(shape, 11)
    assert list(tmp_path.glob("fsm-*")) == [path]
    assert np.array_equal(kept_arrays.read(path), made.trans)  # kept, and read back as made
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # a wrong transition: pruning unproven
    path.write_bytes(bytes(data))
    assert kept_arrays.read(path) is None  # refused: it does not match its digest
    monkeypatch.setattr(fsm, "_MACHINES", {})
    assert np.array_equal(fsm.machine_for(shape, 11).trans, made.trans)  # made again
    assert np.array_equal(kept_arrays.read(path), made.trans)  # and kept again


def test_the_shipped_strings_are_the_ones_the_search_finds():
    """Machines up to SHIPPED_DEPTH are made from strings shipped with the package: they must
    be exactly what forbidden_strings makes -- for any board up to depth 10 (the unbounded
    BFS to the full depth takes six minutes), and, filtered to a board, at the full depth on
    boards whose own BFS is quick -- and give the machine made for that board."""
    assert fsm.shipped_strings(depth=10) == fsm.forbidden_strings(10)
    for shape, depth in (
        (Shape(3, 3), 14),
        (Shape(2, 4), 14),
        (Shape(2, 6), 14),
        (Shape(3, 4), 12),
    ):
        strings = fsm.forbidden_strings(depth, shape.rows, shape.cols)
        assert fsm.shipped_strings(shape.rows, shape.cols, depth) == strings, shape
        made = fsm.automaton(strings, depth)
        shipped = fsm.pruning_machine(depth, shape.rows, shape.cols)
        assert np.array_equal(made.trans, shipped.trans), shape


def test_the_depth_option_is_checked():
    for below in (-1, 0, 1):  # 2, never undoing the last move, is the smallest machine
        with pytest.raises(api.BoardError):
            api.SearchOptions(fsm=below)
    with pytest.raises(api.BoardError):
        api.SearchOptions(fsm=True)
    # Every depth that may be asked for is made from the shipped strings in a fraction of a
    # second; a deeper one would run a BFS of gigabytes (5x5, depth 16: over 14 GB).
    assert config.MAX_FSM_DEPTH == fsm.SHIPPED_DEPTH
    api.SearchOptions(fsm=config.MAX_FSM_DEPTH)
    with pytest.raises(api.BoardError, match="2 to 14"):
        api.SearchOptions(fsm=config.MAX_FSM_DEPTH + 1)


@pytest.mark.parametrize("shape", ["3x5", "4x5", "2x8", "4x6"])
def test_every_pruning_depth_is_optimal_on_boards_without_a_database(shape):
    """Boards no database is built for (linear conflict or Manhattan), both standard goals and
    a random one: IDA* gives A*'s length with every pruning machine, and its moves replay."""
    shape = Shape.parse(shape)
    rng = random.Random(len(str(shape)) * 101 + shape.size)
    goals = [goal_board(shape), goal_board(shape, "blank-first"), _random_board(shape, rng, 300)]
    for goal in goals:
        for _ in range(2):
            start = goal
            for _ in range(100):
                start = start.move(rng.choice(start.legal_moves()))
            best = api.solve(start, goal, algorithm="astar", heuristic="linear-conflict").length
            for heuristic in ("manhattan", "linear-conflict"):
                for depth in (2, 6, 10, 14):
                    opts = api.SearchOptions(algorithm="idastar", heuristic=heuristic, fsm=depth)
                    sol = api.solve(start, goal, options=opts)
                    assert sol.length == best, (shape, goal, heuristic, depth)
                    assert start.apply(sol.moves).tiles == goal.tiles


@pytest.mark.parametrize("shape", ["3x5", "4x5", "2x8", "4x6"])
def test_the_work_units_order_is_optimal_on_boards_without_a_database(shape, monkeypatch):
    """The same boards and goals searched in work units from their first iterations on, one
    and two threads, units most promising first (the first one shared) and in search order:
    A*'s length every time, and the moves replay."""
    from solver.search import driver, parallel

    monkeypatch.setattr(driver, "UNITS_AFTER", 300)
    monkeypatch.setattr(driver, "PARALLEL_AFTER", 0.0)
    monkeypatch.setattr(parallel, "UNITS_PER_JOB", 4)
    shape = Shape.parse(shape)
    rng = random.Random(len(str(shape)) * 103 + shape.size)
    goals = [goal_board(shape), goal_board(shape, "blank-first"), _random_board(shape, rng, 300)]
    in_units = 0
    for goal in goals:
        start = goal
        for _ in range(100):
            start = start.move(rng.choice(start.legal_moves()))
        best = api.solve(start, goal, algorithm="astar", heuristic="linear-conflict").length
        for heuristic in ("manhattan", "linear-conflict"):
            for jobs in (1, 2):
                for ordered in (True, False):
                    opts = api.SearchOptions(
                        algorithm="idastar", heuristic=heuristic, jobs=jobs, promising_first=ordered
                    )
                    sol = api.solve(start, goal, options=opts)
                    assert sol.length == best, (shape, goal, heuristic, jobs, ordered)
                    assert start.apply(sol.moves).tiles == goal.tiles
                    in_units += sol.extra["work_units"] > 0
    assert in_units  # the units' path was taken, not only the serial one
