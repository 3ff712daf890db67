"""``python -m pdb_builder``: the same as the ``build-pdb`` command."""
from solver.core import interrupts

interrupts.install("build-pdb", "; no partial file was left behind")  # before heavy imports

from .cli import main  # noqa: E402

main(prog_name="build-pdb")
