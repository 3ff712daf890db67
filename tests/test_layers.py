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
    "solver.engine": 0,  # the compiled engine, beside core: it imports nothing of the project
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


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of the module at ``path`` in a tree rooted at ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(dotted: str, root: Path = ROOT) -> bool:
    """Whether ``dotted`` names a module or package of the project, or of the tree at
    ``root``."""
    for base in {ROOT, root}:
        where = base / dotted.replace(".", "/")
        if where.is_dir() or where.with_suffix(".py").is_file():
            return True
    return False


def imports_of(path: Path, root: Path = ROOT) -> list[str]:
    """Every project module ``path`` (in a tree rooted at ``root``) imports (absolute names),
    at any depth of the file."""
    name = module_name(path, root)
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
            out += [
                f"{mod}.{a.name}" if is_module(f"{mod}.{a.name}", root) else mod for a in node.names
            ]
    return [m for m in out if m.split(".")[0] in ("solver", "pdb_builder")]


def project_files() -> list[Path]:
    return sorted(p for d in ("solver", "pdb_builder") for p in (ROOT / d).rglob("*.py"))


def violations(path: Path, root: Path = ROOT) -> list[str]:
    """The imports of ``path`` (in a tree rooted at ``root``) that break the layers."""
    name = module_name(path, root)
    mine = layer_of(name)
    if mine is None:
        return []
    found = []
    for target in imports_of(path, root):
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


def probe(root: Path, relative: str, text: str) -> Path:
    """A module written at ``relative`` in a tree rooted at ``root`` (a temporary copy of the
    project's layout: the checkout itself may be read-only)."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_check_catches_an_upward_import(tmp_path):
    bad = probe(tmp_path, "solver/core/_upward_probe.py", "from ..search import idastar\n")
    assert violations(bad, tmp_path) == [
        "solver.core._upward_probe (layer 0) imports solver.search.idastar (layer 3)"
    ]


def test_the_check_keeps_the_client_below_the_cli_and_the_builder_below_the_search(tmp_path):
    client = probe(tmp_path, "solver/client/_upward_probe.py", "from ..cli import errors\n")
    builder = probe(
        tmp_path, "pdb_builder/_upward_probe.py", "from solver.heuristics import manhattan\n"
    )
    assert violations(client, tmp_path) == [
        "solver.client._upward_probe (the client) imports solver.cli.errors"
    ]
    assert violations(builder, tmp_path) == [
        "pdb_builder._upward_probe (layer 1) imports solver.heuristics (layer 2)"
    ]


def import_graph(files: list[Path], root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports (among ``files``, in a tree rooted at
    ``root``), itself left out.  A package's ``__init__`` running before its modules is not an
    edge: only what a file's own import statements name."""
    names = {module_name(p, root) for p in files}
    return {
        module_name(p, root): {
            m for m in imports_of(p, root) if m in names and m != module_name(p, root)
        }
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


def test_the_check_catches_an_import_cycle(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]
    # Two real files, one importing the other lazily: the lazy import still closes the knot.
    a = probe(
        tmp_path, "pdb_builder/_cycle_probe_a.py", "def f():\n    from . import _cycle_probe_b\n"
    )
    b = probe(tmp_path, "pdb_builder/_cycle_probe_b.py", "from ._cycle_probe_a import f\n")
    assert import_cycles(import_graph([a, b], tmp_path)) == [
        ["pdb_builder._cycle_probe_a", "pdb_builder._cycle_probe_b", "pdb_builder._cycle_probe_a"]
    ]


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
