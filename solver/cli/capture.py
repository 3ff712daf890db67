"""Run an ``npuzzle`` command for a client, in a thread, and keep what it prints (layer 7: cli).

The warm path's client (``--server URL``, :mod:`solver.client`) sends a command's name and
its words as typed to a running ``npuzzle serve``, which runs the very command here -- the same
parsing, the same answers, the same messages and exit status -- with its stdout and stderr kept
for the reply.
Several run at once in threads of the server's process (the search kernels release the GIL),
so ``sys.stdout`` and ``sys.stderr`` are replaced, once, by stand-ins that write to the
running thread's own buffers (and to the real streams in any other thread).

Imports: the standard library, click, :mod:`.errors`, :mod:`.piece_input`,
:mod:`solver.client.wire` and :mod:`solver.client.pieces`.
"""

from __future__ import annotations

import io
import sys
import threading

import click

from ..client.pieces import Piece
from ..client.wire import ANSWER_HERE, FORWARDED
from .errors import forget_notices
from .piece_input import answering

# Options, by parameter name, and the word that makes each one answer here.
HERE = {"server": ANSWER_HERE, "scheduler": "--scheduler="}


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
    """The parsed options of ``npuzzle NAME ARGV`` (the words a client sent, as typed); None
    when the words do not parse -- :func:`run` with ``argv`` then says why, as the command
    would.  Only a value the words give is set for ``server`` and ``scheduler``."""
    from . import main

    _install()
    command = main.get_command(None, name)
    _LOCAL.stdout = _LOCAL.stderr = io.StringIO()  # nothing is said while parsing
    try:
        ctx = command.make_context(name, [*_answer_here(command), *argv])
    except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        return None
    finally:
        _LOCAL.stdout = _LOCAL.stderr = None
    return ctx.params


def _answer_here(command: click.Command) -> list[str]:
    """The words that make ``command`` answer on this machine, whatever the environment
    says: without them a ``$NPUZZLE_SERVER`` (the server's own, or a client's answering a
    piece itself) would send the command to a server again, and a
    ``$DASK_SCHEDULER_ADDRESS`` to a cluster.  The words after them may still say otherwise;
    the server refuses those (:mod:`solver.service.cli_runs`)."""
    names = {p.name for p in command.params}
    return [word for key, word in HERE.items() if key in names]


def run(name: str, argv: list[str], piece: Piece | None = None) -> tuple[int, bytes, str]:
    """Run ``npuzzle NAME ARGV`` (for a batch, with ``piece`` as its input) in this thread:
    ``(exit status, stdout, stderr)``."""
    from . import main

    _install()
    out, err = io.BytesIO(), io.BytesIO()
    # stdout as Python writes it to a pipe; stderr with backslashes for what is not UTF-8.
    _LOCAL.stdout = io.TextIOWrapper(out, "utf-8", "strict", newline="\n", write_through=True)
    _LOCAL.stderr = io.TextIOWrapper(
        err, "utf-8", "backslashreplace", newline="\n", write_through=True
    )
    forget_notices()  # each run says its notes
    here = _answer_here(main.get_command(None, name))
    try:
        with answering(piece):
            status = main._status(
                [name, *here, *argv],
                "npuzzle",
                {"standalone_mode": False},
                "npuzzle",
            )
        _LOCAL.stdout.flush()
        _LOCAL.stderr.flush()
        return status, out.getvalue(), err.getvalue().decode("utf-8", "backslashreplace")
    finally:
        _LOCAL.stdout = _LOCAL.stderr = None


__all__ = ["FORWARDED", "params_of", "run"]
