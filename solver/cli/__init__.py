"""The ``npuzzle`` command: a thin click layer over the :mod:`solver` API.

The group lives in :mod:`.common`; each command lives in its own module and registers itself
on the group when imported below.
"""
from __future__ import annotations

from .common import main_group as main

# Command modules (each adds one command to `main`).
from . import distance  # noqa: E402,F401
from . import solve  # noqa: E402,F401
from . import compare  # noqa: E402,F401
from . import check  # noqa: E402,F401
from . import generate  # noqa: E402,F401
from . import stats  # noqa: E402,F401
from . import heuristic  # noqa: E402,F401
from . import serve  # noqa: E402,F401
