"""The HTTP service through FastAPI's test client: every endpoint's answers checked against the
exact tables (solutions replayed, lengths optimal), every error a client can cause answered in
one JSON line with DESIGN §7's status, never a 500 -- hypothesis throws malformed bodies."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs the [serve] extra")
pytest.importorskip("httpx", reason="FastAPI's test client needs httpx")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from naive_bfs import distances_from  # noqa: E402

from solver.core.board import (  # noqa: E402
    Board,
    BoardError,  # noqa: E402
    goal_board,
    is_solvable,
    parse_board,
)
from solver.service import responses  # noqa: E402
from solver.service.app import create_app  # noqa: E402
from solver.service.limits import Settings  # noqa: E402

GOAL_3X3 = goal_board("3x3")
FAR_3X3 = "8 6 7/2 5 4/3 0 1"  # 31 moves, the most an 8-puzzle needs
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves to blank-first
HARD_80 = "15 11 8 12 14 10 9 13 2 6 1 4 3 7 5 0"  # 80 moves to blank-first: minutes by Manhattan
EASY_4X4 = "1 2 3 4/5 6 7 8/9 10 0 11/13 14 15 12"  # RD: 2 moves (blank-last)
JSON_BODY = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def exact_3x3():
    """Every solvable 3x3 position -> its distance to blank-last, by a plain BFS."""
    return distances_from(GOAL_3X3.tiles, 3, 3)


def _client(data_dir, tmp_path_factory, **caps):
    mp = pytest.MonkeyPatch()
    mp.setenv("NPUZZLE_CACHE", str(tmp_path_factory.mktemp("cache")))  # inherited by workers
    app = create_app(Settings(data_dir=str(data_dir), workers=1).with_limits(**caps))
    return mp, TestClient(app)


@pytest.fixture(scope="module")
def client(service_dir, tmp_path_factory):
    mp, c = _client(service_dir, tmp_path_factory)
    with c:
        yield c
    mp.undo()


def post(client, path, body):
    r = (
        client.post(path, json=body)
        if not isinstance(body, (bytes, str))
        else client.post(path, content=body, headers=JSON_BODY)
    )
    return r.status_code, r.json()


def assert_error(status, body, code, fragment=""):
    assert status == code, body
    # a board that cannot be read is named by its record; a request that fails as a whole is
    # one error line (and the command that fixes it)
    (responses.ErrorRecord if "input" in body else responses.ErrorBody).model_validate(body)
    assert "\n" not in body["error"] and fragment in body["error"], body


# --- answers -----------------------------------------------------------------------------------


def test_distance_is_the_exact_table(client, exact_3x3):
    for tiles in list(exact_3x3)[::9000]:
        status, rec = post(client, "/distance", {"board": " ".join(map(str, tiles))})
        assert status == 200 and rec["distance"] == exact_3x3[tiles], rec
        assert rec["solvable"] is True and rec["shape"] == "3x3"


def test_solve_replays_to_the_goal_with_the_optimal_length(client, exact_3x3):
    status, rec = post(client, "/solve", {"board": FAR_3X3})
    assert status == 200 and rec["status"] == "solved" and rec["optimal"] is True
    start = parse_board(FAR_3X3)
    assert start.apply(rec["moves"]) == GOAL_3X3
    assert rec["length"] == exact_3x3[start.tiles] == 31
    assert rec["tiles"] == start.tiles_moved(rec["moves"])


def test_board_as_rows_and_goal_preset(client):
    rows = [[3, 6, 4], [2, 5, 8], [0, 1, 7]]
    status, rec = post(client, "/solve", {"board": rows, "goal": "blank-first"})
    assert status == 200 and rec["length"] == 24  # the course example
    assert Board.parse(json.dumps(rows)).apply(rec["moves"]) == goal_board("3x3", "blank-first")


def test_search_runs_in_a_worker_and_is_optimal(client, exact_3x3):
    """IDA* with a named heuristic goes to the worker process; its length is the table's."""
    status, rec = post(
        client, "/solve", {"board": FAR_3X3, "algorithm": "idastar", "heuristic": "linear-conflict"}
    )
    assert status == 200 and rec["algorithm"] == "idastar" and rec["length"] == 31
    assert parse_board(FAR_3X3).apply(rec["moves"]) == GOAL_3X3


