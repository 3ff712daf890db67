"""``python -m pdb_builder``: the same as the ``build-pdb`` command."""

import signal as _signal

# Until the handlers below are in place, Ctrl-C simply ends the process (no traceback from the
# imports in between); solver.core.interrupts then takes over.
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)

from solver.core import interrupts  # noqa: E402

interrupts.install("build-pdb")  # before heavy imports

from .cli import main  # noqa: E402

main(prog_name="build-pdb")
