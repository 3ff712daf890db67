"""The documentation describes the code as it is: every file, module and link it names exists,
the defaults it quotes are the code's, it names no path outside the repository, and it does
not narrate how it was written.  Reads files only: nothing is imported but the modules whose
quoted values are not literals in their source."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", ROOT / "scripts" / "README.md", *(ROOT / "docs").rglob("*.md")])
README_MAX_LINES = 200

# A repository path as the docs write it: a top-level folder of the repository, then the rest.
PATH = re.compile(r"(?<![\w./~$-])((?:solver|pdb_builder|scripts|docs|data|tests)/[\w./-]*)")
# A dotted name in the package: solver.core.config, solver.search.race.RACE_AFTER, ...
DOTTED = re.compile(r"(?<![\w.])(solver(?:\.[A-Za-z_]\w*)+)")
# A markdown link: [text](target); targets with a scheme are the web's, not checked here.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A quoted value: `solver.x.NAME` = 14, = 2,000,000, = 0.5 or = `a Python literal`.
QUOTED = re.compile(r"`(solver(?:\.\w+)+)`\s*=\s*(`[^`]+`|[\d][\d,_]*(?:\.\d+)?)")
# The defaults a reader most needs; each must be quoted somewhere, in the form above.
MUST_QUOTE = (
    "solver.core.config.DEFAULT_FSM_DEPTH",
    "solver.search.race.RACE_AFTER",
    "solver.core.config.DEFAULT_PARTITION",
    "solver.tables.loading.SEARCH_BATCH_MODE",
    "solver.tables.loading.BATCH_MODE",
)
# How a text narrates its own writing, or names a place outside the repository.
NARRATION = re.compile(
    r"this session|last session|previous session|the lead|other agents|helper session"
    r"|this evening|quieter day|this branch|branch `|issue [0-9]|/work/|\.\./shared",
    re.I,
)
OUTSIDE = re.compile(r"\.\./shared|/work/|side_by_side|/tmp/cref")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _named(pattern: re.Pattern, group: int = 1) -> list[tuple[str, str]]:
    """(doc, match) for every match of ``pattern`` in every doc."""
    return [(_rel(doc), m.group(group)) for doc in DOCS for m in pattern.finditer(_text(doc))]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """The anchors of a markdown file's headings (outside fenced code)."""
    text = re.sub(r"```.*?```", "", _text(doc), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


# --- the module a dotted name lives in --------------------------------------------------------


def module_file(parts: list[str]) -> Path | None:
    """The source file of module ``parts`` (a package's ``__init__.py``), or None."""
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def split_dotted(name: str) -> tuple[list[str], Path | None, list[str]]:
    """``name`` as (module parts, its file, the attribute parts after it): the longest prefix
    that is a module."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        found = module_file(parts[:k])
        if found is not None:
            return parts[:k], found, parts[k:]
    return [], None, parts


def top_level_names(source: Path) -> set[str]:
    """Every name a module defines or imports at its top level (classes, functions,
    assignments, imports)."""
    names = set()
    for node in ast.parse(_text(source)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def defines(module: list[str], source: Path, name: str) -> bool:
    """Whether the module defines ``name``: at its top level, or (a module with a
    ``__getattr__``, such as the package's lazy public names) when imported."""
    names = top_level_names(source)
    if name in names:
        return True
    return "__getattr__" in names and hasattr(importlib.import_module(".".join(module)), name)


def value_of(name: str):
    """The value of module attribute ``name``: a literal read from the source where it is one,
    else the imported module's attribute."""
    module, source, rest = split_dotted(name)
    assert source is not None and len(rest) == 1, f"{name} is not a module attribute"
    for node in ast.parse(_text(source)).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == rest[0] for t in node.targets
        ):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                break
    return getattr(importlib.import_module(".".join(module)), rest[0])


# --- the tests -------------------------------------------------------------------------------


def test_the_readme_is_at_most_200_lines():
    lines = _text(ROOT / "README.md").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines"


def test_the_readme_names_the_record_of_proven_files_where_the_code_writes_it(monkeypatch):
    """A file npuzzle writes into the user's home is named where a user looks, and the
    section it links to says when it is written and that deleting it is safe."""
    from solver.tables import trust

    monkeypatch.delenv("NPUZZLE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/home/someone")
    written = trust.Trusted.record_path()  # where the code writes it by default
    shown = "~/" + str(written.relative_to("/home/someone"))
    readme = _text(ROOT / "README.md")
    found = re.findall(rf"`{re.escape(shown)}`[^\n]*?\]\(docs/([^)#]+)#([^)]+)\)", readme)
    assert len(found) == 1, f"README.md does not name {shown} with a link to the docs on it"
    ((doc, anchor),) = found
    text = _text(ROOT / "docs" / doc)
    headings = list(re.finditer(r"^#{1,6} (.+)$", text, re.M))
    (start,) = [h.end() for h in headings if slug(h.group(1)) == anchor]
    section = text[start : min([h.start() for h in headings if h.start() > start] + [len(text)])]
    assert shown in section and "When it is written" in section, section
    assert "Deleting it is safe" in section, section


def test_the_readmes_commands_that_read_data_say_they_need_a_checkout():
    """``data/`` is the repository's: a wheel installs none."""
    readme = _text(ROOT / "README.md")
    reading = [line for line in readme.splitlines() if re.search(r"<\s*data/", line)]
    assert reading, "the README reads no reference set any more: drop this test"
    assert all("checkout" in line for line in reading), reading


def test_every_path_named_exists():
    missing = sorted(
        {
            (doc, path)
            for doc, path in _named(PATH)
            if not (ROOT / path.rstrip(".").split("#")[0]).exists()
        }
    )
    assert not missing, "\n".join(f"{doc}: {path}" for doc, path in missing)


def test_every_docs_path_named_in_the_code_exists():
    """The comments and docstrings of the packages cite the docs by path: each one is there."""
    missing = []
    for package in ("solver", "pdb_builder"):
        for source in sorted((ROOT / package).rglob("*.py")):
            for m in PATH.finditer(_text(source)):
                path = m.group(1).rstrip(".").split("#")[0]
                if path.startswith("docs/") and not (ROOT / path).exists():
                    missing.append(f"{_rel(source)}: {path}")
    assert not missing, "\n".join(missing)


def test_every_environment_variable_named_is_read_by_its_constant():
    """Each ``NPUZZLE_*`` variable the docs name is the value of a ``config.ENV_*``
    constant: the one place the code reads it from."""
    from solver.core import config

    read = {v for k, v in vars(config).items() if k.startswith("ENV_")}
    named = _named(re.compile(r"\b(NPUZZLE_\w+)"))
    unknown = sorted({(doc, name) for doc, name in named if name not in read})
    assert not unknown, "\n".join(f"{doc}: {name}" for doc, name in unknown)


def test_the_module_map_names_every_module():
    """docs/layout.md names each module of the packages in backquotes (by its name or its
    path): a module added without a word there fails here."""
    named = set(re.findall(r"`([\w/.]+)`", _text(ROOT / "docs" / "layout.md")))
    modules = [
        p
        for package in ("solver", "pdb_builder")
        for p in (ROOT / package).rglob("*.py")
        if p.stem not in ("__init__", "__main__")
    ]
    unnamed = sorted(_rel(p) for p in modules if p.stem not in named and _rel(p) not in named)
    assert not unnamed, "docs/layout.md does not name " + ", ".join(unnamed)


def test_every_link_leads_somewhere():
    bad = []
    for doc in DOCS:
        for m in LINK.finditer(_text(doc)):
            target = m.group(1)
            if re.match(r"\w+:", target):  # https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (doc.parent / file).resolve() if file else doc
            if ROOT not in dest.parents and dest != ROOT:
                bad.append(f"{_rel(doc)}: {target} leaves the repository")
            elif not dest.exists():
                bad.append(f"{_rel(doc)}: {target} does not exist")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{_rel(doc)}: {target} has no such heading")
    assert not bad, "\n".join(bad)


def test_every_module_and_name_named_exists():
    bad = []
    for doc, name in sorted(set(_named(DOTTED))):
        module, source, rest = split_dotted(name)
        if source is None or len(module) < 2 and not rest:
            bad.append(f"{doc}: {name}: no such module")
        elif rest and not defines(module, source, rest[0]):
            bad.append(f"{doc}: {name}: {'.'.join(module)} has no {rest[0]}")
    assert not bad, "\n".join(bad)


def test_the_defaults_quoted_are_the_codes():
    quoted = _named(QUOTED, 0)
    assert quoted, "no doc quotes a default as `solver.x.NAME` = value"
    wrong = []
    for doc, text in quoted:
        name, said = QUOTED.fullmatch(text).groups()
        actual = value_of(name)
        if said.startswith("`"):
            ok = ast.literal_eval(said.strip("`")) == actual
        else:
            ok = float(said.replace(",", "").replace("_", "")) == actual
        if not ok:
            wrong.append(f"{doc}: {name} is quoted as {said}, the code says {actual!r}")
    assert not wrong, "\n".join(wrong)
    names = {QUOTED.fullmatch(text).group(1) for _, text in quoted}
    assert not set(MUST_QUOTE) - names, f"not quoted: {sorted(set(MUST_QUOTE) - names)}"


def test_no_doc_names_a_path_outside_the_repository():
    found = [f"{doc}: {hit}" for doc, hit in _named(OUTSIDE, 0)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "places", [("README.md", "docs", "scripts"), ("solver", "pdb_builder")], ids=["docs", "code"]
)
def test_nothing_narrates_how_it_was_written(places):
    hits = []
    for place in places:
        root = ROOT / place
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix in (".gz", ".pyc", ".h5", ".so"):
                continue
            for number, line in enumerate(_text(path).splitlines(), 1):
                if NARRATION.search(line):
                    hits.append(f"{_rel(path)}:{number}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits)
