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


def test_the_readme_pipelines_run(tables_dir, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "npuzzle"  # this checkout's npuzzle, whatever is installed
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m solver "$@"\n')
    script.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "NPUZZLE_DATA": str(tables_dir),
    }
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
