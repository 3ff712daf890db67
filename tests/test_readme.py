"""The pipelines the README shows run, with the answers the README says they give."""

from __future__ import annotations

import os
import re
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
    histogram, as_json, csv, bad = outputs
    assert "1,000 answers" in histogram and "mean distance" in histogram
    assert '"total":1000' in as_json and '"errors":0' in as_json
    assert csv.count('"line"') == 2 and '"id":"a"' in csv and '"id":"b"' in csv
    assert bad.splitlines()[0] == "31" and bad.splitlines()[1].startswith("error: ")
