"""The click parameter types of the ``npuzzle`` commands' options (layer 7: cli): a data
directory (:data:`DATA_DIR`, shared with ``build-pdb``) and a number of seconds."""

from __future__ import annotations

import math

import click

from ..core.program import DATA_DIR, DataDirType


class SecondsType(click.ParamType):
    """A time limit in seconds: a finite number, zero or more (``nan``, ``inf`` and negative
    values are refused rather than meaning "no limit")."""

    name = "seconds"

    def __init__(self, positive: bool = False):
        self.positive = positive

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds < 0 or (self.positive and seconds == 0):
            least = "> 0" if self.positive else ">= 0"
            self.fail(f"{value!r} is not a finite number of seconds {least}", param, ctx)
        return seconds


SECONDS = SecondsType()
POSITIVE_SECONDS = SecondsType(positive=True)

__all__ = ["DATA_DIR", "DataDirType", "POSITIVE_SECONDS", "SECONDS", "SecondsType"]