def test_4x4_solve_with_the_pattern_database(client):
    status, rec = post(client, "/solve", {"board": EASY_4X4})
    assert status == 200 and rec["length"] == 2 and rec["database"] == "apdb-4x4-5-5-5.h5"
    assert parse_board(EASY_4X4).apply(rec["moves"]) == goal_board("4x4")
    status, rec = post(client, "/distance", {"board": EASY_4X4})
    assert status == 200 and rec["distance"] == 2


def test_teaching_search_by_name(client):
    status, rec = post(client, "/solve", {"board": "1 2 3/4 5 6/0 7 8", "algorithm": "bfs"})
    assert status == 200 and rec["algorithm"] == "bfs" and rec["moves"] == "RR"
    assert rec["cycle_check"] == "visited" and rec["nodes_generated"] > 0


def test_hint_is_the_first_step_of_an_optimal_path(client, exact_3x3):
    status, rec = post(client, "/hint", {"board": FAR_3X3})
    assert status == 200 and rec["distance"] == 31 and rec["distance_after"] == 30
    start = parse_board(FAR_3X3)
    after = start.move(rec["move"])
    assert after.flat() == rec["board_after"] and exact_3x3[after.tiles] == 30
    assert start.tiles[after.blank] == rec["tile"]


def test_hint_at_the_goal(client):
    status, rec = post(client, "/hint", {"board": GOAL_3X3.flat()})
    assert status == 200 and rec["move"] is None and rec["distance"] == 0


def test_heuristic_is_the_best_estimate_built(client, exact_3x3):
    """The exact table where one is built, the database when asked for."""
    status, rec = post(client, "/heuristic", {"board": FAR_3X3})
    assert status == 200 and rec["heuristic"] == "exact" and rec["h"] == 31
    status, rec = post(client, "/heuristic", {"board": FAR_3X3, "partition": "4-4"})
    assert status == 200 and rec["heuristic"] == "pdb" and rec["partition"] == "4-4"
    assert rec["manhattan"] <= rec["h"] <= exact_3x3[parse_board(FAR_3X3).tiles]
    status, rec = post(client, "/heuristic", {"board": "1 2 3 4 5/6 7 8 9 10/11 12 13 0 14"})
    assert status == 200 and rec["heuristic"] == "linear-conflict" and rec["h"] == 1
    assert "build-pdb --shape 3x5" in rec["notice"]


def test_check_and_unsolvable_are_answers(client):
    status, rec = post(client, "/check", {"board": "1 2 3/4 5 6/8 7 0"})
    assert status == 200 and rec["solvable"] is False and "odd" in rec["reason"]
    for path in ("/distance", "/solve", "/hint"):
        status, rec = post(client, path, {"board": "1 2 3/4 5 6/8 7 0"})
        assert status == 200 and rec["solvable"] is False, (path, rec)
        assert rec["reason"].startswith("unsolvable")


def test_several_boards_answer_in_order_each_on_its_own(client, exact_3x3):
    boards = [FAR_3X3, "1 2 3/4 5 6/8 7 0", "1 2 3/4 5 5/7 8 0", GOAL_3X3.flat()]
    status, body = post(client, "/distance", {"boards": boards})
    assert status == 200
    first, unsolvable, bad, goal = body["results"]
    assert first["distance"] == 31 and unsolvable["solvable"] is False
    assert bad["input"] == boards[2] and "appears twice" in bad["error"]
    assert goal["distance"] == 0


def test_generate_by_exact_distance(client, exact_3x3):
    status, body = post(
        client, "/generate", {"shape": "3x3", "distance": 20, "count": 3, "seed": 5}
    )
    assert status == 200 and len(body["results"]) == 3
    for rec in body["results"]:
        assert exact_3x3[parse_board(rec["board"]).tiles] == rec["distance"] == 20
    again = post(client, "/generate", {"shape": "3x3", "distance": 20, "count": 3, "seed": 5})
    assert again[1] == body  # the same seed, the same positions


