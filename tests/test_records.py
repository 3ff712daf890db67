"""One record shape per outcome on every route: the CLI's ``--json``, a batch's JSON lines, the
Python API's ``*_record`` functions and the service (in-process and a real server) give the
same keys for the same outcome -- solved, unsolvable, bad input, limit reached -- and each
record is valid for the service's response model of that outcome."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs the [serve] extra")
pytest.importorskip("httpx", reason="FastAPI's test client needs httpx")

from fastapi.testclient import TestClient  # noqa: E402
from serving import call  # noqa: E402

from solver import answers  # noqa: E402
from solver.api import SearchOptions  # noqa: E402
from solver.service import responses  # noqa: E402
from solver.service.app import create_app  # noqa: E402
from solver.service.limits import Settings  # noqa: E402

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf's first board: a blank-first board
NEAR = "1 2 3 4/5 6 7 8/9 10 11 12/13 0 14 15"  # two moves from blank-last
MAX_NODES = 1000  # far below what KORF_1 needs, far above what NEAR needs

# outcome -> (board, goal, the status its record says)
OUTCOMES = {
    "solved": (NEAR, None, "solved"),
    "unsolvable": (KORF_1, None, "unsolvable"),  # blank-last: the wrong goal for this set
    "bad-input": ("hello", None, "bad-input"),
    "limit": (KORF_1, "blank-first", "limit"),
}
QUESTIONS = {
    "solve": answers.solve_record,
    "distance": answers.distance_record,
    "hint": answers.hint_record,
}
ROUTE_ONLY = {"line"}  # what a batch adds to a record


def _model(question: str, outcome: str):
    """The response model a record of ``outcome`` must fit."""
    answered, *others = responses.OUTCOMES[question]
    if outcome == "solved":
        return answered
    return {m.model_fields["status"].annotation.__args__[0]: m for m in others}[
        "bad-input" if outcome == "bad-input" else outcome
    ]


def _valid(question: str, outcome: str, rec: dict) -> frozenset:
    """The record's keys, once it is found valid for its outcome's model."""
    rec = {k: v for k, v in rec.items() if k not in ROUTE_ONLY}
    _model(question, outcome).model_validate(rec)  # no key missing, none extra
    assert rec["status"] == OUTCOMES[outcome][2], rec
    return frozenset(rec)


def _cli_args(question, board, goal, data_dir):
    args = [question, board, "--json", "--data-dir", data_dir, "--max-nodes", MAX_NODES]
    return args + (["--goal", goal] if goal else [])


def _by_cli(run_cli, question, data_dir) -> dict:
    out = {}
    for outcome, (board, goal, _) in OUTCOMES.items():
        r = run_cli(_cli_args(question, board, goal, data_dir))
        out[outcome] = json.loads(r.stdout.splitlines()[0])
    return out


def _by_batch(run_cli, question, data_dir) -> dict:
    lines = [
        json.dumps({"board": b, **({"goal": g} if g else {})}) for b, g, _ in OUTCOMES.values()
    ]
    args = [question, "-", "--json", "--data-dir", data_dir, "--max-nodes", MAX_NODES]
    r = run_cli(args, input="\n".join(lines) + "\n")
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["line"] for rec in recs] == [1, 2, 3, 4], r.stdout
    return dict(zip(OUTCOMES, recs))


def _by_api(question, data_dir) -> dict:
    opts = SearchOptions(data_dir=str(data_dir), max_nodes=MAX_NODES)
    return {
        outcome: answers.answer_record(QUESTIONS[question], board, goal, options=opts)
        for outcome, (board, goal, _) in OUTCOMES.items()
    }


def _by_service(post, question) -> dict:
    out = {}
    for outcome, (board, goal, _) in OUTCOMES.items():
        status, body = post(f"/{question}", {"board": board, "goal": goal, "max_nodes": MAX_NODES})
        assert status == (400 if outcome == "bad-input" else 200), body
        out[outcome] = body
    return out


@pytest.fixture(scope="module")
def client(service_dir, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("NPUZZLE_CACHE", str(tmp_path_factory.mktemp("cache")))
    with TestClient(create_app(Settings(data_dir=str(service_dir), workers=1))) as c:
        yield c
    mp.undo()


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_every_route_gives_each_outcome_one_shape(question, run_cli, client, service_dir):
    def post(path, body):
        r = client.post(path, json=body)
        return r.status_code, r.json()

    routes = {
        "cli": _by_cli(run_cli, question, service_dir),
        "batch": _by_batch(run_cli, question, service_dir),
        "api": _by_api(question, service_dir),
        "service": _by_service(post, question),
    }
    for outcome in OUTCOMES:
        keys = {route: _valid(question, outcome, recs[outcome]) for route, recs in routes.items()}
        assert len(set(keys.values())) == 1, (outcome, keys)


def test_a_real_server_answers_in_the_same_shapes(live_server, service_dir):
    """Through a real server on loopback: each outcome of ``/solve`` as its model says, with the
    keys of the Python API's record."""
    api_records = _by_api("solve", service_dir)
    served = _by_service(lambda path, body: call(live_server.url + path, body), "solve")
    for outcome in OUTCOMES:
        assert _valid("solve", outcome, served[outcome]) == frozenset(api_records[outcome])


