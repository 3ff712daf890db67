"""The race of equally strong databases and their maxima (``--pick``, ``--pick-max``,
:mod:`solver.search.race`): optimal lengths against the exact tables, the winner is the
entrant whose nodes to the race's bound cost the least (checked by searching each one on its
own), the same pick on any number of threads, limits that count the race, and a driver that
pauses and goes on without losing a node."""

from __future__ import annotations

import json
import random

import pytest

from solver import api
from solver.core.board import Shape, goal_board
from solver.core.solution import SearchLimitReached
from solver.search import driver, plans, race
from solver.tables import exact


@pytest.fixture
def early_race(monkeypatch):
    """Races that start after a few dozen nodes, so that 8-puzzles have them."""
    monkeypatch.setattr(race, "RACE_AFTER", 20)


def _boards(n: int, seed: int, walk: int = 80):
    rng = random.Random(seed)
    board = goal_board(Shape(3, 3))
    for _ in range(n):
        for _ in range(walk):
            board = board.move(rng.choice(board.legal_moves()))
        yield board


def _solve(start, data_dir, **kw):
    return api.solve(start, goal_board(Shape(3, 3)), algorithm="idastar", data_dir=data_dir, **kw)


def test_a_raced_search_is_optimal_and_says_who_won(three_cuts, exact_dir, early_race):
    goal = goal_board(Shape(3, 3))
    raced = 0
    for start in _boards(25, 3):
        sol = _solve(start, three_cuts)
        assert start.apply(sol.moves).tiles == goal.tiles
        assert sol.length == exact.distance(start, goal, data_dir=exact_dir)
        assert sol.optimal
        raced += sol.extra["race"].startswith("raced to bound")
        assert sol.heuristic in sol.extra["race"] or sol.extra["race"].startswith("none")
    assert raced >= 10  # most of these boards need more than 20 nodes


def _entrants(start, data_dir, pick_max=True):
    opts = api.SearchOptions(data_dir=data_dir, pick_max=pick_max)
    goal = goal_board(Shape(3, 3))
    found = api.search_request(goal, goal, opts).plans
    return [race.Entrant(plan, red.board(start).tiles) for plan, red in found]


def test_the_race_enters_the_maxima_after_the_databases(three_cuts):
    start = next(_boards(1, 1))
    alone = _entrants(start, three_cuts, pick_max=False)
    both = _entrants(start, three_cuts)
    assert [len(e.plan.tables) for e in alone] == [1, 1, 1]
    # The incumbent with each rival, then all three.
    assert [len(e.plan.tables) for e in both] == [1, 1, 1, 2, 2, 3]
    assert [e.cost for e in both] == [1, 1, 1, 1.7, 1.7, 2.4]
    assert all(b.plan.tables[0] is alone[0].plan.tables[0] for b in both[3:])


@pytest.mark.parametrize("pick_max", [False, True])
def test_the_winner_needs_the_cheapest_nodes_to_the_bound(three_cuts, early_race, pick_max):
    checked = switched = 0
    for start in _boards(30, 1):
        entrants = _entrants(start, three_cuts, pick_max)
        res, won, ran = race.solve(entrants)
        if ran is None:
            continue
        alone = [
            driver.search(
                e.plan,
                e.tiles,
                driver.SearchSettings(fsm_depth=None),
                race.RaceRule(stop_bound=ran.bound),
            )
            for e in entrants
        ]
        counts = [a.generated for a in alone]
        prices = [n * e.cost for n, e in zip(counts, entrants)]
        assert counts[0] == ran.nodes[0]
        limit = int(race.MARGIN * counts[0])  # what a rival's nodes must not cost more than
        for said, count, price in zip(ran.nodes[1:], counts[1:], prices[1:]):
            assert said == count if said is not None else price > limit
        eligible = [i for i in range(1, len(counts)) if prices[i] <= limit]
        best = min(eligible, key=lambda i: (prices[i], i)) if eligible else 0
        assert won == ran.winner == best
        assert res.generated >= sum(n for n in ran.nodes if n is not None)
        checked += 1
        switched += won != 0
    assert checked and switched


def test_the_pick_is_the_same_on_any_number_of_threads(three_cuts, early_race):
    for start in _boards(10, 7):
        one, two = (
            race.solve(_entrants(start, three_cuts), driver.SearchSettings(jobs=jobs))[1:]
            for jobs in (1, 2)
        )
        assert one[0] == two[0]
        assert (one[1] is None) == (two[1] is None)
        if one[1] is not None:
            assert one[1].nodes == two[1].nodes and one[1].bound == two[1].bound


def test_no_pick_searches_the_incumbent_alone(three_cuts, cuts, early_race):
    for start in _boards(5, 11):
        sol = _solve(start, three_cuts, pick=False)
        named = _solve(start, three_cuts, partition=cuts[0])
        assert "race" not in sol.extra
        assert sol.nodes_generated == named.nodes_generated and sol.moves == named.moves