def test_generate_4x4_solves_in_a_worker(client):
    status, body = post(
        client, "/generate", {"shape": "4x4", "distance": 10, "count": 2, "seed": 1}
    )
    assert status == 200
    for rec in body["results"]:
        assert rec["distance"] == 10
        ok, check = post(client, "/distance", {"board": rec["board"]})
        assert check["distance"] == 10


FAR_5X5 = "2 3 4 5 10/1 7 8 9 0/6 11 12 13 14/16 17 18 19 15/21 22 23 24 20"


def test_the_search_enhancements_are_switched_over_http(client):
    """The pruning machine (fsm) and the second database (combine) as the CLI has
    them; the answer names the machine it used."""
    board = "5 1 2 3/4 6 10 7/8 9 0 11/12 13 14 15"
    runs = {}
    for depth in (2, 8):
        status, rec = post(client, "/solve", {"board": board, "fsm": depth, "combine": False})
        assert status == 200 and rec["optimal"] is True
        runs[depth] = rec
    assert runs[2]["pruning"] == "undo" and runs[8]["pruning"].startswith("fsm 8")
    assert runs[2]["length"] == runs[8]["length"]
    # The work units' order (section 9 of the research table) is switched the same way.
    assert runs[8]["unit_order"] == "promising first"
    status, rec = post(client, "/solve", {"board": board, "promising_first": False})
    assert status == 200 and rec["unit_order"] == "search order"
    assert rec["length"] == runs[8]["length"]
    # Deeper machines than the shipped ones would be made by a BFS of many gigabytes: refused.
    assert_error(*post(client, "/solve", {"board": board, "fsm": 15}), 400, "fsm")
    assert_error(*post(client, "/solve", {"board": board, "fsm": 1}), 400, "fsm")
    # Zero-aware twins: read where built; where none is, the answer is the same.
    for zero_aware in (True, False):
        status, rec = post(client, "/solve", {"board": board, "zero_aware": zero_aware})
        assert status == 200 and rec["length"] == runs[8]["length"]
    assert_error(*post(client, "/solve", {"board": board, "zero_aware": "maybe"}), 400)


def test_the_clis_fast_and_weight_over_http(client):
    """The options of ``npuzzle solve`` that make sense over HTTP."""
    status, rec = post(client, "/solve", {"board": FAR_5X5, "algorithm": "fast"})
    assert status == 200 and rec["algorithm"] == "fast" and rec["optimal"] is False
    assert parse_board(FAR_5X5).apply(rec["moves"]) == goal_board("5x5")
    status, rec = post(client, "/solve", {"board": EASY_4X4, "weight": 1.5})
    assert status == 200 and rec["length"] == 2 and rec["bound"] == 1.5
    assert rec["optimal"] is False
    for body, fragment in (
        ({"board": EASY_4X4, "weight": 0.5}, "weight"),
        ({"board": EASY_4X4, "fast": True}, "fast"),  # an unknown key: algorithm 'fast'
        ({"board": EASY_4X4, "weight": 2, "algorithm": "bfs"}, "weight"),
    ):
        assert_error(*post(client, "/solve", body), 400, fragment)


