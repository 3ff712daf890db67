"""Random positions: exact distances, solvability for the chosen goal, seeds, uniformity; and
``npuzzle generate`` / ``npuzzle stats``."""

from __future__ import annotations

import json
import math
import sys
from collections import Counter

import numpy as np
import pytest
from conftest import assert_one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.api import solve
from solver.core.board import Board, Shape, goal_board, is_solvable
from solver.tables import exact
from solver.workloads.distributions import distance_counts
from solver.workloads.generate import (
    GenerateError,
    generate,
    manhattan_many,
    parity_class,
    reference_counts,
    search,
    shuffled,
    walked,
)

# The two 8-puzzle positions 31 moves from 1 2 3/4 5 6/7 8 0 (the largest distance).
FARTHEST_3X3 = {"8 6 7/2 5 4/3 0 1", "6 4 7/8 5 0/3 2 1"}
GOALS_3X3 = [
    "blank-last",
    "blank-first",
    "snake",
    "spiral",
    "1 2 3/4 0 5/6 7 8",
    "8 7 6/5 4 3/2 1 0",
]


def table_distance(board: Board, goal: Board, data_dir) -> int:
    return exact.lookup(board, goal, data_dir)


def assert_exact(rows, goal, data_dir, want=None):
    for board, d in rows:
        assert is_solvable(board, goal), board
        assert table_distance(board, goal, data_dir) == d, board
        if want is not None:
            assert d in want, (board, d)


# --- distances are exact and positions solvable ----------------------------------------------


@pytest.mark.parametrize("goal", GOALS_3X3)
@pytest.mark.parametrize("method", ["shuffle", "walk"])
def test_unconstrained_positions_are_solvable_with_exact_distances(exact_dir, goal, method):
    g = goal_board("3x3", goal)
    rows = generate("3x3", 40, goal=g, method=method, seed=5, data_dir=exact_dir)
    assert len(rows) == 40
    assert_exact(rows, g, exact_dir)


@settings(max_examples=25, deadline=None)
@given(goal=st.permutations(range(9)), d=st.integers(0, 31), seed=st.integers(0, 2**32))
def test_requested_distance_is_exact_for_any_goal(exact_dir, goal, d, seed):
    g = Board(Shape(3, 3), tuple(goal))
    top = distance_counts(g.shape, g, exact_dir).max_distance
    if d > top:
        with pytest.raises(GenerateError, match=f"maximum is {top}"):
            generate("3x3", 3, distance=d, goal=g, seed=seed, data_dir=exact_dir)
        return
    rows = generate("3x3", 5, distance=d, goal=g, seed=seed, data_dir=exact_dir)
    assert_exact(rows, g, exact_dir, want={d})


@settings(max_examples=15, deadline=None)
@given(
    goal=st.sampled_from(GOALS_3X3),
    lo=st.integers(0, 20),
    span=st.integers(0, 4),
    seed=st.integers(0, 2**32),
)
def test_walk_to_a_distance_range(exact_dir, goal, lo, span, seed):
    g = goal_board("3x3", goal)
    rows = generate(
        "3x3",
        4,
        min_distance=lo,
        max_distance=lo + span,
        goal=g,
        method="walk",
        seed=seed,
        data_dir=exact_dir,
    )
    assert_exact(rows, g, exact_dir, want=set(range(lo, lo + span + 1)))


def test_the_two_farthest_8_puzzles(exact_dir):
    rows = generate("3x3", 20, distance=31, seed=0, data_dir=exact_dir)
    assert {str(b) for b, _ in rows} == FARTHEST_3X3
    both = generate("3x3", 2, distance=31, unique=True, seed=0, data_dir=exact_dir)
    assert {str(b) for b, _ in both} == FARTHEST_3X3
    with pytest.raises(GenerateError, match="only 2 positions"):
        generate("3x3", 3, distance=31, unique=True, data_dir=exact_dir)


def test_walk_reaches_31(exact_dir):
    rows = generate("3x3", 1, distance=31, method="walk", seed=3, data_dir=exact_dir)
    assert str(rows[0][0]) in FARTHEST_3X3


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"distance": 32}, "maximum is 31"),
        ({"min_distance": 40}, "maximum is 31"),
        ({"distance": 3, "min_distance": 1}, "not both"),
        ({"min_distance": 9, "max_distance": 4}, "above the maximum"),
        ({"distance": -1}, "negative"),
        ({"method": "teleport"}, "unknown method"),
    ],
)
def test_impossible_requests(exact_dir, kwargs, message):
    with pytest.raises(GenerateError, match=message):
        generate("3x3", 2, data_dir=exact_dir, **kwargs)