def test_a_weighted_search_does_not_race(three_cuts, early_race):
    start = next(_boards(1, 5))
    sol = _solve(start, three_cuts, weight=1.5)
    assert "race" not in sol.extra


def test_the_node_cap_counts_the_race(three_cuts, cuts, exact_dir, early_race):
    goal = goal_board(Shape(3, 3))
    for start in _boards(10, 13):
        full = _solve(start, three_cuts)
        if not full.extra["race"].startswith("raced"):
            continue
        cap = max(1, full.nodes_generated // 2)
        with pytest.raises(SearchLimitReached) as e:
            _solve(start, three_cuts, max_nodes=cap)
        partial = e.value.partial
        assert partial.lower_bound <= exact.distance(start, goal, data_dir=exact_dir)
        assert partial.nodes_generated < full.nodes_generated + 4 * len(cuts)
        return
    pytest.fail("no board raced")


def test_a_paused_search_goes_on_without_losing_a_node(three_cuts, cuts):
    goal = goal_board(Shape(3, 3))
    opts = api.SearchOptions(data_dir=three_cuts, partition=cuts[1])
    plan, _ = api.search_request(goal, goal, opts).plans[0]
    for start in _boards(10, 17):
        whole = driver.search(plan, start.tiles)
        first = driver.search(plan, start.tiles, race=race.RaceRule(pause_after=30))
        if first.paused is None:
            assert first.moves == whole.moves
            continue
        rest = driver.search(plan, start.tiles, race=race.RaceRule(start_bound=first.lower_bound))
        assert first.lower_bound == first.paused + 2
        assert rest.moves == whole.moves
        assert first.generated + rest.generated == whole.generated
        assert first.iterations + rest.iterations == whole.iterations


def test_the_command_line_shows_the_race(three_cuts, early_race, run_cli):
    start = next(_boards(1, 3))
    args = ["solve", start.flat(), "--algorithm", "idastar", "--data-dir", str(three_cuts)]
    verbose = run_cli(args + ["-v"])
    assert verbose.exit_code == 0, verbose.output
    assert "race:" in verbose.output
    answer = json.loads(run_cli(args + ["--json"]).output)
    assert "race" in answer and answer["heuristic"].startswith("pdb ")
    plain = json.loads(run_cli(args + ["--json", "--no-pick"]).output)
    assert "race" not in plain
    # The memory the search read: all three databases for the race (their maxima read the
    # same tables), one without it.
    assert answer["tables_bytes"] == 3 * plain["tables_bytes"] > 0
    assert f"tables {answer['tables_bytes']:,} bytes" in verbose.output
    # The maxima race with their weights; --no-pick-max races the databases alone.
    assert answer["race"].startswith("raced")
    assert " & " in answer["race"] and "(x1.7)" in answer["race"]
    alone = json.loads(run_cli(args + ["--json", "--no-pick-max"]).output)
    assert " & " not in alone["race"] and alone["length"] == answer["length"]


def test_the_race_stays_within_half_the_memory(three_cuts, cuts, monkeypatch):
    from solver.tables import catalog

    goal = goal_board(Shape(3, 3))
    opts = api.SearchOptions(data_dir=three_cuts)
    lead = catalog.rivals(goal.shape, goal, three_cuts)[0][0]
    # The three databases, the incumbent's maximum with each rival, and all three's.
    assert len(api.search_request(goal, goal, opts).plans) == len(cuts) + 3
    # A machine with room for two of these databases in half its memory races two of them
    # (and their maximum, which reads the same tables).
    # (The memory is a constant of the machine: a process chooses once, so each machine
    # here is a fresh choice.)
    monkeypatch.setattr(catalog, "_physical_memory", lambda: 4 * lead.strength + 1)
    plans.clear_cache()
    assert len(api.search_request(goal, goal, opts).plans) == 3
    monkeypatch.setattr(catalog, "_physical_memory", lambda: lead.strength)
    plans.clear_cache()
    assert len(api.search_request(goal, goal, opts).plans) == 1


def test_only_the_cuts_drawn_for_the_race_and_custom_ones_race():
    from solver.tables import partitions

    assert [partitions.races(n) for n in ("6-6-6-6", "6-6-6-6c", "6-6-6-6d", "6-6-6-6e")] == [
        True
    ] * 4
    # 7-8b and 6-6-6-6b are the --combine companions: weaker on most boards, never raced.
    assert not any(partitions.races(n) for n in ("7-8", "7-8b", "6-6-3", "6-6-6-6b", None))
    assert partitions.races("1,2,4,5/3,6,7,8")


def test_a_race_of_one_is_the_search_itself(three_cuts, early_race):
    for start in _boards(5, 19):
        alone = _entrants(start, three_cuts)[:1]
        res, won, ran = race.solve(alone)
        plain = driver.search(alone[0].plan, alone[0].tiles)
        assert ran is None and won == 0
        assert res.moves == plain.moves and res.generated == plain.generated
