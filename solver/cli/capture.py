"""Run an ``npuzzle`` command for a client, in a thread, and keep what it prints (layer 7: cli).

The warm path (``--server URL``, :mod:`.remote`) sends a command's name and parsed options to
a running ``npuzzle serve``, which runs the very command here -- the same parsing, the same
answers, the same messages and exit status -- with its stdout and stderr kept for the reply.
Several run at once in threads of the server's process (the search kernels release the GIL),
so ``sys.stdout`` and ``sys.stderr`` are replaced, once, by stand-ins that write to the
running thread's own buffers (and to the real streams in any other thread).

Imports: the standard library, click and :mod:`.common`, :mod:`.pieces`, :mod:`.wire`.
"""

from __future__ import annotations

import io
import sys
import threading

import click

from . import common, pieces
from .wire import ANSWER_HERE, CLIENT_ONLY, FORWARDED


def arguments(command: click.Command, params: dict) -> list[str]:
    """The command line that gives ``command`` the option values ``params`` (its parsed
    parameters; the ones left out or at their default are not written)."""
    args, board = [], ()
    for p in command.params:
        if p.name not in params:
            continue
        value = params[p.name]
        if isinstance(p, click.Argument):
            board = tuple(value or ())
            continue
        if value is None or value == p.default:
            continue
        name = max(p.opts, key=len)  # the long spelling
        if p.is_flag:
            args.append(name if value else (p.secondary_opts or [name])[0])
        else:
            args.append(f"{name}={value}")
    return [*args, "--", *board]


class _ThreadStream:
    """Stands in for ``sys.stdout`` or ``sys.stderr``: writes go to the stream the running
    thread has set (:func:`run`), else to the real one."""

    def __init__(self, name: str, real):
        self._name, self._real = name, real

    def _target(self):
        return getattr(_LOCAL, self._name, None) or self._real

    def write(self, text):
        return self._target().write(text)

    def flush(self):
        return self._target().flush()

    @property
    def buffer(self):
        return self._target().buffer

    @property
    def encoding(self):
        return self._target().encoding

    @property
    def errors(self):
        return self._target().errors

    def isatty(self) -> bool:
        return self._target().isatty()

    def __getattr__(self, name):
        return getattr(self._target(), name)


_LOCAL = threading.local()
_INSTALL = threading.Lock()


def _install() -> None:
    with _INSTALL:
        for name in ("stdout", "stderr"):
            if not isinstance(getattr(sys, name), _ThreadStream):
                setattr(sys, name, _ThreadStream(name, getattr(sys, name)))


def params_of(name: str, argv: list[str]) -> dict | None:
    """The parsed options of ``npuzzle NAME ARGV`` (the command line as a client typed it:
    :mod:`.quick`), without the client's own (``--server``, ``--scheduler``); None when the
    words do not parse -- :func:`run` with ``argv`` then says why, as the command would."""
    from . import main

    _install()
    command = main.get_command(None, name)
    _LOCAL.stdout = _LOCAL.stderr = io.StringIO()  # nothing is said while parsing
    try:
        ctx = command.make_context(name, list(argv))
    except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        return None
    finally:
        _LOCAL.stdout = _LOCAL.stderr = None
    return {k: v for k, v in ctx.params.items() if k not in CLIENT_ONLY}


def run(
    name: str, params: dict | None, piece: pieces.Piece | None = None, argv=None
) -> tuple[int, bytes, str]:
    """Run ``npuzzle NAME`` with ``params`` (or, with ``params`` None, the words ``argv``; and
    for a batch ``piece`` as its input) in this thread: ``(exit status, stdout, stderr)``."""
    from . import main

    _install()
    command = main.get_command(None, name)
    if params is not None:
        argv = arguments(command, params)
    out, err = io.BytesIO(), io.BytesIO()
    # stdout as Python writes it to a pipe; stderr with backslashes for what is not UTF-8.
    _LOCAL.stdout = io.TextIOWrapper(out, "utf-8", "strict", newline="\n", write_through=True)
    _LOCAL.stderr = io.TextIOWrapper(
        err, "utf-8", "backslashreplace", newline="\n", write_through=True
    )
    common._SAID.clear()  # each run says its notes
    try:
        with pieces.answering(piece):
            # What runs here runs here: without ANSWER_HERE a `$NPUZZLE_SERVER` in the
            # environment (the server's, or a client's answering a piece itself) would send
            # the command to a server again -- a client's batch then read the stdin it had
            # already read, and answered nothing.
            status = main._status(
                [name, ANSWER_HERE, *argv],
                "npuzzle",
                {"standalone_mode": False},
                "npuzzle",
            )
        _LOCAL.stdout.flush()
        _LOCAL.stderr.flush()
        return status, out.getvalue(), err.getvalue().decode("utf-8", "backslashreplace")
    finally:
        _LOCAL.stdout = _LOCAL.stderr = None


__all__ = ["FORWARDED", "arguments", "params_of", "run"]