@pytest.mark.parametrize(
    "args",
    [
        ["--shape", "5x5"],
        ["--shape", "10x10", "--method", "walk"],  # the default walk is as good as random
    ],
)
def test_positions_out_of_reach_are_refused_at_once(run_cli, tmp_path, args):
    r = run_cli(["generate", *args, "--data-dir", tmp_path])
    assert_one_line_error(r, 2)
    assert "--method walk --length" in r.stderr and r.stdout == ""


@pytest.mark.parametrize("method", [[], ["--method", "walk"], ["--method", "shuffle"]])
def test_a_5x5_distance_is_reached_by_walks_whatever_the_method(run_cli, tmp_path, method):
    """Shuffled 5x5 positions take hours each to solve: walks lengthened until their end is
    at the distance take a moment, with the method asked for or not (as the service does)."""
    r = run_cli(
        ["generate", "--shape", "5x5", "--distance", "16", "--count", "2", "--seed", "3"]
        + [*method, "--json", "--data-dir", tmp_path]
    )
    assert r.exit_code == 0, r.output
    for rec in map(json.loads, r.stdout.splitlines()):
        assert rec["distance"] == 16 and rec["method"] == "walk"
        board = Board.parse(rec["board"], "5x5")
        assert solve(board, goal_board("5x5"), data_dir=tmp_path).length == 16


def test_short_walks_on_big_boards_come_with_their_distance(run_cli, tmp_path):
    r = run_cli(
        [
            "generate",
            "--shape",
            "5x5",
            "--method",
            "walk",
            "--length",
            "12",
            "--count",
            "3",
            "--seed",
            "7",
            "--data-dir",
            tmp_path,
        ]
    )
    assert r.exit_code == 0, r.output
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert len(rows) == 3
    for board, d in rows:
        walked = Board.parse(board, "5x5")
        assert is_solvable(walked, goal_board("5x5"))
        # At most the walk, with the walk's parity (a walk never undoes a move, but may loop).
        assert int(d) <= 12 and int(d) % 2 == 0


def test_a_range_is_respected_and_open_ends_work(exact_dir):
    g = goal_board("3x3")
    assert_exact(
        generate("3x3", 30, min_distance=29, seed=1, data_dir=exact_dir),
        g,
        exact_dir,
        want={29, 30, 31},
    )
    assert_exact(
        generate("3x3", 30, max_distance=2, seed=1, data_dir=exact_dir),
        g,
        exact_dir,
        want={0, 1, 2},
    )


def test_a_board_without_a_table_searches_one_in_memory(tmp_path):
    rows = generate("3x3", 5, distance=5, seed=2, data_dir=tmp_path)
    assert [d for _, d in rows] == [5] * 5 and not list(tmp_path.iterdir())


def test_missing_database_of_a_larger_board_is_a_database_error(tmp_path):
    from solver.tables.store import DatabaseMissing

    with pytest.raises(DatabaseMissing, match="build-pdb --shape 4x4"):
        generate("4x4", 1, distance=5, data_dir=tmp_path)


# --- seeds -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"method": "walk"},
        {"distance": 20},
        {"distance": 12, "method": "walk"},
        {"min_distance": 10, "max_distance": 14, "goal": "spiral"},
    ],
)
def test_same_seed_same_output(exact_dir, kwargs):
    a = generate("3x3", 10, seed=42, data_dir=exact_dir, **kwargs)
    b = generate("3x3", 10, seed=42, data_dir=exact_dir, **kwargs)
    c = generate("3x3", 10, seed=43, data_dir=exact_dir, **kwargs)
    assert a == b
    assert a != c


# --- the shuffle is uniform over the solvable positions --------------------------------------


def wilson_hilferty(df: int, z: float) -> float:
    """Upper quantile of the chi-squared distribution with ``df`` degrees of freedom at the
    normal quantile ``z`` (Wilson & Hilferty 1931: (X/df)^(1/3) is nearly normal with mean
    1 - 2/(9 df) and variance 2/(9 df); accurate to a fraction of a percent for df > 100)."""
    v = 2 / (9 * df)
    return df * (1 - v + z * math.sqrt(v)) ** 3


