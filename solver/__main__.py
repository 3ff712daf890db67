"""``python -m solver`` runs the ``npuzzle`` command."""
from .core import interrupts

interrupts.install("npuzzle")  # before the CLI's imports: Ctrl-C at start-up is one line too

from .cli import main  # noqa: E402

main(prog_name="npuzzle")
