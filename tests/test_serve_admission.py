"""Who `npuzzle serve` admits, through real servers on loopback ports: on loopback a `Host`
that is not a loopback name gets 400; a body that is not `application/json` gets 415 (the
warm path's `/run` takes its own type); with a token, a question without it or with another
gets 401 and one with it an answer, while the page and the API's documentation still load;
listening beyond loopback without a token is refused in one line; and the warm path's client
sends the token it is given."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys

import pytest
from conftest import assert_one_line_error, imports_said
from serving import Server, call

from solver.client import wire

pytest.importorskip("fastapi", reason="the service needs the [serve] extra")
pytest.importorskip("uvicorn", reason="the service needs the [serve] extra")

TOKEN = "s3cret-Token_42"
FAR_3X3 = "8 6 7/2 5 4/3 0 1"  # 31 moves
QUESTION = json.dumps({"board": FAR_3X3}).encode()


@pytest.fixture(scope="module")
def guarded(service_dir, tmp_path_factory):
    """`npuzzle serve` with $NPUZZLE_TOKEN set: every question needs the token."""
    server = Server(service_dir, tmp_path_factory.mktemp("guarded-cache"), token=TOKEN)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def raw(server, method: str, path: str, body: bytes | None = None, **headers) -> tuple[int, dict]:
    """(status, the answer's JSON or {}) of one request with exactly these headers
    (``content_type="text/plain"`` is sent as ``Content-Type``; a ``host`` replaces the
    address's own)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent = {k.replace("_", "-"): v for k, v in headers.items()}
    try:
        conn.request(method, path, body=body, headers=sent)
        r = conn.getresponse()
        data = r.read()
    finally:
        conn.close()
    is_json = r.getheader("content-type", "").startswith("application/json")
    return r.status, json.loads(data) if is_json else {}


def refused(answer: tuple[int, dict], status: int, fragment: str) -> None:
    code, body = answer
    assert code == status, body
    assert set(body) == {"error"} and "\n" not in body["error"], body
    assert fragment in body["error"], body


# --- the Host ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "10.0.0.1", "127.0.0.1.nip.io"]
)
def test_a_host_that_is_not_loopback_gets_400(live_server, host):
    answer = raw(
        live_server, "POST", "/distance", QUESTION, host=host, content_type="application/json"
    )
    refused(answer, 400, "loopback Host")
    refused(raw(live_server, "GET", "/health", host=host), 400, repr(host))


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST:{port}", "127.0.0.1:{port}", "127.8.9.1", "[::1]:{port}"]
)
def test_a_loopback_host_is_answered(live_server, host):
    host = host.format(port=live_server.port)
    status, rec = raw(
        live_server, "POST", "/distance", QUESTION, host=host, content_type="application/json"
    )
    assert status == 200 and rec["distance"] == 31, rec


# --- the body's type -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/distance", "/solve", "/check", "/run"])
@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_a_body_that_is_not_json_gets_415(live_server, path, content_type):
    headers = {} if content_type is None else {"content_type": content_type}
    answer = raw(live_server, "POST", path, QUESTION, **headers)  # http.client adds no type
    refused(answer, 415, "Content-Type: application/")


def test_json_with_a_charset_is_answered(live_server):
    status, rec = raw(
        live_server, "POST", "/distance", QUESTION, content_type="application/json; charset=utf-8"
    )
    assert status == 200 and rec["distance"] == 31


def test_the_warm_path_takes_only_its_own_type(live_server):
    run = json.dumps({"command": "distance", "argv": [FAR_3X3]}).encode() + b"\n"
    refused(
        raw(live_server, "POST", "/run", run, content_type="application/json"),
        415,
        wire.CONTENT_TYPE,
    )
    status, _ = raw(live_server, "POST", "/run", run, content_type=wire.CONTENT_TYPE)
    assert status == 200


# --- the token -----------------------------------------------------------------------------------


def test_a_question_without_the_token_gets_401(guarded):
    answer = raw(guarded, "POST", "/distance", QUESTION, content_type="application/json")
    refused(answer, 401, "asks for a token")
    refused(raw(guarded, "GET", "/health"), 401, "Authorization: Bearer")
    refused(raw(guarded, "GET", "/databases"), 401, "Authorization: Bearer")


