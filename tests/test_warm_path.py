"""The warm path: ``--server URL`` / ``$NPUZZLE_SERVER`` against a real ``npuzzle serve`` on a
loopback port prints what the command prints on its own -- stdout (apart from the seconds a
JSON answer measures), stderr and the exit status -- for one board and for batches with bad
lines; with nothing listening it says so in one line and answers here; the server's caps
are named with how to raise them; and the client imports neither numpy nor h5py."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import imports_said

from solver.cli import errors
from solver.client import pieces
from solver.workloads import lines

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

HARD_3X3 = "8 6 7 2 5 4 3 0 1"
FOUR = "5 1 2 4 9 6 3 8 13 10 7 11 0 14 15 12"  # 4x4, a short IDA* search with 5-5-5
UNSOLVABLE = "1 2 3/4 5 6/8 7 0"
SECONDS = re.compile(rb'("[a-z_]*seconds":)[-0-9.e]+|(?<= )[0-9.]+( s)$', re.M)


def _run(run_cli, args, data_dir, server=None, input=None):
    """(exit status, stdout with the measured seconds blanked, stderr) of one command."""
    errors.forget_notices()  # each command says its notes once, as a process of its own would
    extra = ["--server", server] if server else []
    r = run_cli([*args, "--data-dir", data_dir, *extra], input=input)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, *_comparable(r.stdout_bytes, r.stderr_bytes)


def _comparable(stdout: bytes, stderr: bytes) -> tuple[bytes, str]:
    """stdout and stderr with what they measure left out: the seconds blanked, and -v's
    iteration lines (one is said only once it has run QUIET_SECONDS)."""
    err = SECONDS.sub(_blank, stderr).decode()
    err = "".join(l for l in err.splitlines(True) if not l.startswith("npuzzle: iteration "))
    return SECONDS.sub(_blank, stdout), err


def _blank(m: re.Match) -> bytes:
    return (m.group(1) or b"") + b"0" + (m.group(2) or b"")


def _same(run_cli, live_server, data_dir, args, input=None):
    here = _run(run_cli, args, data_dir, input=input)
    there = _run(run_cli, args, data_dir, live_server.url, input=input)
    assert there == here, args
    return here


BATCH = "\n".join(
    [
        HARD_3X3,
        "not a board",
        "",
        "# a comment",
        UNSOLVABLE,
        "1 2 3/4 0 5",
        '{"board": "1 2 3 4 5 6 7 0 8", "id": "x", "note": 7}',
        FOUR,
        "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15",
        "1 1 2 3 4 5 6 7 0",
        "\xff not utf-8".encode("latin-1").decode("latin-1"),
    ]
)


@pytest.mark.parametrize(
    "args",
    [
        ["solve", HARD_3X3],
        ["solve", HARD_3X3, "--tiles", "--json"],
        ["solve", FOUR, "-v"],
        ["solve", FOUR, "--json", "--goal", "blank-last"],
        ["solve", "3 6 4/2 5 8/0 1 7", "--goal", "blank-first", "--show"],
        ["solve", UNSOLVABLE],
        ["solve", "1 2 3/4 5"],
        ["distance", HARD_3X3, "--json"],
        ["distance", FOUR],
        ["distance", UNSOLVABLE, "--json"],
        ["hint", HARD_3X3],
        ["hint", FOUR, "--json"],
        ["heuristic", FOUR, "--json"],
        ["heuristic", HARD_3X3],
        ["check", UNSOLVABLE],
        ["check", FOUR, "--json", "--goal", "spiral"],
        ["generate", "--count", "5", "--seed", "3"],
        ["generate", "--shape", "4x4", "--count", "2", "--distance", "12", "--seed", "1", "--json"],
        ["generate", "--shape", "3x3", "--distance", "99"],
    ],
    ids=lambda a: " ".join(a)[:40],
)
def test_one_board_is_answered_as_here(run_cli, live_server, service_dir, args):
    _same(run_cli, live_server, service_dir, args)


# `npuzzle` as installed (solver.cli.launch), run with -X importtime: whether click, numpy,
# or h5py was imported shows (the quick client, solver.client.quick, answers one board
# without them).
LAUNCH = "import sys\nfrom solver.cli import launch\nsys.argv[0] = 'npuzzle'\nlaunch()\n"
HEAVY = {"click", "numpy", "h5py"}


def _launched(args, data_dir, server, env=None):
    """(exit status, stdout with the seconds blanked, stderr, whether click or numpy was
    imported) of ``npuzzle ARGS --data-dir DATA_DIR --server SERVER``, a process of its own."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", LAUNCH, *args, "--data-dir", str(data_dir)]
        + ["--server", server],
        capture_output=True,
        timeout=120,
        env=env,
    )
    stderr, imported = imports_said(r.stderr)
    return r.returncode, *_comparable(r.stdout, stderr), bool(imported & HEAVY)


