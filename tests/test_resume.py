"""A stopped IDA* search goes on where it stopped: the token it leaves (``--resume TOKEN``),
what Ctrl-C reports of the search it stopped, and the tokens that are refused."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import assert_one_line_error

from solver import api
from solver.core import resume_token
from solver.core.board import BoardError, goal_board, parse_board
from solver.core.solution import SearchLimitReached
from solver.search import progress
from solver.service.responses import record_model

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves to blank-first
CAP = 200_000  # stops Korf #1 with 5-5-5 a few iterations short of its answer


def _stopped(pdb_dir) -> SearchLimitReached:
    with pytest.raises(SearchLimitReached) as caught:
        api.solve(KORF_1, "blank-first", data_dir=pdb_dir, max_nodes=CAP, jobs=1)
    return caught.value


def test_a_token_holds_for_its_board_goal_and_bound_only():
    start, goal = parse_board(KORF_1), goal_board("4x4", "blank-first")
    token = resume_token.issue(start, goal, 55)
    assert resume_token.proven_bound(token, start, goal) == 55
    bound, digest, check = token.split("-")
    refused = {
        f"57-{digest}-{check}": "altered or mistyped",  # a bound typed by hand
        f"{bound}-{digest}-{check[:-1]}{'1' if check[-1] == '0' else '0'}": "altered or mistyped",
        "55": "is not a resume token",
        "": "is not a resume token",
    }
    for text, why in refused.items():
        with pytest.raises(BoardError, match=why):
            resume_token.proven_bound(text, start, goal)
    for other_start, other_goal in [
        (start.move("U"), goal),
        (start, goal_board("4x4")),
    ]:
        with pytest.raises(BoardError, match="another board or goal"):
            resume_token.proven_bound(token, other_start, other_goal)


def test_a_stopped_search_resumes_at_its_bound_with_the_same_answer(pdb_dir):
    whole = api.solve(KORF_1, "blank-first", data_dir=pdb_dir, jobs=1)
    stopped = _stopped(pdb_dir).partial
    token = stopped.extra["resume"]
    assert stopped.lower_bound < whole.length and token.startswith(f"{stopped.lower_bound}-")
    heard = []
    resumed = api.solve(
        KORF_1, "blank-first", data_dir=pdb_dir, jobs=1, resume=token, progress=heard.append
    )
    assert resumed.length == whole.length == 57 and resumed.optimal
    assert resumed.start.apply(resumed.moves) == resumed.goal  # it replays to the goal
    done = [p.bound for p in heard if p.done]
    assert done[0] == stopped.lower_bound  # the first iteration is at the proven bound
    assert done == list(range(stopped.lower_bound, 58, 2))  # then by the parity's steps of 2
    assert resumed.nodes_generated < whole.nodes_generated


def test_each_bound_a_stopped_search_proves_is_below_the_optimal_length(pdb_dir):
    # However early it stops, the bound proven never passes the answer, and resuming there
    # finds the answer.
    for cap in (1, 1_000, 30_000, CAP):
        with pytest.raises(SearchLimitReached) as caught:
            api.solve(KORF_1, "blank-first", data_dir=pdb_dir, max_nodes=cap, jobs=1)
        partial = caught.value.partial
        assert partial.root_h <= partial.lower_bound <= 57
        assert partial.lower_bound % 2 == 57 % 2
        token = partial.extra["resume"]
        if cap == 1_000:
            again = api.solve(KORF_1, "blank-first", data_dir=pdb_dir, jobs=2, resume=token)
            assert again.length == 57


def test_the_command_line_names_the_command_that_goes_on(run_cli, pdb_dir):
    r = run_cli(
        ["solve", KORF_1, "--goal", "blank-first", "--data-dir", pdb_dir, "--max-nodes", CAP]
    )
    assert r.exit_code == 4
    line = r.stderr.strip().splitlines()[-1]
    message, _, command = line.partition("; go on with: ")
    assert "the optimal length is at least" in message
    words = shlex.split(command)
    assert words[:2] == ["npuzzle", "solve"] and words[-2] == "--resume"
    # The command as typed, with the token: without the cap it goes on to the answer.
    i = words.index("--max-nodes")
    del words[i : i + 2]
    r = run_cli(words[1:])
    assert r.exit_code == 0 and r.stdout.startswith("57 moves: "), r.output


def test_the_json_record_carries_the_token(run_cli, pdb_dir):
    args = ["solve", KORF_1, "--goal", "blank-first", "--data-dir", pdb_dir, "--json"]
    r = run_cli([*args, "--max-nodes", CAP])
    assert r.exit_code == 4
    record = json.loads(r.stdout)
    assert record["status"] == "limit"
    assert record["resume"].startswith(f"{record['lower_bound']}-")
    r = run_cli([*args, "--resume", record["resume"]])
    assert r.exit_code == 0 and json.loads(r.stdout)["length"] == 57


@pytest.mark.parametrize(
    "board, goal, token",
    [
        (KORF_1, "blank-first", "57-00000000-00000000"),  # forged
        ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "blank-last", None),  # another board
        (KORF_1, "blank-first", "junk"),
    ],
)
def test_refused_tokens_are_one_line_and_exit_2(run_cli, pdb_dir, board, goal, token):
    if token is None:  # a true token, of Korf #1
        token = resume_token.issue(parse_board(KORF_1), goal_board("4x4", "blank-first"), 55)
    r = run_cli(["solve", board, "--goal", goal, "--data-dir", pdb_dir, "--resume", token])
    assert_one_line_error(r, 2)
    assert "resume token" in r.stderr


def test_resume_is_for_one_optimal_ida_search(run_cli, pdb_dir):
    token = resume_token.issue(parse_board(KORF_1), goal_board("4x4", "blank-first"), 55)
    for extra in (["-w", "1.5"], ["-a", "astar"]):
        r = run_cli(["solve", KORF_1, "--goal", "blank-first", "--resume", token, *extra])
        assert_one_line_error(r, 2)
    r = run_cli(["solve", "-", "--resume", token], input=KORF_1 + "\n")
    assert_one_line_error(r, 2)
    # A weighted search that stops leaves no token: it proves no bound worth going on from.
    with pytest.raises(SearchLimitReached) as caught:
        api.solve(KORF_1, "blank-first", data_dir=pdb_dir, max_nodes=50, weight=1.2)
    assert "resume" not in caught.value.partial.extra


def test_ctrl_c_reports_the_bound_proven_and_the_command(run_cli, pdb_dir, monkeypatch):
    """Ctrl-C lands as the third iteration ends (its bound is then proven): the line says so,
    with the command that goes on, and --json prints the record first; exit 130."""
    ended = []

    def interrupt(self, p):
        if p.done and p.iteration == 3:
            ended.append(p.bound)
            raise KeyboardInterrupt

    monkeypatch.setattr(progress.IterationLog, "__call__", interrupt)
    args = ["solve", KORF_1, "--goal", "blank-first", "--data-dir", pdb_dir, "-v", "-j", "1"]
    r = run_cli([*args, "--json"])
    assert r.exit_code == 130, r.output
    (bound,) = ended
    record = json.loads(r.stdout)
    assert record["status"] == "interrupted" and record["lower_bound"] == bound
    record_model(record).model_validate(record)  # the service's model of a stopped search
    assert record["error"].startswith("interrupted after ")
    assert record["error"].endswith(f"s: the optimal length is at least {bound}")
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("npuzzle: interrupted after ") and "Traceback" not in r.stderr
    assert f"the optimal length is at least {bound}; go on with: npuzzle solve" in line
    assert line.endswith(f"--resume {record['resume']}")
    monkeypatch.undo()
    r = run_cli(["solve", KORF_1, "--goal", "blank-first", "--data-dir", pdb_dir])
    r2 = run_cli(["solve", KORF_1, "--goal", "blank-first", "--data-dir", pdb_dir, "--resume",
                  record["resume"]])  # fmt: skip
    assert r.stdout == r2.stdout and r2.stdout.startswith("57 moves: ")
