"""The words a one-line message starts with (layer 0: core).

Every line that says a question could not be answered starts with one of these prefixes,
written here only: the CLI's stderr (``npuzzle: error: ...``), a batch's text line
(``error: ...``) and ``build-pdb`` compose them with :func:`prefixed`.  JSON records and the
service's bodies carry the text without a prefix: their ``status`` key says what kind of
failure it is.

Imports: nothing.
"""

from __future__ import annotations

ERROR = "error"  # bad input, a missing database, a file that cannot be read
LIMIT = "limit"  # a node, time or memory cap stopped the work


def prefixed(prefix: str, text: str) -> str:
    """``text`` as the line of its kind: ``error: text``; no prefix leaves it as it is."""
    return f"{prefix}: {text}" if prefix else text


__all__ = ["ERROR", "LIMIT", "prefixed"]
