"""The warm path's wire: one question to a running ``npuzzle serve`` over HTTP/1.1 on a plain
socket (layer 7: client).

Used by the two clients of ``POST /run``: :mod:`.remote` (options parsed by click, batches in
pieces) and :mod:`.quick` (one board, the command line as typed, before click is imported).
Only the standard library: ``http.client`` would import ssl and email, ``urllib.parse``
ipaddress -- most of a warm command's start.

Imports: the standard library.
"""

from __future__ import annotations

import json
import threading

PATH = "/run"
CONTENT_TYPE = "application/x-npuzzle-run"  # what solver.service.cli_runs takes
CONNECT_SECONDS = 2.0
EXIT_ELSEWHERE = 75  # the server's "answer this on your own machine" (cli_runs)
NOTE = "npuzzle: note: "
CLIENT_ONLY = ("server", "scheduler")  # the client's own options: never sent
# The commands --server takes: those of the server option in solver.options, which the warm
# path does not import (tests/test_options.py checks that the two agree).
FORWARDED = ("solve", "distance", "hint", "heuristic", "check", "generate")
# The option that makes a command answer on the machine it runs on, whatever $NPUZZLE_SERVER
# says: a client the server did not answer, and every command a server runs for a client.
ANSWER_HERE = "--server="


def words_for_server(words: list[str]) -> tuple[str | None, str | None, list[str]] | None:
    """``(URL, token, words)`` for a command's words (after its name) as a server is sent them:
    the URL ``--server`` names and the token ``--token`` gives (None where not given), and the
    words without those two (the token travels in a header, never among the words) and with
    ``--data-dir`` made absolute (the server's working directory is not the client's).  None
    when one of these options lacks its value: click says so, as a usage error.

    The words go as they were typed, not rebuilt from parsed values: the server parses them
    with the very options of the command, so it can never read a different question."""
    import os

    given: dict[str, str] = {}
    rest, it = [], iter(words)
    for word in it:
        if word == "--":  # what follows are boards, never options
            rest += [word, *it]
            break
        option, eq, value = word.partition("=")
        if option in ("--server", "--token", "--data-dir"):
            if not eq:
                value = next(it, None)
                if value is None:
                    return None
            if option != "--data-dir":
                given[option] = value
                continue
            word = f"--data-dir={os.path.abspath(value)}" if value.strip() else word
        rest.append(word)
    return given.get("--server"), given.get("--token"), rest


TOKEN_RULE = "--token takes printable ASCII without spaces (it travels in a header)"


def header_safe(token: str) -> bool:
    """Whether ``token`` can travel in an ``Authorization`` header as it is."""
    return token.isascii() and token.isprintable() and " " not in token


class Unreachable(Exception):
    """No answer from the server: the command answers here (the message says why)."""


class TooLong(Exception):
    """The server's request limit refused the question (413)."""


class Channel:
    """The server at ``url`` (``http://HOST:PORT``; ValueError for anything else): one kept
    connection per thread, each request with ``token`` as its bearer token where one is
    given."""

    def __init__(self, url: str, token: str | None = None):
        self.url = url.rstrip("/")
        self.host, self.port = address(url)
        self.token = token or None
        if self.token and not header_safe(self.token):
            raise ValueError(TOKEN_RULE)
        self._local = threading.local()

    def ask(self, question: dict, data: bytes = b"") -> tuple[int, bytes, str, str | None]:
        """``(exit status, stdout, stderr, note)`` of the command ``question`` names (with
        ``data`` as its input); :class:`Unreachable` or :class:`TooLong` when not answered."""
        body = json.dumps(question, separators=(",", ":")).encode() + b"\n" + data
        status, reply = self._post(body)
        if status == 413:
            raise TooLong
        if status != 200:
            raise Unreachable(f"the server at {self.url} {refusal(status, reply)}")
        head, _, stdout = reply.partition(b"\n")
        try:
            h = json.loads(head)
            return int(h["status"]), stdout, str(h["stderr"]), h.get("note")
        except (ValueError, KeyError, TypeError):
            raise Unreachable(f"{self.url} answered something else than npuzzle") from None

    def _post(self, body: bytes) -> tuple[int, bytes]:
        conn = getattr(self._local, "conn", None)
        for attempt in (0, 1):  # a kept connection the server has closed: once more, anew
            fresh = conn is None
            if fresh:
                conn = self._local.conn = self._connect()
            try:
                return conn.post(PATH, body)
            except (OSError, _Closed) as e:
                conn.close()
                conn = self._local.conn = None
                if fresh or attempt:
                    raise Unreachable(
                        f"no answer from the server at {self.url} ({why(e)})"
                    ) from None
        raise AssertionError("unreachable")

    def _connect(self) -> _Connection:
        import socket

        try:
            sock = socket.create_connection((self.host, self.port), timeout=CONNECT_SECONDS)
        except OSError as e:
            raise Unreachable(f"no server at {self.url} ({why(e)})") from None
        sock.settimeout(None)  # a search may take as long as the server's cap
        name = f"[{self.host}]" if ":" in self.host else self.host
        return _Connection(sock, f"{name}:{self.port}", self.token)


