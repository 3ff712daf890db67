"""Ctrl-C, SIGTERM and a closed output pipe, for the command-line programs (layer 0: core).

``npuzzle`` and ``build-pdb`` call :func:`install_if_program` as the very first thing their
package does (``solver/cli/__init__.py``, ``pdb_builder/__init__.py``), before click, numpy or
h5py are imported, so a signal at any moment from the program's first line on ends the
program with one line on stderr and the conventional status: 130 for SIGINT, 143 for SIGTERM
(128 + the signal's number), 141 when the reader of our output went away (``| head -1``).

Two phases:

* **starting up or shutting down** (outside :func:`command`): nothing to clean up, so the
  handler writes its line and leaves at once (``os._exit``) -- a ``KeyboardInterrupt`` raised
  inside an import would otherwise end in a traceback;
* **while a command runs** (inside :func:`command`): the handler raises :class:`Interrupted`
  in the main thread, so every ``finally`` and ``except BaseException`` on the way up runs
  (a build removes its temporary file).  It is deliberately not a ``KeyboardInterrupt``:
  click and some libraries treat that one specially (click prints an empty line first).
  A second signal, or one that arrives while the first is being handled, leaves at once,
  removing the files registered with :func:`temporary`.

An exception raised by a signal handler is printed ("Exception ignored ...", with a traceback)
and lost when the signal lands inside a finaliser (``__del__``) or a callback from C (through
ctypes); such a signal is raised a moment later, from
a SIGALRM, once the program is back in its own code.  It is also remembered, and
:func:`check` re-raises it (a build calls it before renaming its file into place; the programs
call it when the command is over, so such a signal is still reported).  When the command is
over, both signals are ignored: a late signal cannot turn a finished answer into a crash
during the interpreter's shutdown.

Library users are untouched: nothing is installed unless the program is ``npuzzle`` or
``build-pdb`` (tests that call the CLI in-process keep Python's usual ``KeyboardInterrupt``).

Imports: the standard library only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE  # 141: what a shell reports for `yes | head -1`
SIGNALS = (signal.SIGINT, signal.SIGTERM)
PROGRAMS = ("npuzzle", "build-pdb")
# What the interrupted line adds, by program: a build's atomic write leaves nothing behind.
NOTES = {"build-pdb": "; no partial file was left behind"}
MAIN_MODULES = ("solver.__main__", "pdb_builder.__main__")


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived while a command ran; ``code`` is the exit status to use."""

    def __init__(self, signum: int):
        super().__init__(describe(signum))
        self.signum = signum
        self.code = 128 + signum


def describe(signum: int) -> str:
    """``interrupted`` (SIGINT) or ``terminated`` (SIGTERM and the rest)."""
    return "interrupted" if signum == signal.SIGINT else "terminated"


_state = {"program": None, "running": False, "pending": None, "note": ""}
_temporaries: set[str] = set()


def installed() -> bool:
    """True when this process is one of the programs and the handlers are in place."""
    return _state["program"] is not None


def install(program: str) -> None:
    """Put the handlers in place for ``program`` (its name starts the one-line message, and
    its entry in :data:`NOTES` ends the interrupted one)."""
    first = not installed()
    _state["program"], _state["note"] = program, NOTES.get(program, "")
    for sig in SIGNALS:
        signal.signal(sig, _handler)
    signal.signal(signal.SIGALRM, _on_alarm)
    if first:
        os.register_at_fork(after_in_child=_in_forked_child)


def install_if_program(program: str) -> bool:
    """:func:`install` when this process was started as ``npuzzle``/``build-pdb`` (the console
    scripts or ``python -m solver`` / ``python -m pdb_builder``); return whether the handlers
    are in place.  The first program to install keeps its name (``build-pdb`` imports a module
    of ``npuzzle``'s)."""
    if installed():
        return True
    main = sys.modules.get("__main__")
    if getattr(main, "__name__", None) != "__main__":
        return False  # a spawned worker re-importing the program as __mp_main__
    spec = getattr(main, "__spec__", None)
    script = os.path.basename(getattr(main, "__file__", None) or "")
    if script in PROGRAMS or (spec is not None and spec.name in MAIN_MODULES):
        install(program)
        return True
    return False


def _in_forked_child() -> None:
    # A forked worker (the batch pool) leaves Ctrl-C to its parent, which stops the pool,
    # and dies quietly when the parent terminates it.
    _state["program"] = None
    _state["running"] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _handler(signum, frame):
    first = _state["pending"] is None
    _state["pending"] = signum
    if not (_state["running"] and first):
        leave_now(signum)
    _raise_when_safe(frame)


# Where an exception raised by the handler would be printed as "Exception ignored ..." (with
# a traceback) and then lost: finalisers, weakref callbacks (weakref.py's, and the import
# system's module-lock callback), and ctypes callbacks.  A signal landing there is raised a
# moment later instead.
_UNSAFE_FUNCTIONS = ("__del__",)
_UNSAFE_FILES = (
    f"{os.sep}weakref.py",
    f"{os.sep}ctypes{os.sep}",
    "<frozen importlib._bootstrap",
)
RETRY_SECONDS = 0.02


