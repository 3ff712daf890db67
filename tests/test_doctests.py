"""The ``>>>`` examples in the docstrings are run: every module of ``solver`` and
``pdb_builder`` that holds one is imported and its examples must all pass."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def modules_with_examples() -> list[str]:
    """The dotted names of the project's modules whose source holds a ``>>>`` example."""
    found = []
    for package in ("solver", "pdb_builder"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" not in path.read_text(encoding="utf-8"):
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found.append(".".join(parts))
    return found


def test_some_modules_have_examples():
    assert len(modules_with_examples()) >= 5


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_hold(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"{name} holds '>>>' but no example was found and run"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