@pytest.mark.parametrize(
    "args",
    [
        ["solve", HARD_3X3, "--json"],
        ["solve", "--goal", "blank-first", FOUR, "--max-nodes", "1000000"],
        ["solve", UNSOLVABLE],
        ["solve", "1 2 3/4 5"],
        ["solve", FOUR, "--no-such-option"],
        ["distance", FOUR],
        ["hint", HARD_3X3, "--json"],
        ["heuristic", FOUR],
        ["check", FOUR, "--goal", "spiral"],
        ["generate", "--count", "3", "--seed", "5", "--json"],
    ],
    ids=lambda a: " ".join(a)[:40],
)
def test_the_quick_client_answers_one_board_as_here_without_click(
    run_cli, live_server, service_dir, args
):
    here = _run(run_cli, args, service_dir)
    status, out, err, heavy = _launched(args, service_dir, live_server.url)
    assert (status, out, err) == here, args
    assert not heavy, "the quick client fell back to click"


def test_the_quick_client_leaves_batches_and_clusters_to_click(live_server, service_dir):
    """What needs this machine goes through click: a batch, a Dask scheduler."""
    import os

    env = {**os.environ, "DASK_SCHEDULER_ADDRESS": ""}
    assert _launched(["distance", HARD_3X3], service_dir, live_server.url, env)[3] is False
    env["DASK_SCHEDULER_ADDRESS"] = "tcp://127.0.0.1:1"
    status, out, err, heavy = _launched(["check", HARD_3X3], service_dir, live_server.url, env)
    assert heavy and status == 0
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", LAUNCH, "distance", "-"]
        + ["--data-dir", str(service_dir)],
        input=f"{HARD_3X3}\n".encode(),
        capture_output=True,
        timeout=120,
        env={**os.environ, "NPUZZLE_SERVER": live_server.url},
    )
    assert r.returncode == 0 and r.stdout.strip() == b"31"
    assert imports_said(r.stderr)[1] & HEAVY


def test_the_quick_client_with_nothing_listening_says_so_once_then_answers_here(
    run_cli, service_dir
):
    from serving import free_port

    url = f"http://127.0.0.1:{free_port()}"
    here = _run(run_cli, ["distance", HARD_3X3], service_dir)
    status, out, err, _ = _launched(["distance", HARD_3X3], service_dir, url)
    assert (status, out) == here[:2]
    assert err == f"npuzzle: note: no server at {url} (connection refused); answering here\n"


@pytest.mark.parametrize("command", ["solve", "distance", "hint", "heuristic", "check"])
@pytest.mark.parametrize("as_json", [False, True])
def test_a_batch_with_bad_lines_is_answered_as_here(
    run_cli, live_server, service_dir, command, as_json
):
    args = [command, "-"] + (["--json"] if as_json else [])
    status, out, err = _same(run_cli, live_server, service_dir, args, input=BATCH.encode("latin-1"))
    # Text: a line for each line; JSON: a record for each line that asks something.
    asking = [l for l in BATCH.split("\n") if l.strip() and not l.startswith("#")]
    assert out.count(b"\n") == len(asking if as_json else BATCH.split("\n")) and status != 0
    if as_json:
        assert [json.loads(l)["line"] for l in out.splitlines()] == [
            i + 1 for i, l in enumerate(BATCH.split("\n")) if l in asking
        ]


# One board (or for generate, a small request) per forwarded command, for the flags' tests.
FLAG_QUESTIONS = {
    "solve": ["solve", FOUR],
    "distance": ["distance", FOUR],
    "hint": ["hint", FOUR],
    "heuristic": ["heuristic", FOUR],
    "check": ["check", FOUR],
    "generate": ["generate", "--count", "3", "--seed", "5"],
}


def _flag_words() -> list[tuple[str, str]]:
    """``(command, words)`` for every on/off flag of every forwarded command: each spelling
    of it on, each spelling of it off, and the flag left out.  Read from the commands
    themselves, so a flag added later is tested too."""
    import click

    from solver.cli import main

    out = []
    for name in FLAG_QUESTIONS:
        for p in main.get_command(None, name).params:
            if isinstance(p, click.Option) and p.is_flag and p.name not in ("help", "help_all"):
                out += [(name, word) for word in [*p.opts, *p.secondary_opts, ""]]
    return sorted(set(out))


@pytest.mark.parametrize("command,word", _flag_words(), ids=lambda x: x or "(none)")
def test_every_flag_on_and_off_is_answered_as_here(
    run_cli, live_server, service_dir, command, word
):
    """The server reads the very words typed: a flag left off stays off, one set stays set,
    whatever click's version makes of a flag's default."""
    args = [*FLAG_QUESTIONS[command], *([word] if word else [])]
    _same(run_cli, live_server, service_dir, args)