@pytest.mark.parametrize("goal", ["blank-last", "1 0 2/3 4 5"])  # the second: blank mid-edge
def test_shuffle_is_uniform_chi_squared(goal):
    # 2x3 has 6!/2 = 360 solvable positions.  36,000 draws put 100 expected in each cell
    # (well above the usual 5).  Under uniformity the statistic follows chi-squared with
    # 359 degrees of freedom; its 0.999 quantile is 447.5 (z = 3.0902), so a correct
    # generator fails this (seeded, hence deterministic) test with probability 0.001.  The
    # lower 0.001 quantile (281.9, z = -3.0902) guards against output that is "too even",
    # as a systematic enumeration would be.
    g = goal_board("2x3", goal)
    draws = 36_000
    boards = shuffled(g, draws, np.random.default_rng(2024))
    seen = Counter(map(tuple, boards.tolist()))
    assert all(is_solvable(Board(g.shape, t), g) for t in seen)
    cells = math.factorial(6) // 2
    assert len(seen) == cells
    expected = draws / cells
    observed = np.array(list(seen.values()), dtype=float)
    stat = float(((observed - expected) ** 2 / expected).sum())
    df = cells - 1
    assert wilson_hilferty(df, -3.0902) < stat < wilson_hilferty(df, 3.0902), stat


def test_wilson_hilferty_matches_tabulated_quantiles():
    # Tabulated chi-squared quantiles: df=100 at 0.999 is 149.449; df=10 at 0.95 is 18.307.
    assert wilson_hilferty(100, 3.0902) == pytest.approx(149.449, rel=2e-3)
    assert wilson_hilferty(10, 1.6449) == pytest.approx(18.307, rel=5e-3)


def test_distance_level_sampling_is_uniform(exact_dir):
    # Distance 4 from the 3x3 goal: a small level; every member should appear about equally.
    g = goal_board("3x3")
    level = distance_counts(g.shape, g, exact_dir).counts[4]
    rows = generate("3x3", 200 * level, distance=4, seed=9, data_dir=exact_dir)
    seen = Counter(str(b) for b, _ in rows)
    assert len(seen) == level
    observed = np.array(list(seen.values()), dtype=float)
    stat = float(((observed - 200) ** 2 / 200).sum())
    assert stat < wilson_hilferty(level - 1, 3.0902)


# --- walks -----------------------------------------------------------------------------------


@pytest.mark.parametrize("goal", ["blank-last", "1 0 2/3 4 5", "0 1 2/3 4 5"])
def test_walk_never_undoes_a_move(exact_dir, goal):
    g = goal_board("2x3", goal)
    rng = np.random.default_rng(0)
    # Two steps that do not undo each other always end two moves away on 2x3.
    assert set(exact.distances(walked(g, 500, 2, rng), g, exact_dir).tolist()) == {2}
    assert (walked(g, 3, 0, rng) == np.array(g.tiles)).all()
    for length in (5, 8, 13):
        d = exact.distances(walked(g, 300, length, rng), g, exact_dir)
        assert (d <= length).all() and (d % 2 == length % 2).all()


def test_walk_length_option(exact_dir):
    rows = generate("3x3", 50, method="walk", walk_length=3, seed=1, data_dir=exact_dir)
    assert {d for _, d in rows} <= {1, 3}


# --- the search used without exact tables (4x4), driven here by a table oracle -------------


@pytest.mark.parametrize("method", ["shuffle", "walk"])
@pytest.mark.parametrize("lo,hi", [(12, 12), (20, 22), (27, 27)])
def test_search_by_rejection(exact_dir, method, lo, hi):
    g = goal_board("3x3", "spiral")
    solved = []

    def oracle(tiles):
        solved.append(tuple(tiles))
        return table_distance(Board(g.shape, tuple(int(t) for t in tiles)), g, exact_dir)

    rows = search(g, 6, lo, hi, method, np.random.default_rng(1), oracle)
    assert len(rows) == 6
    for tiles, d in rows:
        assert lo <= d <= hi
        assert table_distance(Board(g.shape, tiles), g, exact_dir) == d
    again = search(g, 6, lo, hi, method, np.random.default_rng(1), oracle)
    assert again == rows
    # The cheap filters (parity, Manhattan bound) mean no solved candidate was hopeless.
    boards = np.array(solved)
    assert (manhattan_many(boards, g) <= hi).all()


def test_search_gives_up_with_a_message(exact_dir):
    g = goal_board("3x3")
    with pytest.raises(GenerateError, match="gave up"):
        search(g, 1, 31, 31, "shuffle", np.random.default_rng(0), lambda t: 0, max_tries=5)


