"""The pipelines the README shows run, with the answers the README says they give."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    marker = text.index("<!-- The block below is run by tests/test_readme.py. -->")
    return re.search(r"```bash\n(.*?)```", text[marker:], re.S).group(1)


def shell_env(tables_dir, tmp_path) -> dict:
    """The environment of a shell whose ``npuzzle`` is this checkout's, whatever is installed,
    reading the databases of ``tables_dir``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "npuzzle"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m solver "$@"\n')
    script.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "NPUZZLE_DATA": str(tables_dir),
    }


def tour() -> list[tuple[str, str | None]]:
    """The tour's examples: ``(command, what the README says it prints, or None)``."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## A tour of the commands") : text.index("## Using it")]
    found = re.findall(r"^- \*\*`(npuzzle [^`]+)`\*\*(?: prints `([^`]+)`)?", section, re.M)
    return [(command, printed or None) for command, printed in found]


# What the tour's examples need that the test's databases lack, or the time they take.
NOT_RUN_FROM_THE_TOUR = {
    "serve": "a server: tests/test_serve_process.py",
    "compare": "ten seconds of IDDFS: tests/test_compare.py runs compare",
}


def test_the_tour_of_the_commands_runs(tables_dir, tmp_path):
    env = shell_env(tables_dir, tmp_path)
    examples = tour()
    assert len(examples) >= 8
    for command, printed in examples:
        if command.split()[1] in NOT_RUN_FROM_THE_TOUR:
            continue
        r = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env)
        assert r.returncode == (1 if " check " in command else 0), (command, r.stderr)
        assert r.stdout and "Traceback" not in r.stderr, command
        if printed is not None:
            assert r.stdout.splitlines()[0] == printed, command


def test_the_readme_pipelines_run(tables_dir, tmp_path):
    env = shell_env(tables_dir, tmp_path)
    lengths = quickest_korf(tmp_path / "data", 5)  # Korf's 100 in seconds: its quickest
    outputs = []
    for line in readme_block().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        r = subprocess.run(
            ["bash", "-o", "pipefail", "-c", line],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert r.returncode == 0, (line, r.stderr)
        assert "Traceback" not in r.stderr
        outputs.append(r.stdout)
    histogram, as_json, csv, bad, korf = outputs
    assert "1,000 answers" in histogram and "mean distance" in histogram
    assert '"total":1000' in as_json and '"errors":0' in as_json
    assert csv.count('"line"') == 2 and '"id":"a"' in csv and '"id":"b"' in csv
    assert bad.splitlines()[0] == "31" and bad.splitlines()[1].startswith("error: ")
    assert [int(x.split()[0]) for x in korf.splitlines() if x] == lengths


def reference_block() -> list[str]:
    """The commands of the block on the reference sets in docs/batches.md."""
    text = (ROOT / "docs" / "batches.md").read_text()
    marker = text.index("<!-- The block below is run by tests/test_readme.py. -->")
    block = re.search(r"```bash\n(.*?)```", text[marker:], re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def quickest_korf(data: Path, count: int) -> list[int]:
    """Copy data/ into ``data`` with korf100.txt cut to its comments and the ``count`` boards
    Korf's 1985 search took the fewest nodes on (seconds with 5-5-5); their published lengths
    by the order they keep."""
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("*.h5", "*.digest"))
    text = (ROOT / "data" / "korf100.txt").read_text().splitlines()
    rows = [line.split("\t") for line in text if line[:1].isdigit()]
    kept = sorted(sorted(rows, key=lambda r: int(r[3]))[:count], key=lambda r: int(r[0]))
    comments = [line for line in text if line.startswith("#")]
    (data / "korf100.txt").write_text("\n".join(comments + ["\t".join(r) for r in kept]) + "\n")
    return [int(r[2]) for r in kept]


def test_the_reference_sets_read_as_the_docs_show(tables_dir, tmp_path):
    """Each command runs as written; Korf's boards come back at their published lengths, the
    hardest ones are solvable for the goal asked, the 24-puzzle bounds are admissible."""
    env = shell_env(tables_dir, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    lengths = quickest_korf(work / "data", 5)
    commands = reference_block()
    assert commands[0] == "npuzzle solve - --goal blank-first < data/korf100.txt"
    outputs = {}
    for command in commands:
        r = subprocess.run(
            ["bash", "-c", command], capture_output=True, text=True, env=env, cwd=work
        )
        assert r.returncode == 0 and "Traceback" not in r.stderr, (command, r.stderr)
        outputs[command.split("< data/")[1]] = [x for x in r.stdout.splitlines() if x]
    solved = outputs["korf100.txt"]
    assert [int(x.split()[0]) for x in solved] == lengths, solved
    assert all(x.split()[1] == "moves:" for x in solved)
    assert len(outputs["hardest80.txt"]) == 17
    assert all(x.startswith("solvable") for x in outputs["hardest80.txt"])
    for name in ("korf-taylor-24.txt", "korf-felner-24.txt"):
        text = (ROOT / "data" / name).read_text().splitlines()
        published = [int(line.split("\t")[2]) for line in text if line[:1].isdigit()]
        bounds = [int(x) for x in outputs[name]]
        assert len(bounds) == len(published) > 0, name
        assert all(h <= n and (n - h) % 2 == 0 for h, n in zip(bounds, published)), name
