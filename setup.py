"""The optional C extension of the IDA* kernels (everything else is in pyproject.toml).

``solver.search._kernels_c`` is built from the C sources in ``solver/search`` at install time
(``pip install``, ``pip install -e .``), with their CRC-32 compiled in so that
:mod:`solver.search.native` can tell a module built from another version of them.  The
extension is optional: without a C compiler the install succeeds and the search runs on numba's
JIT (docs/search.md, "How the kernels are compiled").  Its sources are compiled at once, one
process each, on as many cores as there are (the instances of the walk are most of the compile).
"""

import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# as solver.search.native.source_digest: the CRC-32 of the sources and headers, by name
FILES = sorted(Path("solver/search").glob("native_*.[ch]"))  # as native.is_source
DIGEST = f"{zlib.crc32(b''.join(f.read_bytes() for f in FILES)):08x}"
ENGINE = sorted(Path("solver/engine").glob("*.[ch]"))  # as solver.engine.is_engine_source
ENGINE_DIGEST = f"{zlib.crc32(b''.join(f.read_bytes() for f in ENGINE)):08x}"
FLAGS = ["-O3", "-g0", "-std=c99", "-Wall", "-Wno-unused-function"]


class BuildExtAtOnce(build_ext):
    """build_ext that compiles an extension's sources in parallel, a thread waiting on each
    compiler process; linking, flags and the optional-extension rule are build_ext's own."""

    def build_extension(self, ext):
        compile_all = self.compiler.compile

        def compile_at_once(sources, *args, **kwargs):
            workers = min(len(sources), os.cpu_count() or 1)
            with ThreadPoolExecutor(max(workers, 1)) as pool:
                done = pool.map(lambda s: compile_all([s], *args, **kwargs), sources)
                return [obj for objects in done for obj in objects]

        self.compiler.compile = compile_at_once
        try:
            super().build_extension(ext)
        finally:
            del self.compiler.compile  # the class's own again


setup(
    cmdclass={"build_ext": BuildExtAtOnce},
    ext_modules=[
        Extension(
            "solver.search._kernels_c",
            sources=[str(f) for f in FILES if f.suffix == ".c"],
            depends=[str(f) for f in FILES if f.suffix == ".h"],
            define_macros=[("NPUZZLE_KERNELS_DIGEST", f'"{DIGEST}"')],
            # -g0: Python's own flags ask for debug information, a quarter of the compile
            extra_compile_args=FLAGS,
            optional=True,
        ),
        Extension(
            "solver.engine._engine",
            sources=[str(f) for f in ENGINE if f.suffix == ".c"],
            depends=[str(f) for f in ENGINE if f.suffix == ".h"],
            define_macros=[("NPUZZLE_ENGINE_DIGEST", f'"{ENGINE_DIGEST}"')],
            extra_compile_args=FLAGS,
            optional=True,
        ),
    ],
)
