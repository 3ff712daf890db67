"""The words a one-line message starts with (layer 0: core).

Every line that says a question could not be answered starts with one of these prefixes,
written here only: the CLI's stderr (``npuzzle: error: ...``), a batch's text line
(``error: ...``) and ``build-pdb`` compose them with :func:`prefixed`.  JSON records and the
service's bodies carry the text without a prefix: their ``status`` key says what kind of
failure it is.

A message that tells the user to give an option names it in the words of the front end the
question came through: ``--shape ROWSxCOLS`` on the command line, ``shape='ROWSxCOLS'`` in a
Python call.  The layer that raises the message says which option it means
(:func:`option`); the front end says, where its questions arrive, how it spells options
(:func:`speaking`).  Without one, the words are the library's own: its functions'
keyword arguments.

Imports: the standard library.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

ERROR = "error"  # bad input, a missing database, a file that cannot be read
LIMIT = "limit"  # a node, time or memory cap stopped the work


def prefixed(prefix: str, text: str) -> str:
    """``text`` as the line of its kind: ``error: text``; no prefix leaves it as it is."""
    return f"{prefix}: {text}" if prefix else text


# How an option is named: (its name in solver.options, a value or None) -> the words.
Wording = Callable[[str, "str | None"], str]


def keyword_argument(name: str, value: str | None = None) -> str:
    """An option as a Python call gives it: ``shape='3x4'``; without a value, ``the shape
    argument``."""
    return f"{name}={value!r}" if value is not None else f"the {name} argument"


# A context variable rather than a global: `npuzzle serve` answers the command lines of its
# clients in threads beside its own requests, each in its own front end's words.
_wording: contextvars.ContextVar[Wording] = contextvars.ContextVar(
    "npuzzle_wording", default=keyword_argument
)


def option(name: str, value: str | None = None) -> str:
    """Option ``name`` (``shape``, ``max_nodes``: its name in :mod:`solver.options`), given
    ``value`` if one is shown, in the words of the front end now speaking."""
    return _wording.get()(name, value)


@contextlib.contextmanager
def speaking(wording: Wording) -> Iterator[None]:
    """Within the block, messages name options with ``wording``; the front end's words
    before it come back after."""
    token = _wording.set(wording)
    try:
        yield
    finally:
        _wording.reset(token)


__all__ = ["ERROR", "LIMIT", "Wording", "keyword_argument", "option", "prefixed", "speaking"]
