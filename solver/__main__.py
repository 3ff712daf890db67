"""``python -m solver`` runs the ``npuzzle`` command."""
from .cli import main

main()