def test_parity_class_agrees_with_the_rule():
    rng = np.random.default_rng(3)
    for shape in (Shape(2, 3), Shape(3, 3), Shape(4, 4), Shape(3, 4)):
        g = goal_board(shape)
        boards = rng.permuted(np.tile(np.arange(shape.size), (200, 1)), axis=1)
        cls = parity_class(boards, shape)
        goal_cls = parity_class(np.array([g.tiles]), shape)[0]
        for row, c in zip(boards.tolist(), cls.tolist()):
            assert is_solvable(Board(shape, tuple(row)), g) == (c == goal_cls)


def test_4x4_shuffle_is_solvable_for_many_goals():
    rng = np.random.default_rng(4)
    for goal in ("blank-last", "blank-first", "snake", "spiral"):
        g = goal_board("4x4", goal)
        for row in shuffled(g, 200, rng).tolist():
            assert is_solvable(Board(g.shape, tuple(row)), g)


# --- distributions and the CLI ---------------------------------------------------------------


def test_reference_counts_4x4():
    ref = reference_counts(Shape(4, 4))
    assert ref.total == math.factorial(16) // 2
    assert ref.max_distance == 80 and ref.counts[80] == 17
    assert ref.mean == pytest.approx(52.589472, abs=1e-6)
    assert (
        reference_counts(Shape(4, 4), goal_board("4x4", "blank-first")).total == ref.total
    )  # corner blank
    assert (
        reference_counts(Shape(4, 4), goal_board("4x4", "spiral")) is None
    )  # blank in the middle: unknown


def run_ok(run_cli, args, **kw):
    r = run_cli(args, **kw)
    assert r.exit_code == 0, (r.output, r.exception)
    return r


def test_cli_generate_lines_and_json(run_cli, exact_dir):
    r = run_ok(
        run_cli,
        [
            "generate",
            "--shape",
            "3x3",
            "--count",
            "4",
            "--distance",
            "20",
            "--seed",
            "7",
            "--goal",
            "snake",
            "--data-dir",
            exact_dir,
        ],
    )
    g = goal_board("3x3", "snake")
    lines = r.stdout.splitlines()
    assert len(lines) == 4
    for line in lines:
        board, d = line.split("\t")
        assert int(d) == 20 == table_distance(Board.parse(board), g, exact_dir)
    j = run_ok(
        run_cli,
        [
            "generate",
            "--count",
            "4",
            "--distance",
            "20",
            "--seed",
            "7",
            "--goal",
            "snake",
            "--data-dir",
            exact_dir,
            "--json",
        ],
    )
    recs = [json.loads(x) for x in j.stdout.splitlines()]
    assert [r["rows"] for r in recs] == [x.split("\t")[0] for x in lines]
    assert all(r["distance"] == 20 and r["goal"] == g.flat() for r in recs)


def test_cli_generate_seed_repeats(run_cli, exact_dir):
    args = [
        "generate",
        "--shape",
        "2x3",
        "--count",
        "5",
        "--method",
        "walk",
        "--seed",
        "11",
        "--data-dir",
        exact_dir,
    ]
    assert run_ok(run_cli, args).stdout == run_ok(run_cli, args).stdout


@pytest.mark.parametrize(
    "args,text",
    [
        (["--distance", "32"], "maximum is 31"),
        (["--distance", "3", "--min", "1"], "not both"),
        (["--goal", "1 2/3 0"], "2x2"),
        (["--method", "teleport"], None),
        (["--seed", "-1"], "seed cannot be negative"),
    ],
)
def test_cli_generate_errors(run_cli, exact_dir, args, text):
    r = run_cli(["generate", "--shape", "3x3", "--data-dir", exact_dir, *args])
    if text is None:
        assert r.exit_code == 2
        return
    assert_one_line_error(r, 2)
    assert text in r.stderr


def test_cli_stats_3x3_sums_to_181440(run_cli, exact_dir):
    r = run_ok(run_cli, ["stats", "--shape", "3x3", "--data-dir", exact_dir, "--json"])
    rec = json.loads(r.stdout)
    assert sum(rec["counts"]) == rec["total"] == 181_440 == math.factorial(9) // 2
    assert rec["max_distance"] == 31 and rec["counts"][31] == 2
    text = run_ok(run_cli, ["stats", "--shape", "3x3", "--data-dir", exact_dir]).stdout
    rows = [line.split() for line in text.splitlines()[2:34]]
    assert [int(r[0]) for r in rows] == list(range(32))
    assert sum(int(r[1].replace(",", "")) for r in rows) == 181_440
    assert "181,440" in text and "#" in text


