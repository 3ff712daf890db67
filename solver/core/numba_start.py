"""Loading numba's CPU target with less than it loads by default (layer 0: core).

The first compiled (or cached) kernel a process runs makes numba load its CPU target: its
typing and lowering registries for all of NumPy (most of numba's start-up).  On the way it
also imports things the kernels never use:

* ``scipy`` when numba is imported, only to check its version, and ``scipy.linalg``
  (0.3-0.4 s) when the target loads, only to find out whether ``np.dot`` may call BLAS;
* ``cffi``, to support calling C functions declared through it;
* every installed package's ``numba_extensions`` entry point, found by scanning the metadata
  of all installed distributions.

:func:`import_numba` and :func:`load_cpu_target` hide the first two for that moment (numba
then records "no BLAS" and "no cffi" for this process; the modules are importable again right
after) and skip the scan; then it moves numba's objects out of the garbage collector's way
(:func:`gc.freeze`: a third of a one-board solve's CPU time went to collections at exit).  ``NPUZZLE_NUMBA_BLAS=1`` lets numba import scipy as usual; ``NPUZZLE_NUMBA_EXTENSIONS=1``
lets it load extensions (cffi included).

Imports: numba, only when called.
"""
from __future__ import annotations

import gc
import sys

from . import config

_LOADED = False


def import_numba() -> None:
    """Import numba without letting it import scipy (call before ``import numba``)."""
    if "numba" in sys.modules:
        return
    hidden = "scipy" not in sys.modules and not config.env_flag(config.ENV_NUMBA_BLAS, False)
    if hidden:
        sys.modules["scipy"] = None
    try:
        import numba  # noqa: F401
    finally:
        if hidden and sys.modules.get("scipy", 0) is None:
            del sys.modules["scipy"]


def load_cpu_target() -> None:
    """Load numba's CPU target (once per process) without scipy, cffi or extension scans."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import_numba()
    hide = []
    if "scipy" not in sys.modules and not config.env_flag(config.ENV_NUMBA_BLAS, False):
        hide.append("scipy")
    extensions = config.env_flag(config.ENV_NUMBA_EXTENSIONS, False)
    if not extensions and "cffi" not in sys.modules:
        hide.append("cffi")
    import numba.core.entrypoints
    from numba.core.registry import cpu_target

    if not extensions:
        numba.core.entrypoints._already_initialized = True  # no scan for numba_extensions
    for name in hide:
        sys.modules[name] = None  # makes `import name` raise ImportError
    try:
        cpu_target.target_context.refresh()
    finally:
        for name in hide:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    # numba's hundreds of thousands of objects live as long as the process: leave them out of
    # every later garbage collection -- including those at exit, which would otherwise spend
    # about 0.2 s walking them after the answer is printed.
    gc.freeze()
