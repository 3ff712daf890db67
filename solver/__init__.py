"""npuzzle: optimal sliding-tile puzzle solving.

    >>> import solver
    >>> solver.distance("1 2 3/4 0 5")          # doctest: +SKIP
    1

The public names below are loaded on first use, so ``import solver`` stays cheap: nothing
imports h5py until a database is opened.
"""

__version__ = "0.2.0"  # CHANGELOG.md says what changed

_LAZY = {
    # name: (module, attribute)
    "distance": ("api", "distance"),
    "solve": ("api", "solve"),
    "SearchOptions": ("api", "SearchOptions"),
    "distances": ("tables.exact", "distances"),
    "Board": ("core.board", "Board"),
    "Shape": ("core.board", "Shape"),
    "BoardError": ("core.board", "BoardError"),
    "goal_board": ("core.board", "goal_board"),
    "solvability": ("core.board", "solvability"),
    "is_solvable": ("core.board", "is_solvable"),
    "Solution": ("core.solution", "Solution"),
    "Unsolvable": ("core.solution", "Unsolvable"),
    "SearchLimitReached": ("core.solution", "SearchLimitReached"),
    "DatabaseError": ("tables.store", "DatabaseError"),
    "DatabaseMissing": ("tables.store", "DatabaseMissing"),
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'solver' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
