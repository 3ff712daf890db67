"""npuzzle: optimal sliding-tile puzzle solving.

The public API; each name is documented where it is defined.  Importing this package is cheap:
heavy modules (numba kernels) load only when a function that needs them is called.
"""
__version__ = "0.1.0"
