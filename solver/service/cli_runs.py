"""``POST /run``: the command line's warm path (layer 7: service).

``npuzzle solve ... --server URL`` (or ``$NPUZZLE_SERVER``) sends the command's name and its
words as the user typed them here, with a piece of its stdin for a batch
(:mod:`solver.client.pieces`); the server parses the words with the command's own options and
runs that very command (:func:`solver.cli.capture.run`) with the kernels already loaded and
the tables already mapped, and answers what it printed and its exit status.  So the client
prints exactly what the command prints on its own machine, at the cost of a request instead
of a start of Python and numpy.  The words are never rebuilt from parsed values: the
server reads the question the user typed, whatever the version of click on either side.

The commands run in ``workers`` threads of the server process, not in the search processes:
the search kernels release the GIL, and a thread needs no copy of the question's state.  The
server's caps hold as for every other endpoint: a search gets at most ``--max-seconds`` and
``--max-nodes`` (teaching searches their own node cap), and a question asking for more is
refused with a message that names the cap and how to raise it.  A client whose data
directory is not the server's is refused too (it answers on its own machine): the server
reads only its own databases.

The body is one line of JSON (``command``, ``argv``: the words after the command's name, and
for a batch ``piece``: where its lines start), a newline and the piece's lines as they are;
the answer is one line of JSON (``status``, ``stderr``, ``note``), a newline, and the
command's stdout as it is.  Words that do not parse are run as they are, to say why.  The
server's own choices -- its caps on a search the client left unbounded, its data directory --
are option words put before the client's, which never set them.

Imports: fastapi/starlette, :mod:`solver.cli.capture`, :mod:`solver.client` (the words and
pieces it sends), :mod:`solver.core.program`, :mod:`solver.options`, :mod:`solver.tables.store`
and this package.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from ..cli import capture
from ..client import pieces, wire
from ..core.program import EXIT_LIMIT
from ..options import BY_NAME
from ..tables import store
from .limits import TEACHING_ALGORITHMS, Settings

CONTENT_TYPE = wire.CONTENT_TYPE
EXIT_ELSEWHERE = wire.EXIT_ELSEWHERE  # EX_TEMPFAIL: "answer this on your own machine"
# The forwarded commands with --timeout (generate's own, for its candidates, too), and those
# with --max-nodes.
TIMED = (*(c for c in BY_NAME["timeout"].commands if c in wire.FORWARDED), "generate")
NODE_CAPPED = tuple(c for c in BY_NAME["max_nodes"].commands if c in wire.FORWARDED)


class BadRun(ValueError):
    """A body that is not a forwarded command (a 400)."""


def read_run(body: bytes) -> tuple[str, list[str], pieces.Piece | None]:
    """``(command, words, piece)`` from a request body: the command's words as the client
    typed them (:func:`solver.client.wire.words_for_server`) and, for a batch, the piece of its
    input to answer; :class:`BadRun` for anything else."""
    head, _, data = body.partition(b"\n")
    try:
        question = json.loads(head)
        name, argv, piece = question["command"], question["argv"], question.get("piece")
        if name not in wire.FORWARDED:
            raise BadRun(f"not a command this server runs: {name!r}")
        if not isinstance(argv, list) or not all(isinstance(w, str) for w in argv):
            raise BadRun("argv is a list of words")
        return name, argv, None if piece is None else pieces.Piece.from_json(piece, data)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        if isinstance(e, BadRun):
            raise
        raise BadRun(f"the body is not a forwarded npuzzle command ({e})") from None


def client_only(params: dict) -> str | None:
    """Why the server does not run a command whose words name a server or a cluster (no
    server asks another, nor a cluster), or None."""
    asked = sorted(k for k in wire.CLIENT_ONLY if params.get(k))
    return f"options the server does not take: {asked}" if asked else None


def capped(name: str, params: dict, settings: Settings) -> tuple[list[str], str | None, str | None]:
    """``(words, refusal, note)``: the server's caps on the question whose parsed options are
    ``params``.  A question asking for more than a cap is refused (``refusal`` says which cap
    and how to raise it); a search the client left unbounded gets the cap, as the option
    words to add to the client's (``words``), and ``note`` says so in case it stops the
    search."""
    lim = settings.limits
    teaching = params.get("algorithm") in TEACHING_ALGORITHMS
    caps = []  # (option, cap, its unit, the serve option that raises it)
    if name in TIMED:
        caps.append(("timeout", lim.max_seconds, "s", "--max-seconds"))
    if name in NODE_CAPPED:
        nodes = lim.max_teaching_nodes if teaching else lim.max_nodes
        caps.append(("max_nodes", nodes, "nodes", None if teaching else "--max-nodes"))
    words, applied, raised_by = [], [], []
    for key, cap, unit, serve_option in caps:
        asked = params.get(key)
        option = "--" + key.replace("_", "-")
        if asked is not None and asked > cap:
            raise_it = f", start the server with `npuzzle serve {serve_option} {_n(asked)}`"
            return (
                words,
                f"this server caps a search at {_n(cap)} {unit}, and {option} asks for "
                f"{_n(asked)} {unit}: ask for less{raise_it if serve_option else ''}, or answer "
                f"on this machine with --server ''",
                None,
            )
        if asked is None:
            words.append(f"{option}={cap}")
            applied.append(f"{_n(cap)} {unit}")
            raised_by += [f"{serve_option} N"] if serve_option else []
    if not applied:
        return words, None, None
    how = f"`npuzzle serve {' '.join(raised_by)}` raises it; " if raised_by else ""
    return (
        words,
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
            name, argv, piece = read_run(await request.body())
        except BadRun as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        params = capture.params_of(name, argv)
        if params is None:  # the words do not parse: the command says why, as it would
            status, stdout, stderr = await runner.run(name, argv, None)
            return _reply(status, stderr, stdout)
        refused = client_only(params)
        if refused:
            return JSONResponse({"error": refused}, status_code=400)
        mine = params.get("data_dir")
        if mine is not None and not runner.same_data_dir(mine):
            return _reply(
                EXIT_ELSEWHERE,
                f"this server reads the databases in {runner.data_dir}, not {mine}",
            )
        added, refusal, note = capped(name, params, settings)
        if refusal:
            return _reply(EXIT_LIMIT, f"npuzzle: limit: {refusal}\n")
        if mine is None and settings.data_dir is not None:
            added.append(f"--data-dir={settings.data_dir}")
        busy = runner.busy()
        if busy:
            return JSONResponse(busy, status_code=503, headers={"Retry-After": "1"})
        # The server's words go first: the client's never set them (it left them unset).
        status, stdout, stderr = await runner.run(name, [*added, *argv], piece)
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

    async def run(self, name: str, argv: list[str], piece) -> tuple:
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, self._run, name, argv, piece)
        finally:
            self.pending -= 1

    def _run(self, name, argv, piece):
        self._warm_up()
        return capture.run(name, argv, piece)

    def _warm_up(self) -> None:
        # The search kernels and the strongest tables, loaded once before the first command
        # runs (a server that is never asked pays nothing).
        with self._warm:
            if not self._warmed:
                from .pool import warm_up

                warm_up(self.settings)
                self._warmed = True


__all__ = ["add_routes", "capped", "client_only", "read_run", "CONTENT_TYPE"]
