"""``POST /run``: the command line's warm path (layer 7: service).

``npuzzle solve ... --server URL`` (or ``$NPUZZLE_SERVER``) sends the command's name and its
parsed options here, with a piece of its stdin for a batch (:mod:`solver.cli.pieces`); the
server runs that very command (:func:`solver.cli.capture.run`) with the kernels already loaded
and the tables already mapped, and answers what it printed and its exit status.  So the
client prints exactly what the command prints on its own machine, at the cost of a request
instead of a start of Python, numpy and numba.

The commands run in ``workers`` threads of the server process, not in the search processes:
the search kernels release the GIL, and a thread needs no copy of the question's state.  The
server's caps hold as for every other endpoint: a search gets at most ``--max-seconds`` and
``--max-nodes`` (teaching searches their own node cap), and a question asking for more is
refused with a message that names the cap and how to raise it.  A client whose data
directory is not the server's is refused too (it answers on its own machine): the server
reads only its own databases.

The body is one line of JSON (``command``, ``params``, and for a batch ``piece``: where its
lines start), a newline and the piece's lines as they are; the answer is one line of JSON
(``status``, ``stderr``, ``note``), a newline, and the command's stdout as it is.  For one
board a client may send the command line as typed instead of ``params`` (``argv``, a list of
words: :mod:`solver.cli.quick`, which answers before click is imported); the server parses
it with the command's options, and a line that does not parse is run as it is, to say why.

Imports: fastapi/starlette, :mod:`solver.cli.capture`, :mod:`solver.cli.pieces`,
:mod:`solver.tables.store` and this package.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from ..cli import capture, pieces, wire
from ..tables import store
from .limits import TEACHING_ALGORITHMS, Settings

CONTENT_TYPE = "application/x-npuzzle-run"
EXIT_LIMIT = 4  # solver.cli.common.EXIT_LIMIT: a search limit (the cap refusals' status too)
EXIT_ELSEWHERE = 75  # EX_TEMPFAIL: "answer this on your own machine" (see refuse_elsewhere)
TIMED = ("solve", "distance", "hint", "generate")  # the commands with --timeout
NODE_CAPPED = ("solve", "distance", "hint")  # ... and with --max-nodes


class BadRun(ValueError):
    """A body that is not a forwarded command (a 400)."""


def read_run(body: bytes) -> tuple[str, dict | list, pieces.Piece | None]:
    """``(command, params, piece)`` from a request body -- ``params`` a dict of parsed
    options, or the list of words of a command line as typed (:mod:`solver.cli.quick`);
    :class:`BadRun` for anything else."""
    head, _, data = body.partition(b"\n")
    try:
        question = json.loads(head)
        name, piece = question["command"], question.get("piece")
        params = question["argv"] if "argv" in question else question["params"]
        if "argv" in question and (
            piece is not None or not all(isinstance(w, str) for w in params)
        ):
            raise BadRun("argv is a list of words, for one board")
        if name not in wire.FORWARDED or not isinstance(params, dict | list):
            raise BadRun(f"not a command this server runs: {name!r}")
        if isinstance(params, list):
            return name, params, None
        if set(params) & set(wire.CLIENT_ONLY):  # no server asks another, or a cluster
            raise BadRun(
                f"options the server does not take: {sorted(set(params) & set(wire.CLIENT_ONLY))}"
            )
        return name, params, None if piece is None else pieces.Piece.from_json(piece, data)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        if isinstance(e, BadRun):
            raise
        raise BadRun(f"the body is not a forwarded npuzzle command ({e})") from None


def capped(name: str, params: dict, settings: Settings) -> tuple[dict, str | None, str | None]:
    """``(params, refusal, note)``: the options with the server's caps applied.  A question
    asking for more than a cap is refused (``refusal`` says which cap and how to raise it);
    a search the client left unbounded gets the cap, and ``note`` says so in case it stops
    the search."""
    lim, out = settings.limits, dict(params)
    teaching = out.get("algorithm") in TEACHING_ALGORITHMS
    caps = []  # (option, cap, its unit, the serve option that raises it)
    if name in TIMED:
        caps.append(("timeout", lim.max_seconds, "s", "--max-seconds"))
    if name in NODE_CAPPED:
        nodes = lim.max_teaching_nodes if teaching else lim.max_nodes
        caps.append(("max_nodes", nodes, "nodes", None if teaching else "--max-nodes"))
    applied, raised_by = [], []
    for key, cap, unit, serve_option in caps:
        asked = out.get(key)
        option = "--" + key.replace("_", "-")
        if asked is not None and asked > cap:
            raise_it = f", start the server with `npuzzle serve {serve_option} {_n(asked)}`"
            return (
                out,
                f"this server caps a search at {_n(cap)} {unit}, and {option} asks for "
                f"{_n(asked)} {unit}: ask for less{raise_it if serve_option else ''}, or answer "
                f"on this machine with --server ''",
                None,
            )
        if asked is None:
            out[key] = cap
            applied.append(f"{_n(cap)} {unit}")
            raised_by += [f"{serve_option} N"] if serve_option else []
    if not applied:
        return out, None, None
    how = f"`npuzzle serve {' '.join(raised_by)}` raises it; " if raised_by else ""
    return (
        out,
        None,
        f"this server caps a search at {' and '.join(applied)} ({how}--server '' answers on "
        f"this machine, without a cap)",
    )


def _n(x) -> str:
    """A number as a person writes it: 60 (not 60.0), 2,000,000."""
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def _stopped_by_a_limit(status: int, stdout: bytes) -> bool:
    return status == EXIT_LIMIT or b"limit: " in stdout or b'"status":"limit"' in stdout


def _reply(status: int, stderr: str, stdout: bytes = b"", note: str | None = None) -> Response:
    head = json.dumps({"status": status, "stderr": stderr, "note": note}).encode()
    return Response(head + b"\n" + stdout, media_type=CONTENT_TYPE)


def add_routes(app, settings: Settings) -> None:
    """Register ``POST /run`` on ``app`` (called by :func:`.app.create_app`)."""
    runner = _Runner(settings)
    app.state.cli_runs = runner

    @app.post("/run", include_in_schema=False)
    async def run(request: Request):
        try:
            name, params, piece = read_run(await request.body())
        except BadRun as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        if isinstance(params, list):  # a command line as typed: parsed here
            argv, params = params, capture.params_of(name, params)
            if params is None:  # it does not parse: the command says why, as it would
                status, stdout, stderr = await runner.run(name, None, None, argv)
                return _reply(status, stderr, stdout)
        mine = params.get("data_dir")
        if mine is not None and not runner.same_data_dir(mine):
            return _reply(
                EXIT_ELSEWHERE,
                f"this server reads the databases in {runner.data_dir}, not {mine}",
            )
        params, refusal, note = capped(name, params, settings)
        if refusal:
            return _reply(EXIT_LIMIT, f"npuzzle: limit: {refusal}\n")
        if mine is None and settings.data_dir is not None:
            params["data_dir"] = settings.data_dir
        busy = runner.busy()
        if busy:
            return JSONResponse(busy, status_code=503, headers={"Retry-After": "1"})
        status, stdout, stderr = await runner.run(name, params, piece)
        return _reply(status, stderr, stdout, note if _stopped_by_a_limit(status, stdout) else None)


class _Runner:
    """``workers`` threads that run forwarded commands, warmed on the first one."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.data_dir = store.data_dir(settings.data_dir).resolve()
        self._threads = ThreadPoolExecutor(settings.workers, thread_name_prefix="npuzzle-run")
        self._warm = threading.Lock()
        self._warmed = False
        self.pending = 0

    def same_data_dir(self, path) -> bool:
        """Whether ``path`` is this server's data directory."""
        try:
            return Path(path).resolve() == self.data_dir
        except (OSError, ValueError):
            return False

    def busy(self) -> dict | None:
        """The 503 body for a run that should not queue, or None."""
        if self.pending < self.settings.limits.max_pending:
            return None
        return {
            "error": f"busy: {self.pending} commands are running or waiting; try again in 1 s",
            "retry_after": 1,
        }

    async def run(self, name: str, params: dict | None, piece, argv=None) -> tuple:
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, self._run, name, params, piece, argv)
        finally:
            self.pending -= 1

    def _run(self, name, params, piece, argv):
        self._warm_up()
        return capture.run(name, params, piece, argv)

    def _warm_up(self) -> None:
        # The search kernels, loaded from numba's cache once, before the first command runs
        # (a server that is never asked pays nothing).
        with self._warm:
            if not self._warmed:
                from .pool import warm_up

                warm_up(self.settings)
                self._warmed = True


__all__ = ["add_routes", "capped", "read_run", "CONTENT_TYPE"]
