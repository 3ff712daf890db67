"""The import direction: every module imports only its own layer and the layers below it.

Layers, bottom up (the order data flows): core -> tables -> heuristics -> search -> api and
options (the dispatch over the algorithms; the one declaration of every option) -> workloads
(batches, generation, distributions) -> answers (the records every front end prints) -> cli,
client and service.  In the top layer the CLI may import the warm path's client
(solver.client), never the other way round, and the service may import both.  The builder
(pdb_builder) imports core, tables and itself only, never the search or anything above; the
solver never imports the builder.  Imports inside
functions count too: a lazy import is still a dependency.  Within a layer, no two modules may
import each other, directly or through others: an import cycle is a knot a reader cannot start
from (and a lazy import that hides one is still one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {
    "solver.core": 0,
    "solver.tables": 1,
    "solver.heuristics": 2,
    "solver.search": 3,
    "solver.api": 4,
    "solver.options": 4,
    "solver.workloads": 5,
    "solver.answers": 6,
    "solver.cli": 7,
    "solver.client": 7,  # beside cli: cli may import client, client never imports cli
    "solver.service": 7,
    "solver.__main__": 8,
    "pdb_builder": 1,  # beside tables: it reads core and tables only
}


def _within(module: str, packages: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of ``packages`` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)


def layer_of(module: str) -> int | None:
    """The layer of a dotted module name (None for modules outside the project)."""
    best = None
    for prefix, layer in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return best[1] if best else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(dotted: str) -> bool:
    where = ROOT / dotted.replace(".", "/")
    return where.is_dir() or where.with_suffix(".py").is_file()


def imports_of(path: Path) -> list[str]:
    """Every project module ``path`` imports (absolute names), at any depth of the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # "from pkg import mod" imports the module pkg.mod when there is one.
            out += [f"{mod}.{a.name}" if is_module(f"{mod}.{a.name}") else mod for a in node.names]
    return [m for m in out if m.split(".")[0] in ("solver", "pdb_builder")]


def project_files() -> list[Path]:
    return sorted(p for d in ("solver", "pdb_builder") for p in (ROOT / d).rglob("*.py"))


def violations(path: Path) -> list[str]:
    name = module_name(path)
    mine = layer_of(name)
    if mine is None:
        return []
    found = []
    for target in imports_of(path):
        theirs = layer_of(target)
        if name.startswith("solver.client") and _within(target, ("solver.cli", "solver.service")):
            found.append(f"{name} (the client) imports {target}")
        if target.startswith("pdb_builder") and not name.startswith("pdb_builder"):
            found.append(f"{name} imports the builder ({target})")
        elif theirs is not None and theirs > mine:
            found.append(f"{name} (layer {mine}) imports {target} (layer {theirs})")
    return found


@pytest.mark.parametrize("path", project_files(), ids=lambda p: module_name(p))
def test_imports_point_down(path):
    assert violations(path) == []


def test_the_check_catches_an_upward_import(tmp_path, monkeypatch):
    bad = ROOT / "solver" / "core" / "_upward_probe.py"
    bad.write_text("from ..search import idastar\n")
    try:
        assert violations(bad) == [
            "solver.core._upward_probe (layer 0) imports solver.search.idastar (layer 3)"
        ]
    finally:
        bad.unlink()


def test_the_check_keeps_the_client_below_the_cli_and_the_builder_below_the_search():
    client = ROOT / "solver" / "client" / "_upward_probe.py"
    builder = ROOT / "pdb_builder" / "_upward_probe.py"
    client.write_text("from ..cli import errors\n")
    builder.write_text("from solver.heuristics import manhattan\n")
    try:
        assert violations(client) == [
            "solver.client._upward_probe (the client) imports solver.cli.errors"
        ]
        assert violations(builder) == [
            "pdb_builder._upward_probe (layer 1) imports solver.heuristics (layer 2)"
        ]
    finally:
        client.unlink()
        builder.unlink()


def import_graph(files: list[Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (among ``files``), itself left out.  A
    package's ``__init__`` running before its modules is not an edge: only what a file's own
    import statements name."""
    names = {module_name(p) for p in files}
    return {
        module_name(p): {m for m in imports_of(p) if m in names and m != module_name(p)}
        for p in files
    }


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle in ``graph``, one per knot of modules that reach one another, written
    as the path around it (``[a, b, a]``: a imports b, b imports a)."""
    cycles, done = [], set()
    for start in sorted(graph):
        if start in done:
            continue
        # The modules ``start`` reaches, each with the path that first reached it.
        paths, frontier = {start: [start]}, [start]
        while frontier:
            here = frontier.pop()
            for there in sorted(graph[here]):
                if there == start:
                    knot = paths[here] + [start]
                    cycles.append(knot)
                    done.update(knot)
                    frontier = []
                    break
                if there not in paths:
                    paths[there] = paths[here] + [there]
                    frontier.append(there)
    return cycles


def test_no_import_cycles():
    assert import_cycles(import_graph(project_files())) == []


def test_the_check_catches_an_import_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]
    # Two real files, one importing the other lazily: the lazy import still closes the knot.
    a = ROOT / "pdb_builder" / "_cycle_probe_a.py"
    b = ROOT / "pdb_builder" / "_cycle_probe_b.py"
    a.write_text("def f():\n    from . import _cycle_probe_b\n")
    b.write_text("from ._cycle_probe_a import f\n")
    try:
        assert import_cycles(import_graph([a, b])) == [
            [
                "pdb_builder._cycle_probe_a",
                "pdb_builder._cycle_probe_b",
                "pdb_builder._cycle_probe_a",
            ]
        ]
    finally:
        a.unlink()
        b.unlink()


def test_every_module_has_a_layer():
    orphans = [
        module_name(p)
        for p in project_files()
        if layer_of(module_name(p)) is None and module_name(p) not in ("solver",)
    ]
    assert orphans == []


def test_every_public_name_imports_from_solver_and_nothing_else_pretends_to():
    import importlib

    import solver

    for name in solver.__all__:
        assert getattr(solver, name) is not None, name
    with pytest.raises(AttributeError):
        solver.exact  # noqa: B018 - the flat module names of 0.0 are gone, not half-there
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("solver.exact")