def test_the_command_lines_option_names_are_the_keys(client):
    """``solve --show``/``--tiles`` and ``generate --timeout`` are keys as named on the
    command line; answered as ``--json`` answers them, where the record already holds the
    moves and the tiles that slide."""
    plain = post(client, "/solve", {"board": FAR_3X3})
    for asked in ({"show": True}, {"tiles": True}, {"show": True, "tiles": False}):
        status, rec = post(client, "/solve", {"board": FAR_3X3, **asked})
        assert status == 200, rec
        assert {k: v for k, v in rec.items() if k != "seconds"} == {
            k: v for k, v in plain[1].items() if k != "seconds"
        }
    assert rec["moves"] and len(rec["tiles"]) == rec["length"] == 31
    status, body = post(
        client, "/generate", {"shape": "3x3", "distance": 20, "count": 2, "seed": 5, "timeout": 9}
    )
    assert status == 200 and [r["distance"] for r in body["results"]] == [20, 20]
    # The command line's own options have no meaning here: the 400 says why, and which keys
    # the endpoint takes.
    for path, key, value, why in (
        ("/solve", "jobs", 2, "--workers"),
        ("/solve", "verbose", True, "stderr"),
        ("/distance", "data_dir", "/", "its own databases"),
        ("/check", "json", True, "every answer is JSON"),
    ):
        status, body = post(client, path, {"board": FAR_3X3, key: value})
        assert_error(status, body, 400, why)
        assert f"{path} takes board, boards, goal, shape" in body["error"], body
    status, body = post(client, "/solve", {"board": FAR_3X3, "frobnicate": 1})
    assert_error(status, body, 400, "unknown field 'frobnicate'")
    assert "show" in body["error"] and "tiles" in body["error"]


def test_5x5_at_a_distance_by_random_walks(client):
    """No 5x5 database is built here, so each walk's end is solved with
    linear conflict -- still quick at distance 20."""
    status, body = post(client, "/generate", {"shape": "5x5", "distance": 20, "seed": 3})
    assert status == 200
    [rec] = body["results"]
    assert rec["shape"] == "5x5" and rec["distance"] == 20 and rec["method"] == "walk"
    status, check = post(client, "/distance", {"board": rec["board"]})
    assert status == 200 and check["distance"] == 20
    status, body = post(client, "/generate", {"shape": "5x5"})
    assert_error(status, body, 400, "ask for a 'distance'")


def test_5x5_too_far_for_the_time_cap_says_why(service_dir, tmp_path_factory):
    mp, c = _client(service_dir, tmp_path_factory, max_seconds=1)
    with c:
        status, body = post(c, "/generate", {"shape": "5x5", "distance": 90, "seed": 1})
        assert_error(status, body, 504, "no pattern database for 5x5")
        assert "smaller distance" in body["error"]
    mp.undo()


def test_favicon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")


def test_health_and_databases(client):
    r = client.get("/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"
    files = {d["file"] for d in client.get("/databases").json()["databases"]}
    assert files == {"exact-2x3.h5", "exact-3x3.h5", "apdb-3x3-4-4.h5", "apdb-4x4-5-5-5.h5"}


def test_page_and_static_files(client):
    r = client.get("/")
    assert r.status_code == 200 and "npuzzle" in r.text and "/static/app.js" in r.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in client.get("/").text.split("<body>")[0].replace("http-equiv", "")


def test_docs_work_offline(client):
    r = client.get("/docs")
    assert r.status_code == 200 and "cdn." not in r.text
    assert client.get("/openapi.json").json()["paths"]["/solve"]["post"]


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, body, code, fragment",
    [
        ("/distance", b"{bad", 400, "not valid JSON"),
        ("/distance", b"[1, 2]", 400, "JSON object"),
        ("/distance", b"", 400, "JSON object"),
        ("/distance", b'{"board":' + b"[" * 30_000 + b"]" * 30_000 + b"}", 400, "nested"),
        (
            "/distance",
            b'{"board": "1 2 3 4 5 6 7 8 0", "timeout": ' + b"9" * 5000 + b"}",
            400,
            "number too long",
        ),
        ("/distance", {"board": "1 2 3/4 5 6/7 7 0"}, 400, "tile 7 appears twice"),
        ("/distance", {"board": [[1, 2, 3], [4, 5, 6], [7, 8]]}, 400, "different lengths"),
        ("/distance", {"board": 5}, 400, "cannot tell the shape of 1 tiles: write rows"),
        ("/distance", {"board": "1 2 3 4 5 6 7"}, 400, "or give --shape ROWSxCOLS"),
        ("/distance", {"board": "[" * 20_000 + "]" * 20_000}, 400, "nested too deeply"),
        ("/distance", {"board": "9" * 5000}, 400, "out of range"),
        ("/distance", {}, 400, "give the board"),
        ("/distance", {"board": FAR_3X3, "boards": [FAR_3X3]}, 400, "not both"),
        ("/distance", {"board": FAR_3X3, "frobnicate": 1}, 400, "unknown field 'frobnicate'"),
        ("/solve", {"a\nb": None}, 400, "unknown field 'a\\nb'"),  # found by hypothesis
        ("/distance", {"board": FAR_3X3, "timeout": -1}, 400, "timeout"),
        ("/distance", {"board": FAR_3X3, "max_nodes": 0}, 400, "max_nodes"),
        ("/distance", {"board": FAR_3X3, "goal": "sideways"}, 400, "unknown goal"),
        ("/distance", {"board": FAR_3X3, "shape": "2x3"}, 400, "3x3"),
        ("/solve", {"board": FAR_3X3, "algorithm": "magic"}, 400, "algorithm"),
        ("/solve", {"board": FAR_3X3, "algorithm": "dls"}, 400, "depth"),
        ("/heuristic", {"board": FAR_3X3, "partition": "1,2/3"}, 400, ""),
        ("/heuristic", {"board": FAR_3X3, "partition": "4-4+4-4"}, 400, "one pattern database"),
        ("/solve", {"board": FAR_3X3, "algorithm": "astar", "partition": "4-4+4-4"}, 400, "IDA*"),
        ("/generate", {"shape": "3x3", "distance": 40}, 400, "maximum is 31"),
        ("/generate", {"shape": "3x3", "count": 101}, 400, "at most 100"),
        ("/generate", {"shape": "1x1"}, 400, "not supported"),
        ("/generate", {"seed": -1}, 400, "seed"),
        ("/hint", {"board": FAR_3X3, "algorithm": "dfs"}, 400, "optimal"),
    ],
)
def test_bad_requests_get_one_line(client, path, body, code, fragment):
    status, answer = post(client, path, body)
    assert_error(status, answer, code, fragment)