def test_cli_stats_other_goal_and_4x4(run_cli, exact_dir):
    r = run_ok(run_cli, ["stats", "--goal", "1 2 3/4 0 5/6 7 8", "--data-dir", exact_dir, "--json"])
    assert json.loads(r.stdout)["total"] == 181_440
    four = json.loads(run_ok(run_cli, ["stats", "--shape", "4x4", "--json"]).stdout)
    assert four["total"] == 10_461_394_944_000 and four["mean"] == pytest.approx(52.589472)
    r = run_cli(["stats", "--shape", "4x4", "--goal", "spiral"])
    assert_one_line_error(r, 2)


def test_cli_stats_plot_without_matplotlib(run_cli, exact_dir, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    out = tmp_path / "h.png"
    r = run_cli(["stats", "--data-dir", exact_dir, "--plot", out])
    assert_one_line_error(r, 2)
    assert "pip install 'npuzzle[plot]'" in r.stderr
    assert not out.exists()


def test_cli_stats_plot_png(run_cli, exact_dir, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "h.png"
    run_ok(run_cli, ["stats", "--data-dir", exact_dir, "--plot", out])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reproduce_article_script_in_3x3_mode(exact_dir, tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "reproduce_article.py"
    spec = importlib.util.spec_from_file_location("reproduce_article", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    code = mod.main(
        [
            "--shape",
            "3x3",
            "--samples",
            "40",
            "--walk-samples",
            "8",
            "--steps",
            "0,4,60",
            "--jobs",
            "1",
            "--data-dir",
            str(exact_dir),
            "--plot",
            str(tmp_path / "w.png"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "exact    21.972399" in out and "95% CI" in out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line[:6].strip()}
    assert lines["0"][1] == "0.00" and lines["4"][1] == "4.00"  # short walks: exactly n away


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"distance": 81}, "maximum is 80"),
        ({"distance": 70}, "nearer the mean"),
        ({"distance": 70, "method": "walk"}, "nearer the mean"),
        ({"min_distance": 66}, "nearer the mean"),
    ],
)
def test_4x4_requests_refused_before_any_search(kwargs, message):
    # Decided from the published 4x4 counts alone: no database or solve is needed.
    with pytest.raises(GenerateError, match=message):
        generate("4x4", 1, **kwargs)


@pytest.mark.slow
def test_4x4_generation_by_distance(tmp_path_factory):
    from pdb_builder.build import build_partition
    from solver import api

    d = tmp_path_factory.mktemp("apdb")
    build_partition(Shape(4, 4), "6-6-3", data_dir=d, progress=False)
    for goal, kwargs in [
        ("blank-last", {"distance": 20, "method": "walk"}),
        ("blank-first", {"distance": 30}),  # rare: switches to walks
        ("snake", {"min_distance": 48, "max_distance": 50}),
    ]:
        g = goal_board("4x4", goal)
        rows = generate("4x4", 3, goal=g, seed=1, data_dir=d, **kwargs)
        assert rows == generate("4x4", 3, goal=g, seed=1, data_dir=d, **kwargs)
        for board, dist in rows:
            assert is_solvable(board, g)
            sol = api.solve(board, g, data_dir=d)  # replayed onto the start by solve()
            assert sol.length == dist
            lo = kwargs.get("distance", kwargs.get("min_distance"))
            hi = kwargs.get("distance", kwargs.get("max_distance"))
            assert lo <= dist <= hi


def test_the_record_names_the_method_that_made_the_position(run_cli, pdb_dir, exact_dir):
    """A 4x4 level too rare for shuffles is searched by random walks: the JSON says "walk",
    as the note on stderr does, not the "shuffle" asked for (by default)."""
    args = ["generate", "--shape", "4x4", "--distance", "24", "--count", "2", "--seed", "1"]
    r = run_ok(run_cli, [*args, "--json", "--data-dir", pdb_dir])
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(rec["distance"], rec["method"]) for rec in records] == [(24, "walk"), (24, "walk")]
    assert "searching random walks instead" in r.stderr
    # Where nothing was replaced, the record keeps the method asked for.
    for method in ("shuffle", "walk"):
        args = ["generate", "--count", "3", "--method", method, "--json", "--data-dir", exact_dir]
        r = run_ok(run_cli, args)
        assert {json.loads(line)["method"] for line in r.stdout.splitlines()} == {method}


def test_cli_methods_match_the_generator():
    from solver.cli import generate as cli_generate
    from solver.workloads.generate import METHODS

    method = next(p for p in cli_generate.generate.params if p.name == "method")
    assert tuple(method.type.choices) == METHODS
