"""``--server URL`` (or ``$NPUZZLE_SERVER``): a command's question asked of a running
``npuzzle serve`` instead of answered here (layer 7: cli).

:func:`forwarded` wraps a command: with a server named (and no ``--scheduler``), the words the
user typed go to the server through :class:`solver.client.remote.Client`, which prints what the
server's run of the same command printed; with none named, or none answering, the command runs
here.  The option itself is the specification's (:mod:`solver.options`).
"""

from __future__ import annotations

import functools
import sys

import click

from ..client.wire import words_for_server
from .errors import notice
from .group import TYPED_WORDS
from .io import is_stdin


def forwarded(command):
    """The command's question goes to the server named by ``--server``/``$NPUZZLE_SERVER``
    (unless ``--scheduler`` names a Dask cluster), with the token of ``--token``/
    ``$NPUZZLE_TOKEN``; it runs here when none is named or none answers."""

    @functools.wraps(command)
    def wrapper(*args, server=None, token=None, **params):
        if server and not params.get("scheduler"):
            from ..client.remote import Client

            ctx = click.get_current_context()
            batch = is_stdin(params.get("board") or ())
            client = Client(server, notice, _answer_here, token)
            code = client.answer(ctx.command.name, typed_words(ctx), batch)
            if code is not None:
                sys.exit(code)
        return command(*args, **params)

    return wrapper


def _answer_here(name: str, words: list[str], piece) -> tuple[int, bytes, str]:
    """A piece of a batch answered on this machine (the server could not)."""
    from . import capture  # the command's own run: numpy loads here

    return capture.run(name, words, piece)


def typed_words(ctx: click.Context) -> list[str]:
    """The words the user gave the running command (after its name), as a server is sent
    them (:func:`solver.client.wire.words_for_server`)."""
    words = ctx.meta[TYPED_WORDS]
    found = words_for_server(words[words.index(ctx.info_name) + 1 :])
    assert found is not None, "click parsed these words, so each option has its value"
    return found[2]


__all__ = ["forwarded", "typed_words"]
