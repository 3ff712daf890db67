"""``python -m solver`` runs the ``npuzzle`` command."""

import signal as _signal

# Until the handlers below are in place, Ctrl-C simply ends the process (no traceback from the
# imports in between); solver.core.interrupts then takes over.
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)

from .core import interrupts  # noqa: E402

interrupts.install("npuzzle")  # before the CLI's imports: Ctrl-C at start-up is one line too

from .cli import launch  # noqa: E402

launch()
