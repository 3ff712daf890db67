"""The warm path's quick client: one board asked of ``npuzzle serve`` before click is imported
(layer 7: client).

With a server named (``--server URL`` or ``$NPUZZLE_SERVER``), most of what a one-board command
waits for on this machine is Python starting and importing click (a third of a warm answer's
time).  So :func:`answer` runs first, on the command line as it was typed: it sends the words
themselves to ``POST /run``, whose server parses them with the very options of the command
and runs it (:mod:`solver.service.cli_runs`), and prints what came back -- the same stdout,
stderr and exit status as :mod:`.remote`, which the command runs once click parsed its options.

Whatever needs this machine goes the long way, through click and :mod:`.remote`: a batch
(``-``, its lines streamed in pieces), ``--scheduler`` or ``$DASK_SCHEDULER_ADDRESS`` (a Dask
cluster), help, a URL that is not ``http://HOST:PORT`` (a usage error), a server older than
the quick path.  With nothing listening, one line says so and the command answers here
without asking again (``--server=``).

Imports: the standard library, :mod:`solver.core.config`, :mod:`solver.core.interrupts`,
:mod:`.wire`.
"""

from __future__ import annotations

import os
import sys

from ..core import config, interrupts
from . import wire

HELP = ("-h", "--help", "--help-all")


def answer(args: list[str]) -> tuple[int | None, list[str]]:
    """``(exit status, args)`` once the server answered ``npuzzle ARGS`` (printed here);
    ``(None, args)`` for the command line to run as usual -- ``args`` then say
    ``--server ''`` where the server was asked and did not answer (said on stderr)."""
    found = _forwardable(args)
    if found is None:
        return None, args
    name, url, token, rest = found
    try:
        channel = wire.Channel(url, token)
    except ValueError:
        return None, args  # click says so, as a usage error
    try:
        status, stdout, stderr, note = channel.ask({"command": name, "argv": rest})
    except wire.TooLong:
        return None, args
    except wire.Unreachable as e:
        return None, _here(name, rest, str(e))
    if status == wire.EXIT_ELSEWHERE:
        return None, _here(name, rest, stderr.strip())
    try:
        sys.stdout.buffer.write(stdout)
        sys.stdout.buffer.flush()
    except BrokenPipeError:  # the reader went away (`| head -0`): quietly, as the command
        return interrupts.quiet_broken_pipe(), args
    sys.stderr.write(stderr + (f"{wire.NOTE}{note}\n" if note else ""))
    sys.stderr.flush()
    return status, args


def _forwardable(args: list[str]) -> tuple[str, str, str | None, list[str]] | None:
    """``(command, server URL, token, the words to send)`` for a one-board question to a
    server, or None (:func:`.wire.words_for_server` says which words are sent)."""
    if not args or args[0] not in wire.FORWARDED or os.environ.get(config.ENV_SCHEDULER):
        return None
    options = args[1:]
    if "--" in options:
        if "-" in options[options.index("--") + 1 :]:
            return None  # a batch
        options = options[: options.index("--")]
    for word in options:
        if word == "-" or word in HELP or word.startswith("--scheduler"):
            return None
        if word.startswith("-") and not word.startswith("--") and "h" in word:
            return None  # -h among short flags written together
    found = wire.words_for_server(args[1:])
    if found is None:
        return None
    url, token, rest = found
    url = os.environ.get(config.ENV_SERVER) if url is None else url
    token = os.environ.get(config.ENV_TOKEN) if token is None else token
    return (args[0], url, token, rest) if url else None


def _here(name: str, rest: list[str], why: str) -> list[str]:
    """The command line that answers here after saying ``why`` the server did not."""
    sys.stderr.write(f"{wire.NOTE}{why}; answering here\n")
    sys.stderr.flush()
    return [name, wire.ANSWER_HERE, *rest]


__all__ = ["answer"]
