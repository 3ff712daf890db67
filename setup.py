"""The optional C extension of the IDA* kernels (everything else is in pyproject.toml).

``solver.search._kernels_c`` is built from ``solver/search/native_kernels.c`` at install time
(``pip install``, ``pip install -e .``), with the source's CRC-32 compiled in so that
:mod:`solver.search.native` can tell a module built from another version of the source.  The
extension is optional: without a C compiler the install succeeds and the search runs on numba's
JIT (docs/search.md, "How the kernels are compiled")."""

import zlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = Path("solver/search/native_kernels.c")
DIGEST = f"{zlib.crc32(SOURCE.read_bytes()):08x}"  # as solver.search.native.source_digest

setup(
    ext_modules=[
        Extension(
            "solver.search._kernels_c",
            sources=[str(SOURCE)],
            define_macros=[("NPUZZLE_KERNELS_DIGEST", f'"{DIGEST}"')],
            # -g0: Python's own flags ask for debug information, a quarter of the compile
            extra_compile_args=["-O3", "-g0", "-std=c99", "-Wall", "-Wno-unused-function"],
            optional=True,
        )
    ]
)