BATCHES = ("solve", "distance", "hint", "heuristic", "check")  # the commands that take `-`


@pytest.mark.parametrize(
    "command,word", [cw for cw in _flag_words() if cw[0] in BATCHES], ids=lambda x: x or "(none)"
)
def test_a_batchs_flags_on_and_off_are_answered_as_here(
    run_cli, live_server, service_dir, command, word
):
    args = [command, "-", *([word] if word else [])]
    _same(run_cli, live_server, service_dir, args, input=BATCH.encode("latin-1"))


def test_help_is_never_asked_of_a_server():
    """``--help`` and ``--help-all`` are answered here, before any server is asked."""
    from solver.client import quick

    for word in ("-h", "--help", "--help-all", "-vh"):
        assert quick._forwardable(["solve", FOUR, word, "--server", "http://127.0.0.1:1"]) is None
    assert quick._forwardable(["solve", FOUR, "--server", "http://127.0.0.1:1"]) is not None


def test_the_server_refuses_words_that_name_a_server_or_a_cluster(live_server):
    from solver.client import wire

    for words in (["--scheduler", "tcp://127.0.0.1:1", FOUR], ["--server=http://x:1", FOUR]):
        with pytest.raises(wire.Unreachable, match="options the server does not take"):
            wire.Channel(live_server.url).ask({"command": "solve", "argv": words})


def test_a_long_batch_with_a_header_goes_in_pieces(run_cli, live_server, service_dir):
    """A CSV header in the first piece names the columns of every later one; the answers
    keep the input order however many pieces are under way."""
    rows = ["id,board,goal"] + [
        f"b{i},{HARD_3X3 if i % 7 else 'junk'},blank-first" for i in range(300)
    ]
    data = ("\n".join(rows) + "\n").encode()
    status, out, _ = _same(
        run_cli, live_server, service_dir, ["distance", "-", "--json"], input=data
    )
    answers = [json.loads(line) for line in out.splitlines()]  # JSON lines: no blank one
    assert [a["id"] for a in answers] == [f"b{i}" for i in range(300)] and status == 2


def test_pieces_keep_the_line_numbers_and_the_head():
    data = b"\n# x\nid,board\n" + b"".join(b"a,1 2 3 4 0 5\n" for _ in range(50))
    chunk = next(lines.chunks(__import__("io").BytesIO(data)))
    cut = list(pieces.cut([chunk], 100, lambda: 7))
    assert [p.chunk.first for p in cut] == [1, 8, 15, 22, 29, 36, 43, 50]
    assert all(p.head == (b"id,board", 3) for p in cut)
    assert b"".join(p.chunk.data for p in cut) == data
    again = pieces.Piece.from_json(cut[2].as_json(), cut[2].chunk.data)
    assert (again.chunk, again.head) == (cut[2].chunk, cut[2].head)


def test_nothing_listening_is_one_line_then_the_answer_here(run_cli, service_dir):
    from serving import free_port

    url = f"http://127.0.0.1:{free_port()}"
    for args, input in ((["distance", HARD_3X3], None), (["distance", "-"], BATCH.encode())):
        here = _run(run_cli, args, service_dir, input=input)
        status, out, err = _run(run_cli, args, service_dir, url, input=input)
        assert (status, out) == here[:2]
        note, *rest = err.splitlines()
        assert note.startswith(f"npuzzle: note: no server at {url} (connection refused)")
        assert note.endswith("answering here") and "\n".join(rest) == here[2].rstrip("\n")


def test_a_batch_with_nothing_listening_at_npuzzle_server_is_answered_here(run_cli, service_dir):
    """$NPUZZLE_SERVER naming nothing, in a process of its own: each piece answered here must
    not be sent to the server again (it then read the stdin the batch had already read, and
    answered nothing)."""
    import os

    from serving import free_port

    url = f"http://127.0.0.1:{free_port()}"
    here = _run(run_cli, ["distance", "-"], service_dir, input=BATCH.encode())
    r = subprocess.run(
        [sys.executable, "-m", "solver", "distance", "-", "--data-dir", str(service_dir)],
        input=BATCH.encode(),
        capture_output=True,
        timeout=120,
        env={**os.environ, "NPUZZLE_SERVER": url},
    )
    assert (r.returncode, r.stdout) == here[:2]
    note = f"npuzzle: note: no server at {url} (connection refused); answering here"
    assert r.stderr.decode().splitlines() == [note, *here[2].splitlines()]


