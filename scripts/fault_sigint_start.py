#!/usr/bin/env python3
"""Ctrl-C during a command's start: what a SIGINT sent D ms after the process starts gives.

For each delay, starts the console script (``npuzzle solve`` of a 3x4 board that searches for
a while, or ``build-pdb``) ``--runs`` times, sends SIGINT after the delay and sorts what came
back into four outcomes:

* ``one line``: npuzzle's own line and exit 130 (its handler was in place; a note said
  before the signal may come first);
* ``silent``: the process ended by the signal with nothing printed (the interpreter had not
  yet installed its own handler; a shell reports 130);
* ``python``: Python's own traceback (the signal landed while the interpreter imported
  ``site``, the ``.pth`` files or the console script's first modules);
* ``other``: anything else (printed with its first line).

``--busy`` runs a busy loop on each core meanwhile, as a loaded machine would.  The table
says where the start's unprotected moment lies and how long it is.

    python scripts/fault_sigint_start.py --runs 10 --busy
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOARD = "11 10 9 8/7 6 5 4/3 2 1 0"  # 3x4: no table in an empty data directory, a long IDA*
DELAYS_MS = (0, 5, 10, 20, 30, 50, 100)
OUTCOMES = ("one line", "silent", "python", "other")


def _command(which: str, data_dir: Path) -> list[str]:
    script = shutil.which(which) or str(Path(sys.executable).with_name(which))
    if which == "npuzzle":
        return [script, "solve", BOARD, "--data-dir", str(data_dir)]
    return [script, "-q", "--shape", "4x4", "--partition", "6-6-3", "--data-dir", str(data_dir)]


def _outcome(code: int, stderr: str) -> str:
    lines = stderr.strip().splitlines()
    if "Traceback" in stderr or "Fatal Python error" in stderr:
        return "python"
    if (
        code == 130
        and lines
        and lines[-1].startswith(("npuzzle: interrupted", "build-pdb: interrupted"))
    ):
        return "one line"  # (after a note said before the signal, where one was)
    if code == -signal.SIGINT and not lines:
        return "silent"
    return "other"


def _busy_loops() -> list[subprocess.Popen]:
    loop = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(os.cpu_count() or 1)]


def _trial(cmd: list[str], delay: float) -> tuple[str, str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    text = err.decode(errors="replace")
    return _outcome(proc.returncode, text), (text.strip().splitlines() or [""])[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--command", choices=("npuzzle", "build-pdb"), default="npuzzle")
    ap.add_argument("--runs", type=int, default=10, help="trials a delay (default 10)")
    ap.add_argument("--busy", action="store_true", help="a busy loop on each core meanwhile")
    ap.add_argument("--delays", default=",".join(map(str, DELAYS_MS)), help="ms, comma-separated")
    args = ap.parse_args()
    delays = [int(d) for d in args.delays.split(",")]
    busy = _busy_loops() if args.busy else []
    others = set()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = _command(args.command, Path(tmp))
            print(f"| delay | {' | '.join(OUTCOMES)} |")
            print(f"|---:|{'---:|' * len(OUTCOMES)}")
            for ms in delays:
                seen = collections.Counter()
                for _ in range(args.runs):
                    kind, first = _trial(cmd, ms / 1000)
                    seen[kind] += 1
                    if kind == "other":
                        others.add(first)
                    print(".", end="", file=sys.stderr, flush=True)
                print(f"| {ms} ms | {' | '.join(str(seen[o]) for o in OUTCOMES)} |")
    finally:
        for p in busy:
            p.kill()
    print(file=sys.stderr)
    for line in sorted(others):
        print(f"other: {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
