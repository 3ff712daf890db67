"""What the ``npuzzle`` commands read and print (layer 7: cli): the BOARD argument's words,
one answer (with its JSON record when it failed), compact JSON lines."""

from __future__ import annotations

import json

import click

from .. import answers
from .errors import classify


def board_argument(command):
    """The BOARD argument: tiles as one or several words, or ``-`` for one board per line."""
    return click.argument("board", nargs=-1, required=True)(command)


def board_text(words: tuple[str, ...]) -> str:
    """The board given on the command line, possibly split over several arguments."""
    return " ".join(words)


def is_stdin(words: tuple[str, ...]) -> bool:
    """True when the board argument is ``-``: read one board per line from stdin."""
    return words == ("-",)


def answer_one(answer, text: str, as_json: bool) -> dict:
    """``answer(text)`` for a board given on the command line; with ``--json`` a question that
    could not be answered also prints its record before the error line goes to stderr."""
    try:
        return answer(text)
    except Exception as e:  # noqa: BLE001 - classify re-raises the unexpected
        classify(e)
        if as_json:
            click.echo(json_line(answers.error_record(text, e)))
        raise


_COMPACT = json.JSONEncoder(separators=(",", ":"))  # one encoder: json.dumps makes one a call


def json_line(obj) -> str:
    """One compact JSON object (for a line of stdout)."""
    return _COMPACT.encode(obj)


__all__ = ["answer_one", "board_argument", "board_text", "is_stdin", "json_line"]