def test_a_batch_with_a_bad_board_still_searches_off_the_event_loop(service_dir):
    from solver.service import work

    settings = Settings(data_dir=str(service_dir))
    assert work.is_lookup("distance", {"boards": ["junk", FAR_3X3]}, settings)
    assert not work.is_lookup("distance", {"boards": ["junk", EASY_4X4]}, settings)
    assert not work.is_lookup("solve", {"board": FAR_3X3, "algorithm": "bfs"}, settings)
    assert work.is_lookup("generate", {"shape": "3x3"}, settings)
    assert not work.is_lookup("generate", {"shape": "4x4"}, settings)


def test_messages_are_the_clis(client):
    text = "1 2 3/4 x 6/7 8 9"
    with pytest.raises(BoardError) as e:
        parse_board(text)
    status, body = post(client, "/check", {"board": text})
    assert status == 400 and body["error"] == str(e.value)


def test_too_many_boards_and_too_large_a_body(client):
    status, body = post(client, "/check", {"boards": [FAR_3X3] * 101})
    assert_error(status, body, 400, "at most 100")
    status, body = post(client, "/check", {"board": "1 " * 40_000})
    assert_error(status, body, 413, "larger than")


def test_missing_database_is_503_naming_the_command(client):
    near_spiral = goal_board("4x4", "spiral").move("U").flat()  # blank inside: no symmetry helps
    status, body = post(client, "/solve", {"board": near_spiral, "goal": "spiral"})
    assert_error(status, body, 503, "build-pdb --shape 4x4")
    assert body["fix"].startswith("build-pdb --shape 4x4 --partition 6-6-3 --goal spiral")
    status, body = post(client, "/heuristic", {"board": "1 2 3/4 0 5", "partition": "3-2"})
    assert status == 503 and "build-pdb --shape 2x3" in body["fix"]


def test_unknown_paths_and_methods(client):
    r = client.get("/nope")
    assert r.status_code == 404 and r.json() == {"error": "not found: GET /nope"}
    assert client.get("/solve").status_code == 405
    assert client.get("/static/../solver/service/app.py").status_code == 404
    assert client.get("/static/").status_code == 404  # no directory listing


