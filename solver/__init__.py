"""npuzzle: optimal sliding-tile puzzle solving.

    >>> import solver
    >>> solver.distance("1 2 3/4 0 5")          # doctest: +SKIP
    1

The public names below are loaded on first use, so ``import solver`` stays cheap: a table
lookup never imports numba, and nothing imports h5py until a database is opened.
"""
__version__ = "0.1.0"

_LAZY = {
    # name: (module, attribute)
    "distance": ("api", "distance"),
    "solve": ("api", "solve"),
    "SearchOptions": ("api", "SearchOptions"),
    "distances": ("exact", "distances"),
    "Board": ("board", "Board"),
    "Shape": ("board", "Shape"),
    "BoardError": ("board", "BoardError"),
    "goal_board": ("board", "goal_board"),
    "solvability": ("board", "solvability"),
    "is_solvable": ("board", "is_solvable"),
    "Solution": ("solution", "Solution"),
    "Unsolvable": ("solution", "Unsolvable"),
    "SearchLimitReached": ("solution", "SearchLimitReached"),
    "DatabaseError": ("store", "DatabaseError"),
    "DatabaseMissing": ("store", "DatabaseMissing"),
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