@pytest.mark.parametrize(
    "authorization", [f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", "Bearer", f"Basic {TOKEN}", TOKEN]
)
def test_a_wrong_token_gets_401(guarded, authorization):
    answer = raw(
        guarded,
        "POST",
        "/distance",
        QUESTION,
        content_type="application/json",
        authorization=authorization,
    )
    refused(answer, 401, "token")


def test_the_right_token_is_answered(guarded):
    status, rec = call(guarded.url + "/distance", {"board": FAR_3X3}, token=TOKEN)
    assert status == 200 and rec["distance"] == 31
    status, rec = raw(
        guarded,
        "POST",
        "/distance",
        QUESTION,
        content_type="application/json",
        authorization=f"bearer {TOKEN}",  # the scheme's name is not case-sensitive
    )
    assert status == 200 and rec["distance"] == 31
    assert call(guarded.url + "/health", token=TOKEN)[0] == 200


def test_the_page_and_the_documentation_load_without_the_token(guarded):
    for path in ("/", "/static/app.js", "/favicon.ico", "/docs", "/openapi.json"):
        conn = http.client.HTTPConnection("127.0.0.1", guarded.port, timeout=30)
        conn.request("GET", path)
        assert conn.getresponse().status == 200, path
        conn.close()


def test_the_token_comes_before_the_body_type(guarded):
    """A stranger learns nothing about what the server would take."""
    refused(raw(guarded, "POST", "/distance", QUESTION, content_type="text/plain"), 401, "token")


# --- listening beyond loopback ---------------------------------------------------------------------


def test_listening_beyond_loopback_without_a_token_is_refused(run_cli):
    # A port already taken: were the rule missing, the command would fail to listen, not serve.
    with socket.create_server(("0.0.0.0", 0)) as taken:
        port = taken.getsockname()[1]
        r = run_cli(["serve", "--host", "0.0.0.0", "--port", port], env={"NPUZZLE_TOKEN": ""})
    assert_one_line_error(r, 2)
    assert "--token" in r.stderr and "--no-token" in r.stderr


@pytest.mark.parametrize(
    "words", [["--token", "two words"], ["--token", "x", "--no-token"], ["--token", "tab\there"]]
)
def test_a_token_that_cannot_be_used_is_one_line(run_cli, words):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        r = run_cli(["serve", "--port", taken.getsockname()[1], *words])
    assert_one_line_error(r, 2)
    assert "--token" in r.stderr and "cannot listen" not in r.stderr


# --- the warm path's client ----------------------------------------------------------------------


def test_the_client_sends_its_token(run_cli, guarded, service_dir):
    here = run_cli(["distance", FAR_3X3, "--data-dir", service_dir], env={"NPUZZLE_TOKEN": ""})
    assert here.exit_code == 0 and here.stdout == "31\n"
    words = ["distance", FAR_3X3, "--data-dir", service_dir, "--server", guarded.url]
    there = run_cli([*words, "--token", TOKEN], env={"NPUZZLE_TOKEN": ""})
    assert (there.exit_code, there.stdout, there.stderr) == (0, "31\n", "")
    there = run_cli(words, env={"NPUZZLE_TOKEN": TOKEN})
    assert (there.exit_code, there.stdout, there.stderr) == (0, "31\n", "")
    # Without it: one note that says why, and the answer from this machine.
    without = run_cli(words, env={"NPUZZLE_TOKEN": ""})
    assert without.exit_code == 0 and without.stdout == "31\n"
    assert "answered 401: this server asks for a token" in without.stderr
    assert without.stderr.count("\n") == 1


# `npuzzle` as installed, run with -X importtime: whether click was imported shows (the quick
# client: not).
QUICK = "import sys\nfrom solver.cli import launch\nsys.argv[0] = 'npuzzle'\nlaunch()\n"


@pytest.mark.parametrize("how", ["environment", "option"])
def test_the_quick_client_sends_its_token(guarded, service_dir, how):
    """One board asked before click is imported carries the token of $NPUZZLE_TOKEN or of
    --token, and the token is never among the words the server is sent."""
    env = {**os.environ, "NPUZZLE_TOKEN": TOKEN if how == "environment" else ""}
    words = ["distance", FAR_3X3, "--data-dir", str(service_dir), "--server", guarded.url]
    words += ["--token", TOKEN] if how == "option" else []
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", QUICK, *words],
        capture_output=True,
        env=env,
        timeout=120,
    )
    stderr, imported = imports_said(r.stderr)
    assert (r.returncode, r.stdout, stderr, "click" in imported) == (0, b"31\n", b"", False)


def test_the_token_is_never_among_the_words_sent():
    url, token, rest = wire.words_for_server(["A", "--token", TOKEN, "--server=http://h:1", "B"])
    assert (url, token, rest) == ("http://h:1", TOKEN, ["A", "B"])
    assert wire.words_for_server(["A", f"--token={TOKEN}"]) == (None, TOKEN, ["A"])
    assert wire.words_for_server(["A", "--token"]) is None  # click says what is missing
