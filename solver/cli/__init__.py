"""The ``npuzzle`` command: a thin click layer over the :mod:`solver` API.

The group lives in :mod:`.common`; each command lives in its own module and registers itself
on the group when imported below.  Signal handling comes first, before any heavy import, so
Ctrl-C during start-up is one line too (:mod:`solver.core.interrupts`).
"""
from __future__ import annotations

from ..core import interrupts

interrupts.install_if_program("npuzzle")

from .common import main_group as main  # noqa: E402

# Command modules (each adds one command to `main`).
from . import distance  # noqa: E402,F401
from . import solve  # noqa: E402,F401
from . import compare  # noqa: E402,F401
from . import check  # noqa: E402,F401
from . import generate  # noqa: E402,F401
from . import stats  # noqa: E402,F401
from . import heuristic  # noqa: E402,F401
from . import serve  # noqa: E402,F401
