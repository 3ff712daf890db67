"""``npuzzle serve``: the HTTP API and the page where solutions play out.

The service (FastAPI, uvicorn) is an optional extra, imported only when this command runs, so
``npuzzle --help`` and every other command start as fast as before.
"""

from __future__ import annotations

import logging
import signal
import socket

import click

from .. import api
from ..core import interrupts
from ..core.messages import ERROR, prefixed
from . import errors, option_types, options
from .group import main_group as main

INSTALL_HINT = "the server needs its extra: pip install 'npuzzle[serve]'"
GRACEFUL_SECONDS = 3


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; anything but loopback makes the service reachable "
    "from other machines, and needs --token (or --no-token).",
)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@options.taken_by("serve")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Search processes (default: the number of cores).  Lookups are answered "
    "by the server process itself.",
)
@click.option(
    "--max-seconds",
    type=option_types.POSITIVE_SECONDS,
    default=60.0,
    show_default=True,
    help="Cap on one search's time; a client may ask for less.",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=2_000_000_000,
    show_default=True,
    help="Cap on one IDA* search's nodes.",
)
@click.option(
    "--max-wait",
    type=option_types.POSITIVE_SECONDS,
    default=30.0,
    show_default=True,
    help="The longest a search waits for a free worker: one whose expected wait is longer is "
    "refused at once (503 with Retry-After) instead of queued, and one queued all the same "
    "gets that 503 when the wait runs out.",
)
@click.option(
    "--cache",
    type=click.IntRange(min=0),
    default=1024,
    show_default=True,
    help="Recent answers kept, so the same question again costs no search (0: none).",
)
@click.option("--access-log", is_flag=True, help="Log every request on stderr.")
@click.option(
    "--no-token",
    is_flag=True,
    help="Listen beyond loopback without a --token: anyone who reaches the address may "
    "ask (refused otherwise).",
)
@errors.guarded
def serve(
    host,
    port,
    data_dir,
    token,
    workers,
    max_seconds,
    max_nodes,
    max_wait,
    cache,
    access_log,
    no_token,
):
    """Serve the npuzzle questions as JSON over HTTP, and a page at / where you can
    type or generate a board and watch its optimal solution slide.

    \b
    Endpoints (POST a JSON object, Content-Type: application/json, whose keys
    are the CLI's option names):
      /solve /distance /hint /heuristic /check /generate
    and GET /health, /databases; the API's own documentation is at /docs.

    On loopback (the default) it answers only a loopback Host; with --token (or
    $NPUZZLE_TOKEN) only requests with Authorization: Bearer TOKEN (the page: open
    it as http://HOST:PORT/#token=TOKEN).  Listening beyond loopback needs --token,
    or --no-token said outright.

    Searches run in --workers processes, each capped at --max-seconds.  A client
    that hangs up has its search dropped; identical questions asked at once share
    one search, and the last --cache answers are kept; a search that would wait
    longer than --max-wait for a worker gets 503 with Retry-After at once.

    \b
      npuzzle serve                        # then open http://127.0.0.1:8000/
      curl -s localhost:8000/distance -H 'content-type: application/json' \\
           -d '{"board": "8 6 7/2 5 4/3 0 1"}'
      npuzzle serve --port 9000 --workers 4 --max-seconds 10
    """
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError:
        errors.fail(INSTALL_HINT, errors.EXIT_USAGE)
    from ..service.admission import is_loopback_name
    from ..service.app import create_app
    from ..service.limits import Limits, Settings

    loopback = is_loopback_name(host)
    admission = _admission(token, no_token, loopback)

    logging.basicConfig(level=logging.WARNING, format="npuzzle serve: %(message)s")
    settings = Settings(
        data_dir=data_dir,
        workers=workers or api.usable_cores(),
        limits=Limits(
            max_seconds=max_seconds,
            max_nodes=max_nodes,
            max_expected_wait=max_wait,
            cache_entries=cache,
        ),
    )
    sock = _listen(host, port)
    if not loopback:
        guard = "a token" if admission.token else "no token"
        errors.notice(f"listening on {host}: reachable from other machines, with {guard}")
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    workers_text = f"{settings.workers} search worker{'s' if settings.workers > 1 else ''}"
    click.echo(f"npuzzle serve: http://{shown}:{bound}/ ({workers_text}; Ctrl-C stops)", err=True)
    app = create_app(settings, admission)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=access_log,
        server_header=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    server = _stopping_searches(uvicorn.Server)(config, app.state.pool)
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, interrupts.Interrupted) as e:
        # uvicorn re-raises the signal once it has shut down.  Ctrl-C is how a server's work
        # ends: exit status 0; SIGTERM stays 143, as for every command.
        if getattr(e, "signum", signal.SIGINT) != signal.SIGINT:
            raise
        interrupts.handled()
    if not server.started:
        errors.fail("the server did not start (see the message above)", errors.EXIT_USAGE)


def _admission(token: str | None, no_token: bool, loopback: bool):
    """Whom the server admits (:class:`solver.service.admission.Admission`), or one line and
    exit status 2: a token that cannot travel in a header, ``--token`` with ``--no-token``,
    or an address beyond loopback with neither."""
    from ..client.wire import TOKEN_RULE, header_safe
    from ..service.admission import Admission

    token = token or None  # `--token ''` or an empty $NPUZZLE_TOKEN: none
    if token is not None and not header_safe(token):
        errors.fail(f"error: {TOKEN_RULE}", errors.EXIT_USAGE)
    if token is not None and no_token:
        errors.fail("error: --token and --no-token ask for opposite things", errors.EXIT_USAGE)
    if token is None and not loopback and not no_token:
        errors.fail(
            "error: listening beyond loopback needs --token TOKEN (or $NPUZZLE_TOKEN), "
            "or --no-token to let anyone who reaches the address ask",
            errors.EXIT_USAGE,
        )
    return Admission(token=token, loopback_only=loopback)


def _stopping_searches(server_class):
    """uvicorn's server, which on Ctrl-C or SIGTERM first ends the searches in flight (their
    clients get a 503 at once), so that it closes its connections and exits promptly instead
    of waiting out its grace period for answers that may take a minute."""

    class Server(server_class):
        def __init__(self, config, pool):
            super().__init__(config)
            self.pool = pool

        def handle_exit(self, sig, frame):
            super().handle_exit(sig, frame)
            self.pool.abort_soon()

    return Server


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or one line and exit status 2 (a busy port, an
    address this machine does not have)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as e:
        errors.fail(
            prefixed(ERROR, f"cannot listen on {host}:{port}: {e.strerror or e}"), errors.EXIT_USAGE
        )