def test_a_capped_search_answers_with_the_lower_bound(client):
    status, rec = post(
        client, "/solve", {"board": KORF_1, "goal": "blank-first", "max_nodes": 1000}
    )
    assert status == 200 and rec["status"] == "limit" and rec["moves"] is None
    assert 40 <= rec["lower_bound"] <= 57 and "at least" in rec["error"]


def test_server_caps_win_over_the_clients(service_dir, tmp_path_factory):
    mp, c = _client(service_dir, tmp_path_factory, max_nodes=500, max_teaching_nodes=50)
    with c:
        status, rec = post(
            c,
            "/solve",
            {"board": KORF_1, "goal": "blank-first", "max_nodes": 10**12, "timeout": 10**6},
        )
        assert status == 200 and rec["status"] == "limit" and rec["nodes_generated"] <= 2000
        status, rec = post(c, "/solve", {"board": FAR_3X3, "algorithm": "bfs"})
        assert status == 200 and rec["status"] == "limit" and rec["nodes_generated"] <= 60
    mp.undo()


def test_the_time_cap_holds_for_a_whole_batch(service_dir, tmp_path_factory):
    mp, c = _client(service_dir, tmp_path_factory, max_seconds=1)
    with c:
        post(c, "/solve", {"board": EASY_4X4})  # the worker is up
        status, body = post(
            c, "/solve", {"boards": [HARD_80] * 4, "goal": "blank-first", "heuristic": "manhattan"}
        )
        assert status == 200 and [r["status"] for r in body["results"]] == ["limit"] * 4
        # The first board spends the batch's second; the others find it spent and stop at
        # once (not 4 x 1 s), however slow the machine.
        first, *rest = (r["nodes_generated"] for r in body["results"])
        assert all(n <= first // 10 for n in rest), (first, rest)
    mp.undo()


def test_a_worker_that_overruns_is_replaced(service_dir, tmp_path_factory):
    """The safety net: past the hard limit the worker is ended (503), and a fresh one answers
    the next request."""
    mp, c = _client(service_dir, tmp_path_factory, max_seconds=30, grace_seconds=-29.8)
    with c:
        status, body = post(c, "/solve", {"board": FAR_3X3, "algorithm": "iddfs"})
        assert_error(status, body, 503, "ended")
        status, rec = post(c, "/solve", {"board": EASY_4X4})  # waits for the new worker
        assert status == 200 and rec["length"] == 2
    mp.undo()


# --- malformed bodies: never a 500 -------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)
fields = st.sampled_from(
    [
        "board",
        "boards",
        "goal",
        "shape",
        "partition",
        "algorithm",
        "heuristic",
        "timeout",
        "max_nodes",
        "no_reflect",
        "depth_limit",
        "cycle_check",
        "count",
        "distance",
        "min",
        "max",
        "method",
        "length",
        "seed",
        "unique",
        "fast",
        "weight",
        "other",
    ]
)
bodies = st.one_of(
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(fields, json_values, max_size=4).map(lambda d: json.dumps(d).encode()),
    st.binary(max_size=200),
    st.permutations(range(9)).map(
        lambda p: json.dumps({"board": list(p), "algorithm": "auto"}).encode()
    ),
)
PATHS = ["/solve", "/distance", "/hint", "/heuristic", "/check", "/generate"]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(path=st.sampled_from(PATHS), body=bodies)
def test_malformed_bodies_never_get_a_500(client, path, body):
    r = client.post(path, content=body, headers=JSON_BODY)
    assert r.status_code in (200, 400, 413, 503, 504), (path, body, r.text)
    answer = r.json()
    assert isinstance(answer, dict)
    if r.status_code != 200:
        assert "\n" not in answer["error"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(perm=st.permutations(range(9)))
def test_any_3x3_board_gets_its_distance_or_unsolvable(client, exact_3x3, perm):
    status, rec = post(client, "/distance", {"board": list(perm)})
    assert status == 200
    start = Board.from_tiles(perm, "3x3")
    if is_solvable(start, GOAL_3X3):
        assert rec["distance"] == exact_3x3[start.tiles]
    else:
        assert rec["solvable"] is False
