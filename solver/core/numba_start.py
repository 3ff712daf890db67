"""Starting numba's JIT with only what loading cached kernels needs (layer 0: core).

The everyday searches run kernels compiled at install (:mod:`solver.search.native`) and never
import numba.  Numba's JIT is what the builder, the blind searches, the exact BFS in memory,
the research switches and a machine without the compiled module run, and a command of theirs
often loads kernels that numba compiled on an earlier run and cached on disk.  By default
numba pays for much more than loading them:

* importing numba imports ``scipy`` (only to check its version) and PyYAML (to read a
  ``.numba_config.yaml`` that usually is not there);
* loading a cached kernel first loads the whole CPU target -- the typing and lowering
  registries for all of Python and NumPy, about 0.15 s -- although a cached kernel is machine
  code that needs none of them; on the way it imports ``scipy.linalg`` (to learn whether
  ``np.dot`` may call BLAS) and ``cffi``;
* at exit, the garbage collector walks numba's hundreds of thousands of objects again (about
  0.2 s after the answer is printed).

:func:`import_numba` imports numba without scipy (and without PyYAML where the working
directory has no numba configuration file), and teaches numba's cache to load a kernel with
only the runtime it links against; the full target is loaded -- with scipy and cffi left
out -- only when a kernel must really be compiled (a cache miss, or the first run).  After a
kernel loads, :func:`gc.freeze` moves the long-lived objects out of the collector's way.  A
cached kernel's index written by an earlier release, which names classes that have since
moved, is a cache miss rather than an error.  ``NPUZZLE_NUMBA_BLAS=1`` lets numba import scipy
as usual; ``NPUZZLE_NUMBA_EXTENSIONS=1`` lets it load cffi.

Not all of what it replaces is numba's public interface (:data:`ASSUMED` lists it).  Where
the installed numba lacks any of it, numba is used as it comes -- slower to start, the same
answers -- and a test names what changed.  Nothing here runs where the compiled kernels
serve a command.

Imports: numba (only when called).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import sys

from . import config

_PATCHED = False


def import_numba() -> None:
    """Import numba (once) without scipy, and make its cache loads lean -- where numba is
    as this module expects (:func:`missing_assumptions`); numba as it comes otherwise."""
    global _PATCHED
    if "numba" not in sys.modules:
        _import_without_extras()
    if not _PATCHED:
        _PATCHED = True
        if not missing_assumptions():
            _lean_cache_loads()


def _import_without_extras() -> None:
    try:
        hide = (["scipy"] if _hide_scipy() else []) + ([] if _numba_config_file() else ["yaml"])
        with _hidden(hide):
            import numba  # noqa: F401
    except Exception:  # noqa: BLE001 - a numba that needs more of either: import it whole
        for name in [m for m in sys.modules if m == "numba" or m.startswith("numba.")]:
            del sys.modules[name]
        import numba  # noqa: F401


# The parts of numba, not all of them public, that the lean start replaces or calls, by
# module: numba may change any of them in a release, and then the lean start steps aside.
ASSUMED = {
    "numba.core.caching": [
        "IndexDataCacheFile._load_index",
        "Cache.load_overload",
        "Cache._load_overload",
        "Cache._guard_against_spurious_io_errors",
    ],
    "numba.core.compiler": ["CompilerBase.__init__"],
    "numba.core.runtime": ["rtsys.initialize"],
    "numba.core.base": ["BaseContext.refresh"],
}


def missing_assumptions() -> list[str]:
    """What of :data:`ASSUMED` the installed numba lacks (``module:name``); empty when the
    lean start applies.  A test states that it is empty, so a numba that changed fails a
    test rather than a search."""
    import importlib

    missing = []
    for module, names in ASSUMED.items():
        try:
            found = importlib.import_module(module)
        except ImportError:
            missing += [f"{module}:{name}" for name in names]
            continue
        for name in names:
            obj = found
            for part in name.split("."):
                obj = getattr(obj, part, None)
            if obj is None:
                missing.append(f"{module}:{name}")
    return missing


def _extensions() -> bool:
    return config.env_flag(config.ENV_NUMBA_EXTENSIONS, False)


def _numba_config_file() -> bool:
    """Whether numba has a configuration file to read: ``.numba_config.yaml`` in the working
    directory, which numba reads with PyYAML where it is installed.  Where there is none, numba
    imports PyYAML for nothing (10-20 ms), so the lean start hides it."""
    return os.path.isfile(".numba_config.yaml")


def _hide_scipy() -> bool:
    return "scipy" not in sys.modules and not config.env_flag(config.ENV_NUMBA_BLAS, False)


@contextlib.contextmanager
def _hidden(names: list):
    """``import name`` raises ImportError for these modules while the block runs."""
    names = [n for n in names if n not in sys.modules]
    for name in names:
        sys.modules[name] = None
    try:
        yield
    finally:
        for name in names:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def _full_refresh(target_context) -> None:
    """Numba's full CPU target, without scipy or cffi (unless asked)."""
    hide = (["scipy"] if _hide_scipy() else []) + ([] if _extensions() else ["cffi"])
    with _hidden(hide):
        target_context.refresh()


def _stale_index_is_a_miss(index_file) -> None:
    """A cached kernel's index that no longer unpickles is a cache miss, as a missing one is.

    The index pickles the kernel's argument types, and with them the classes of the named
    tuples a kernel takes, by module and name.  Once a release moves such a class to another
    module, numba would fail to unpickle the index of the release before -- before it even
    compares the source's stamp, which would have found it stale -- and every search would end
    in an AttributeError.  A miss compiles the kernel again and writes a fresh index."""
    original = index_file._load_index

    def load_index(self):
        try:
            return original(self)
        except (AttributeError, ImportError, EOFError, pickle.UnpicklingError):
            return {}

    index_file._load_index = load_index


def _lean_cache_loads() -> None:
    from numba.core import caching, compiler

    def load_overload(self, sig, target_context):
        """A cached kernel needs the runtime it links against, not the registries."""
        try:
            from numba.core.runtime import rtsys

            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                cres = self._load_overload(sig, target_context)
                if cres is not None:
                    gc.freeze()
                    return cres
        except Exception:  # noqa: BLE001 - anything odd: load it the way numba would
            pass
        _full_refresh(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    caching.Cache.load_overload = load_overload
    _stale_index_is_a_miss(caching.IndexDataCacheFile)
    # A kernel that must be compiled refreshes the target itself: leave scipy and cffi out.
    original = compiler.CompilerBase.__init__

    def init(self, typingctx, targetctx, *args, **kwargs):
        _full_refresh(targetctx)
        original(self, typingctx, targetctx, *args, **kwargs)

    compiler.CompilerBase.__init__ = init
