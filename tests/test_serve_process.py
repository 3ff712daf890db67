"""`npuzzle serve` as a user runs it: a real process on a free loopback port, called over HTTP;
a long search in one request does not hold up lookups in others; Ctrl-C ends it cleanly; and
without the [serve] extra the command says in one line how to install it."""

from __future__ import annotations

import sys
import threading
import time

from conftest import assert_one_line_error
from serving import call

from solver.core.board import goal_board, parse_board

FAR_3X3 = "8 6 7/2 5 4/3 0 1"


def test_the_real_server_answers(live_server):
    url = live_server.url
    status, rec = call(url + "/distance", {"board": FAR_3X3})
    assert status == 200 and rec["distance"] == 31
    status, rec = call(url + "/solve", {"board": "1 2 3 4/5 6 7 8/9 10 0 11/13 14 15 12"})
    assert status == 200 and rec["moves"] == "RD" and rec["algorithm"] == "idastar"
    status, rec = call(url + "/check", {"board": "1 2 3/4 5 6/8 7 0"})
    assert status == 200 and rec["solvable"] is False
    status, body = call(url + "/distance", {"board": "1 2"})
    assert status == 400 and "error" in body
    status, health = call(url + "/health")
    assert status == 200 and health["workers"] == {"ready": 1, "of": 1, "running": 0, "waiting": 0}


def test_a_long_search_does_not_stall_lookups(live_server):
    """A teaching search (pure Python, seconds) runs in the worker while the server keeps
    answering table lookups."""
    url = live_server.url
    slow = {}

    def long_search():
        slow["answer"] = call(
            url + "/solve", {"board": FAR_3X3, "algorithm": "iddfs", "timeout": 3}, timeout=60
        )

    worker = threading.Thread(target=long_search)
    worker.start()
    time.sleep(0.3)  # the search is under way
    worst = 0.0
    while worker.is_alive() and worst < 5:
        t0 = time.perf_counter()
        status, rec = call(url + "/distance", {"board": FAR_3X3})
        worst = max(worst, time.perf_counter() - t0)
        assert status == 200 and rec["distance"] == 31
    worker.join()
    assert slow["answer"][0] == 200 and slow["answer"][1]["status"] == "limit"
    assert worst < 0.5, f"a lookup took {worst:.3f} s while a search ran"


def test_ctrl_c_stops_the_server_cleanly(service_dir, tmp_path):
    from serving import Server

    server = Server(service_dir, tmp_path / "cache")
    server.wait_ready()
    code, err = server.stop()
    assert code == 0 and "Traceback" not in err, err
    assert f"http://127.0.0.1:{server.port}/" in err


def test_without_the_extra_it_says_how_to_install(run_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` raises ImportError
    r = run_cli(["serve"])
    assert_one_line_error(r, 2)
    assert "pip install 'npuzzle[serve]'" in r.stderr


def test_a_busy_port_is_one_line(run_cli):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        r = run_cli(["serve", "--port", taken.getsockname()[1]])
    assert_one_line_error(r, 2)
    assert "cannot listen on 127.0.0.1" in r.stderr


def test_help_does_not_import_the_service():
    import subprocess

    code = (
        "import sys; from solver.cli import main\n"
        "try: main(['--help'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('fastapi', 'uvicorn', 'starlette') or m.startswith('solver.service')))"
    )
    out = (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    assert out == "[]"


def test_solutions_from_the_real_server_replay(live_server):
    status, body = call(live_server.url + "/generate", {"shape": "2x3", "count": 5, "seed": 3})
    assert status == 200
    for rec in body["results"]:
        status, sol = call(live_server.url + "/solve", {"board": rec["board"]})
        assert sol["length"] == rec["distance"]
        assert parse_board(rec["board"]).apply(sol["moves"]) == goal_board("2x3")