class _Closed(Exception):
    """The server closed the connection before answering."""


class _Connection:
    """HTTP/1.1 over one socket, as little of it as the warm path needs (http.client would
    import ssl and email: most of a client's start-up)."""

    def __init__(self, sock, host: str, token: str | None = None):
        self.sock, self.host = sock, host
        self.authorization = f"Authorization: Bearer {token}\r\n" if token else ""
        self.file = sock.makefile("rb")

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: {CONTENT_TYPE}\r\n"
            f"{self.authorization}Content-Length: {len(body)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + body)
        status_line = self.file.readline()
        if not status_line:
            raise _Closed("closed")
        parts = status_line.split()
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
            raise _Closed("not HTTP")
        headers = {}
        while True:
            line = self.file.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            reply = self._chunked()
        elif "content-length" in headers:
            reply = self._exactly(int(headers["content-length"]))
        else:
            reply = self.file.read()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return int(parts[1]), reply

    def _exactly(self, n: int) -> bytes:
        data = self.file.read(n)
        if len(data) < n:
            raise _Closed("closed mid-answer")
        return data

    def _chunked(self) -> bytes:
        parts = []
        while True:
            size = int(self.file.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.file.readline()
                return b"".join(parts)
            parts.append(self._exactly(size))
            self.file.readline()

    def close(self) -> None:
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass


_ADDRESS = None  # the pattern below, compiled on first use


def address(url: str) -> tuple[str, int]:
    """``(host, port)`` of ``http://HOST:PORT`` (or ``HOST:PORT``, ``[::1]:PORT``); ValueError
    for anything else.  (A regular expression, not urllib.parse: that imports ipaddress, a few ms
    of a warm command's start.)"""
    import re

    global _ADDRESS
    if _ADDRESS is None:
        _ADDRESS = re.compile(r"(?:http://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?/?")
    m = _ADDRESS.fullmatch(url.strip())
    port = int(m.group(2) or 80) if m else None
    if m is None or not 0 < port < 65536:
        raise ValueError(
            f"--server takes http://HOST:PORT (as `npuzzle serve` prints it), not {url!r}"
        )
    return m.group(1).strip("[]"), port


def why(exc: BaseException) -> str:
    """Why a connection failed, in a few words."""
    import socket

    if isinstance(exc, socket.gaierror):
        return "the name does not resolve"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "no answer within a few seconds"
    return _one_line(getattr(exc, "strerror", None) or exc) or type(exc).__name__


def refusal(status: int, reply: bytes) -> str:
    """Why the server did not run the command, in words."""
    try:
        error = json.loads(reply).get("error")
    except (ValueError, AttributeError):
        error = None
    if status == 404:
        return "has no warm path (an npuzzle serve older than --server?)"
    return f"answered {status}" + (f": {_one_line(error)}" if error else "")


def _one_line(text) -> str:
    return " ".join(str(text).split())  # (solver.core.program.one_line, without click)


__all__ = [
    "Channel",
    "Unreachable",
    "TooLong",
    "address",
    "words_for_server",
    "ANSWER_HERE",
    "EXIT_ELSEWHERE",
    "FORWARDED",
    "NOTE",
    "TOKEN_RULE",
    "header_safe",
]
