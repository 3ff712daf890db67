"""``python -m pdb_builder``: the same as the ``build-pdb`` command."""
from .cli import main

main()
