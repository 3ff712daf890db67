"""The C extension, npuzzle's engine (everything else is in pyproject.toml).

``solver.engine._engine`` is built from the C sources in ``solver/engine`` at install time
(``pip install``, ``pip install -e .``, ``pip wheel .``), with their CRC-32 compiled in so that
:mod:`solver.engine` can tell a module built from another version of them.  A source install
needs a C compiler; without one it stops with one sentence saying what to install.  A wheel
carries the built module and needs none.  The sources are compiled at once, one process each,
on as many cores as there are (the instances of the search's walk are most of the compile).
"""

import os
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, CompileError, ExecError, LinkError

# as solver.engine.source_digest: the CRC-32 of the sources and headers, by name
SOURCES = sorted(Path("solver/engine").glob("*.[ch]"))  # as solver.engine.is_source
DIGEST = f"{zlib.crc32(b''.join(f.read_bytes() for f in SOURCES)):08x}"
NO_COMPILER = (
    "npuzzle's engine is C and this source install found no working C compiler: install one "
    "(Debian or Ubuntu: apt-get install gcc; Fedora: dnf install gcc; macOS: "
    "xcode-select --install; Windows: the Build Tools for Visual Studio) and install again"
)


class BuildEngine(build_ext):
    """build_ext that first checks that a C compiler works (else one sentence says what to
    install) and then compiles an extension's sources in parallel, a thread waiting on each
    compiler process; linking and flags are build_ext's own."""

    def build_extension(self, ext):
        self._check_compiler()
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

    def _check_compiler(self) -> None:
        """Compile an empty C file: where that fails, no error of npuzzle's sources is the
        cause, and the install stops with :data:`NO_COMPILER`."""
        with tempfile.TemporaryDirectory() as tmp:
            probe = Path(tmp, "probe.c")
            probe.write_text("int npuzzle_probe(void) { return 0; }\n")
            try:
                self.compiler.compile([str(probe)], output_dir=tmp)
            except (CCompilerError, CompileError, ExecError, LinkError, OSError):
                raise SystemExit(f"error: {NO_COMPILER}") from None


setup(
    cmdclass={"build_ext": BuildEngine},
    ext_modules=[
        Extension(
            "solver.engine._engine",
            sources=[str(f) for f in SOURCES if f.suffix == ".c"],
            depends=[str(f) for f in SOURCES if f.suffix == ".h"],
            define_macros=[("NPUZZLE_ENGINE_DIGEST", f'"{DIGEST}"')],
            # -g0: Python's own flags ask for debug information, a quarter of the compile
            extra_compile_args=["-O3", "-g0", "-std=c99", "-Wall", "-Wno-unused-function"],
        ),
    ],
)
