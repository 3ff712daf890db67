"""Shared fixtures: databases built once per test session into temporary directories.

Tests never touch the real data directory: each fixture points NPUZZLE_DATA-free code at its
own ``--data-dir``.  Expensive tests are marked ``slow`` and run only with ``--slow``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.core.board import Shape


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False, help="run slow tests too")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: expensive test, run with --slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_data_dir(monkeypatch, tmp_path_factory):
    """No test reads or writes the developer's data/ by accident: $NPUZZLE_DATA names an empty
    directory (one that does not exist would be refused, as a mistyped name)."""
    empty = tmp_path_factory.getbasetemp() / "no-databases-here"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("NPUZZLE_DATA", str(empty))


@pytest.fixture(scope="session")
def exact_dir(tmp_path_factory):
    """A data directory holding the exact 2x3 and 3x3 tables (built once, ~1 s)."""
    from pdb_builder.build import build_exact

    d = tmp_path_factory.mktemp("exact")
    for shape in ("2x3", "3x3"):
        build_exact(Shape.parse(shape), d, progress=False)
    return d


@pytest.fixture(scope="session")
def pdb_dir(tmp_path_factory):
    """A data directory with the 3x3 4-4 and 3-3-2 databases and the 4x4 5-5-5 one (~2 s)."""
    from pdb_builder.build_apdb import build_apdb

    d = tmp_path_factory.mktemp("apdb")
    build_apdb("3x3", "4-4", None, d, progress=False)
    build_apdb("3x3", "1,4,7/2,5,8/3,6", None, d, progress=False)
    build_apdb("4x4", "5-5-5", None, d, progress=False)
    return d


@pytest.fixture(scope="session")
def twin_dir(tmp_path_factory):
    """The 4x4 5-5-5 database and its zero-aware twin (a few seconds): what a 15-puzzle search
    reads where the strongest set is built, in small."""
    from pdb_builder.build_apdb import build_apdb
    from pdb_builder.zero_aware import build_zero_aware

    d = tmp_path_factory.mktemp("twin")
    build_apdb("4x4", "5-5-5", None, d, progress=False)
    build_zero_aware("4x4", "5-5-5", None, d, progress=False)
    return d


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory):
    """Exact 2x3 and 3x3 tables, the 3x3 4-4 and the 4x4 5-5-5 pattern databases in one data
    directory (about two seconds): every kind of table a batch command reads."""
    from pdb_builder.build import build_exact
    from pdb_builder.build_apdb import build_apdb

    d = tmp_path_factory.mktemp("tables")
    for shape in ("2x3", "3x3"):
        build_exact(Shape.parse(shape), d, progress=False)
    build_apdb("3x3", "4-4", None, d, progress=False)
    build_apdb("4x4", "5-5-5", None, d, progress=False)
    return d


@pytest.fixture
def run_cli():
    """Invoke the npuzzle CLI in-process: run_cli(args, input=None) -> click Result."""
    from solver.cli import main

    runner = CliRunner()

    def run(args, input=None, env=None):
        return runner.invoke(
            main, [str(a) for a in args], input=input, env=env, catch_exceptions=True
        )

    return run


REFERENCE_DIR = Path(__file__).resolve().parent.parent / "data"


def reference_file(name: str) -> Path:
    """A small reference file committed in data/ (korf100.txt, hardest80.txt, ...)."""
    return REFERENCE_DIR / name


# A line of `python -X importtime` (its header too): the module's name last.
IMPORT_TIME = re.compile(rb"^import time: +(?:\d+|self \[us\]) \| +\w+ \| +(.+)\n", re.M)


def imports_said(stderr: bytes) -> tuple[bytes, set]:
    """The stderr of a process run with ``python -X importtime``: what the process itself
    said, and the top-level names of the modules it imported.  (``npuzzle`` ends without the
    interpreter's teardown, so no atexit hook could say them.)"""
    names = {m.group(1).decode().strip().split(".")[0] for m in IMPORT_TIME.finditer(stderr)}
    return IMPORT_TIME.sub(b"", stderr), names


def assert_one_line_error(result, code):
    """The command failed with ``code`` and said why in one line, without a traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    err = result.stderr.strip()
    assert err and "\n" not in err and "Traceback" not in err, err


@pytest.fixture(autouse=True)
def _isolated_cache_dir(monkeypatch, tmp_path_factory):
    """The record of verified database files goes to a temporary cache directory."""
    monkeypatch.setenv("NPUZZLE_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def service_dir(tmp_path_factory, exact_dir):
    """Databases for the service's tests: exact 2x3/3x3, 3x3 4-4 and 4x4 5-5-5 (~1 s)."""
    from serving import make_service_dir

    return make_service_dir(tmp_path_factory.mktemp("service"), exact_dir)


@pytest.fixture(scope="session")
def live_server(service_dir, tmp_path_factory):
    """`npuzzle serve` as a real process on a free loopback port (one search worker)."""
    from serving import Server

    server = Server(service_dir, tmp_path_factory.mktemp("service-cache"))
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


class Watched:
    """A process whose output stream is read as it comes (a thread), so a test can wait for
    what the process says -- an event -- rather than for a clock, then act on it."""

    def __init__(self, proc, stream):
        import threading

        self.proc, self._chunks, self._seen = proc, [], threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):
            with self._seen:
                self._chunks.append(chunk)
                self._seen.notify_all()
        with self._seen:
            self._chunks.append(b"")  # the end
            self._seen.notify_all()

    def wait_for(self, marker: bytes, seconds: float = 600) -> None:
        """Return once the output holds ``marker``; fail if the process ends first.  The
        bound is only a backstop against a hung process: a slow machine never meets it."""
        with self._seen:
            ok = self._seen.wait_for(
                lambda: marker in b"".join(self._chunks) or self._chunks[-1:] == [b""], seconds
            )
            assert ok and marker in b"".join(self._chunks), (marker, self.output())

    def output(self) -> bytes:
        """What the process has written so far (all of it once it has ended)."""
        if self.proc.poll() is not None:
            self._reader.join()
        return b"".join(self._chunks)


def watched(args: list[str], stream: str = "stderr", **popen) -> Watched:
    """``args`` started with ``stream`` (``stdout`` or ``stderr``) read as it comes."""
    import subprocess

    pipes = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    pipes[stream] = subprocess.PIPE
    proc = subprocess.Popen(args, **pipes, **popen)
    return Watched(proc, getattr(proc, stream))


# Three cuts of the 8-puzzle into two 4-tile patterns: equally strong, cut differently.
CUTS = ("4-4", "1,2,4,5/3,6,7,8", "1,4,7,8/2,3,5,6")


@pytest.fixture(scope="session")
def three_cuts(tmp_path_factory):
    """A data directory with three equally strong 3x3 databases, the partitions of
    :data:`CUTS` (about a second): the rivals of a race."""
    from pdb_builder.build_apdb import build_apdb
    from solver.search import plans
    from solver.tables import pattern_db

    d = tmp_path_factory.mktemp("three-cuts")
    for cut in CUTS:
        build_apdb("3x3", cut, None, d, progress=False)
    pattern_db.clear_cache()
    plans.clear_cache()
    return d


@pytest.fixture
def cuts():
    """The partitions of the ``three_cuts`` databases, in the order built."""
    return CUTS