def test_the_unsolvable_record_names_the_goal_that_solves_it(service_dir):
    rec = answers.answer_record(answers.solve_record, KORF_1)
    assert rec["solvable_for"] == "blank-first" and rec["board"] == KORF_1
    assert answers.answer_record(answers.solve_record, "1 2 3/4 5 6/8 7 0")["solvable_for"] is None


def test_error_texts_carry_no_prefix_in_records_and_one_in_text(run_cli, service_dir, client):
    """The record's error is the bare message, the same from the CLI and the service; a line
    of text has one prefix."""
    r = run_cli(["solve", "-", "--json"], input="hello\n")
    assert json.loads(r.stdout)["error"].startswith("'hello' is not a tile number")
    assert run_cli(["solve", "-"], input="hello\n").stdout.startswith("error: 'hello'")
    board, goal, _ = OUTCOMES["limit"]
    # One thread, as a service worker searches: the bound a cap leaves depends on the threads.
    cli = json.loads(run_cli([*_cli_args("solve", board, goal, service_dir), "-j", "1"]).stdout)
    body = client.post("/solve", json={"board": board, "goal": goal, "max_nodes": MAX_NODES}).json()
    assert cli["error"] == body["error"] and body["error"].startswith("node limit of 1,000")
    text = run_cli(
        _cli_args("solve", board, goal, service_dir)[:2]
        + ["--goal", goal, "--max-nodes", MAX_NODES, "--data-dir", service_dir]
    )
    last = text.stderr.strip().splitlines()[-1]  # after the note on what would be faster
    assert last.startswith("npuzzle: limit: node limit of 1,000"), text.stderr


def test_text_says_what_the_json_says(run_cli, service_dir):
    fast = run_cli(["solve", "8 6 7/2 5 4/3 0 1", "-a", "fast"]).stdout
    assert fast.startswith("39 moves, not proven optimal (fast): "), fast
    exact = run_cli(["solve", "8 6 7/2 5 4/3 0 1", "--data-dir", service_dir]).stdout
    assert exact.startswith("31 moves: "), exact
    r = run_cli(["solve", KORF_1])
    assert r.exit_code == 1 and r.stderr.strip().endswith("; solvable for --goal blank-first")
    batch = run_cli(["solve", "-"], input=f"{KORF_1}\n1 2 3/4 5 6/8 7 0\n").stdout.splitlines()
    assert batch == ["unsolvable (solvable for --goal blank-first)", "unsolvable"]
    check = run_cli(["check", KORF_1]).stdout.splitlines()[0]
    assert check == "unsolvable (solvable for --goal blank-first)"