def test_a_server_with_npuzzle_server_in_its_environment_answers_itself(
    run_cli, service_dir, tmp_path
):
    """A server started from a shell that exports $NPUZZLE_SERVER runs what it is asked
    itself, for one board and for a batch's pieces."""
    from serving import Server, free_port

    elsewhere = {"NPUZZLE_SERVER": f"http://127.0.0.1:{free_port()}"}
    server = Server(service_dir, tmp_path / "cache", env=elsewhere)
    try:
        server.wait_ready()
        _same(run_cli, server, service_dir, ["distance", HARD_3X3])
        _same(run_cli, server, service_dir, ["distance", "-"], input=BATCH.encode())
        status, out, err, heavy = _launched(["solve", HARD_3X3], service_dir, server.url)
        assert (status, out, err) == _run(run_cli, ["solve", HARD_3X3], service_dir)
        assert not heavy
    finally:
        server.stop()


def test_a_bad_address_is_a_usage_error(run_cli, service_dir):
    status, _, err = _run(run_cli, ["distance", HARD_3X3], service_dir, "ftp://x")
    assert status == 2 and "--server takes http://HOST:PORT" in err


def test_asking_past_the_servers_caps_names_the_cap_and_how_to_raise_it(
    run_cli, live_server, service_dir
):
    status, out, err = _run(
        run_cli, ["solve", FOUR, "--timeout", "600"], service_dir, live_server.url
    )
    assert status == 4 and out == b"" and err.count("\n") == 1
    assert "caps a search at 60 s" in err and "npuzzle serve --max-seconds 600" in err
    assert "--server ''" in err
    status, _, err = _run(
        run_cli,
        ["solve", HARD_3X3, "--algorithm", "bfs", "--max-nodes", "5000000"],
        service_dir,
        live_server.url,
    )
    assert status == 4 and "caps a search at 1,000,000 nodes" in err
    # Within the caps, the same question is answered.
    _same(run_cli, live_server, service_dir, ["solve", FOUR, "--timeout", "30"])


def test_a_data_directory_the_server_does_not_read_is_answered_here(
    run_cli, live_server, exact_dir
):
    here = _run(run_cli, ["distance", HARD_3X3], exact_dir)
    status, out, err = _run(run_cli, ["distance", HARD_3X3], exact_dir, live_server.url)
    assert (status, out) == here[:2]
    assert f"not {exact_dir}; answering here" in err and err.count("\n") == 1


def test_the_client_imports_neither_numpy_nor_h5py(live_server, service_dir):
    probe = (
        "import sys\n"
        "from solver.cli import main\n"
        "try:\n"
        f"    main([*sys.argv[1:], '--server', {live_server.url!r}, '--data-dir', "
        f"{str(service_dir)!r}])\n"
        "except SystemExit as e:\n"
        "    heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'h5py'})\n"
        "    print('status', e.code, 'heavy', heavy, file=sys.stderr)\n"
    )
    for args in (["solve", FOUR], ["heuristic", "-"], ["generate", "--count", "2"]):
        r = subprocess.run(
            [sys.executable, "-c", probe, *args],
            input=f"{FOUR}\nnot a board\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.stderr.splitlines()[-1].endswith("heavy []"), (args, r.stderr)
        assert r.stdout.strip(), args


def test_a_search_the_servers_cap_stopped_says_so(run_cli, service_dir, tmp_path):
    """A server started with a 1 s cap: a search that needs longer ends as a --timeout of 1 s
    would, and a note names the cap and how to raise it."""
    from serving import Server

    server = Server(service_dir, tmp_path / "cache", "--max-seconds", "1")
    try:
        server.wait_ready()
        hard = "15 11 8 12 14 10 9 13 2 6 1 4 3 7 5 0"  # 80 moves: far beyond 1 s with Manhattan
        args = ["solve", hard, "--goal", "blank-first", "--heuristic", "manhattan"]
        status, out, err = _run(run_cli, args, service_dir, server.url)
        assert status == 4 and out == b"", err
        limit, note = err.splitlines()
        assert limit.startswith("npuzzle: limit: ")
        assert note.startswith("npuzzle: note: this server caps a search at 1 s and 2,000,000,000")
        assert "`npuzzle serve --max-seconds N --max-nodes N` raises it" in note
        status, out, err = _run(
            run_cli, ["generate", "--count", "2", "--seed", "1"], service_dir, server.url
        )
        assert status == 0 and "caps" not in err  # nothing stopped: no note
    finally:
        server.stop()


def test_a_line_too_long_to_send_is_answered_here(run_cli, live_server, service_dir):
    """A piece over the server's 64 KiB request limit (one long JSON line) is answered on this
    machine, in its place among the others."""
    long = json.dumps({"board": HARD_3X3, "id": "long", "pad": "x" * 70_000})
    data = f"{HARD_3X3}\n{long}\nnot a board\n{UNSOLVABLE}\n".encode()
    status, out, err = _same(run_cli, live_server, service_dir, ["distance", "-", "--json"], data)
    assert [json.loads(line).get("id") for line in out.splitlines()] == [None, "long", None, None]