def _safe(frame) -> bool:
    """True when an exception raised in ``frame`` reaches the command's code."""
    depth = 0
    while frame is not None and depth < 200:
        code = frame.f_code
        if code.co_name in _UNSAFE_FUNCTIONS or any(f in code.co_filename for f in _UNSAFE_FILES):
            return False
        frame, depth = frame.f_back, depth + 1
    return True


def _raise_when_safe(frame) -> None:
    if _safe(frame):
        raise Interrupted(_state["pending"])
    signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)  # SIGALRM: _on_alarm tries again


def _on_alarm(signum, frame):
    if _state["running"] and _state["pending"] is not None:
        _raise_when_safe(frame)


def message(signum: int) -> str:
    """The one line said for ``signum``."""
    note = _state["note"] if signum == signal.SIGINT else ""
    return f"{_state['program'] or 'npuzzle'}: {describe(signum)}{note}"


def leave_now(signum: int) -> None:
    """Remove the registered temporary files, say one line and exit with 128 + ``signum``
    at once (no further Python code runs)."""
    for path in list(_temporaries):
        with contextlib.suppress(OSError):
            os.unlink(path)
    start_line()
    with contextlib.suppress(OSError):
        os.write(2, (message(signum) + "\n").encode(errors="replace"))
    os._exit(128 + signum)


def drawn_bars():
    """:class:`solver.core.progress_bar.ProgressBar` when one of its bars is drawn on stderr
    now, else None; the module is never imported for this."""
    bars = sys.modules.get("solver.core.progress_bar")
    # A signal can land while that module is still being imported (it imports tqdm first):
    # it is in sys.modules then, without ProgressBar, and no bar of it can have been drawn.
    cls = getattr(bars, "ProgressBar", None)
    return cls if getattr(cls, "drawn", None) else None


def start_line() -> None:
    """End the unfinished line of a progress bar that a signal left open on stderr, so that
    the line said next stands on its own."""
    if drawn_bars() is not None:
        # The bar's text may still sit in sys.stderr's buffer: out first, then the newline.
        with contextlib.suppress(Exception):  # a stream busy in the interrupted code
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            os.write(2, b"\n")


@contextlib.contextmanager
def command():
    """The span in which signals raise :class:`Interrupted` (see the module's docstring).
    On leaving it, SIGINT and SIGTERM are ignored for the rest of the process's life."""
    if not installed():
        yield
        return
    _state["running"] = True
    try:
        yield
    finally:
        _state["running"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        # Ignored, not blocked: a mask is per thread, and a late signal delivered to a native
        # thread (a library's workers) after the interpreter put back the default action would
        # kill the process (exit -2) after its answer.  Python leaves ignored signals as they
        # are when it shuts down.
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)


def check() -> None:
    """Raise :class:`Interrupted` if a signal arrived whose exception was lost on the way."""
    if _state["pending"] is not None:
        raise Interrupted(_state["pending"])


def pending() -> int | None:
    """The signal received so far, if any."""
    return _state["pending"]


def handled() -> None:
    """The command dealt with the signal itself (a server stopping on Ctrl-C): forget it, so
    that it is not reported as an interruption."""
    _state["pending"] = None


@contextlib.contextmanager
def temporary(path):
    """Register ``path`` as a temporary file to delete should the process have to leave at
    once (the usual cleanup runs in ``finally`` blocks; this covers a second Ctrl-C)."""
    key = os.fspath(path)
    _temporaries.add(key)
    try:
        yield path
    finally:
        _temporaries.discard(key)


def finish(status: int) -> None:
    """End the process with ``status`` once its command is done, without the interpreter's
    teardown.  The ``npuzzle`` program's entry point calls it after its command returned
    (:func:`solver.cli.launch`): by then every file the command wrote is closed and its
    workers are joined, and what is left -- numpy, tables mapped or read, idle daemon threads
    -- needs no goodbye, while taking it down costs a tenth of a lookup's time and a fifth of
    a batch's over the 7-8 database (docs/research/end-to-end.md, "Leaving without the
    teardown").  Only stdout and stderr are flushed; a reader gone away is 141, as ever."""
    try:
        gone = flush_stdout()
    except (OSError, ValueError) as e:  # a full disk: said, where Python would have said it
        with contextlib.suppress(OSError):
            os.write(2, f"{_state['program'] or 'npuzzle'}: error: {e}\n".encode())
        status = status or 1
    else:
        status = status if gone is None else gone
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(status)


def flush_stdout() -> int | None:
    """Flush stdout: None once done, or the status 141 where no one reads it -- a reader gone
    away, or stdout closed from the start (``>&-``: click then writes nothing)."""
    if sys.stdout is None:
        return quiet_broken_pipe()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return quiet_broken_pipe()
    return None


def quiet_broken_pipe() -> int:
    """After the reader of stdout went away: point stdout at /dev/null so that the final
    flush cannot complain, and return the status to exit with (141)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_BROKEN_PIPE


__all__ = [
    "Interrupted",
    "drawn_bars",
    "install",
    "install_if_program",
    "installed",
    "command",
    "check",
    "pending",
    "handled",
    "temporary",
    "leave_now",
    "quiet_broken_pipe",
    "finish",
    "flush_stdout",
    "describe",
    "message",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "EXIT_BROKEN_PIPE",
    "NOTES",
]
