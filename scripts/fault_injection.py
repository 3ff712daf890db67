#!/usr/bin/env python
"""Fault injection: damage the databases, feed hostile input, send signals, ask for the
impossible -- and count wrong answers, tracebacks, hangs and crashes (the goal: none).

    python scripts/fault_injection.py            # thousands of cases, a few minutes
    python scripts/fault_injection.py --quick    # about a minute
    python scripts/fault_injection.py --seed 7 --jobs 2 --keep /tmp/faults

Builds the small databases (exact 2x3 and 3x3, the compact exact 2x5, a 3x3 4-4 and a 4x4
5-5-5 PDB) into a directory whose name holds a space, records every reading command's answer
there, then for each damage
of ``fault_damage.py`` copies the directory, damages the copy and runs every reading command
against it (distance, solve, heuristic, check, stats, generate, their batch ``-`` modes,
``build-pdb --verify`` and ``--list``).  Commands run in processes forked from a warm parent
(milliseconds each) under a timeout; signals, huge arguments and pasted fix commands run as
real programs.  An outcome is one of:

* right -- exit 0 and the known answer (a solve may find another path of the same length);
* refused with fix -- exit 3, one line on stderr naming a ``build-pdb`` command;
* wrong answer -- exit 0 with another answer (for ``--verify``: "sound" for a damaged file);
* traceback, hang (no exit within the timeout), crash (killed by a signal, e.g. SIGSEGV),
  other (any other status, or an error over several lines).

A sample of the fixes is pasted into a shell (``bash -c``) with ``build-pdb`` on the PATH,
then the original command is run again and must answer right.  The table ends with the cost
of the trust check (hashing a file the first time it is used).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import fault_damage as dmg  # noqa: E402
import fault_runs as runs  # noqa: E402

COLUMNS = ("cases", "right", "refused+fix", "wrong", "traceback", "hang", "crash", "other")


def build_databases(root: Path) -> tuple[Path, Path]:
    """The pristine directory (name with a space) and one of spare files to swap in."""
    from pdb_builder.build import build_exact, build_partition
    from solver.core.board import Shape

    pristine, spares = root / "pristine data", root / "spares"
    for shape in ("2x3", "3x3", "2x5"):
        build_exact(Shape.parse(shape), pristine, progress=False)
    build_partition(Shape.parse("3x3"), "4-4", None, pristine, progress=False)
    build_partition(Shape.parse("4x4"), "5-5-5", None, pristine, progress=False)
    build_partition(Shape.parse("4x4"), "5-5-5", "blank-first", spares, progress=False)
    build_partition(Shape.parse("3x3"), "1,2,3/4,5,6,7,8", None, spares, progress=False)
    return pristine, spares


def damage_cases(pristine: Path, spares: Path, work: Path, known: dict, args, rng) -> dict:
    """Every damage against every reading command: counts per damage kind, and the exit-3
    cases kept for pasting their fixes."""
    table: dict = defaultdict(Counter)
    samples: list = []
    damages = dmg.every_damage(pristine, spares, rng, args.flips, args.cuts)
    if args.quick:  # one damage of each kind, the files taken in turn
        by_kind: dict = defaultdict(list)
        for d in damages:
            by_kind[d.kind].append(d)
        damages = [ds[i % len(ds)] for i, ds in enumerate(by_kind.values())]
        files = {d.file for d in damages}
        damages += [ds[0] for ds in by_kind.values() if ds[0].file not in files][:3]
    jobs = []
    for i, damage in enumerate(damages):
        copy = work / f"case {i}"
        shutil.copytree(pristine, copy, symlinks=True)
        damage.apply(copy)
        for cmd in runs.COMMANDS:
            if damage.verify_only and cmd.name != "build-pdb --verify":
                continue
            jobs.append((cmd, copy, damage))
    print(f"{len(damages)} damages, {len(jobs)} cases", file=sys.stderr)
    for (cmd, copy, damage), res in runs.run_many(jobs, args.jobs, args.timeout, progress=True):
        outcome = runs.judge(cmd, res, known[cmd.name], damage)
        table[damage.kind][outcome] += 1
        if outcome not in ("right", "refused+fix"):
            print(
                f"  {outcome}: {damage.what} / {cmd.name}: rc={res.rc} {res.err.strip()[-300:]!r}",
                file=sys.stderr,
            )
        elif outcome == "refused+fix":
            samples.append((damage, cmd, copy, res))
    for _, copy, _ in jobs:
        shutil.rmtree(copy, ignore_errors=True)
    table["_samples"] = samples
    return table


def paste_fixes(
    samples: list, pristine: Path, work: Path, known: dict, count: int, rng: random.Random
) -> Counter:
    """Paste the fix of ``count`` refused cases (missing and corrupt, exact and PDB): the
    command must succeed and the original command must then answer right."""
    by_kind: dict = defaultdict(list)
    for s in samples:
        by_kind[(s[0].kind, s[0].file)].append(s)
    chosen = [rng.choice(v) for v in by_kind.values()]
    rng.shuffle(chosen)
    result = Counter()
    for damage, cmd, _, _res in chosen[:count]:
        copy = work / "paste here"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(pristine, copy, symlinks=True)
        damage.apply(copy)
        fixed = runs.paste_fix(cmd, copy, known[cmd.name], work)
        result["fix works" if fixed is True else "fix fails"] += 1
        if fixed is not True:
            print(f"  fix fails: {damage.what} / {cmd.name}: {fixed}", file=sys.stderr)
        shutil.rmtree(copy, ignore_errors=True)
    return result


def print_table(title: str, table: dict) -> None:
    rows = [(k, v) for k, v in table.items() if not k.startswith("_")]
    total = Counter()
    for _, c in rows:
        total.update(c)
    width = max([len(k) for k, _ in rows] + [len(title), 5])
    print(f"\n{title:<{width}}  " + "  ".join(f"{c:>11}" for c in COLUMNS))
    for kind, c in rows + [("total", total)]:
        cells = [sum(c.values())] + [c[k] for k in COLUMNS[1:]]
        print(f"{kind:<{width}}  " + "  ".join(f"{v:>11,}" for v in cells))


def _stopwatch():
    last = [time.perf_counter()]

    def lap(what: str) -> None:
        now = time.perf_counter()
        print(f"{what}: {now - last[0]:.0f} s", file=sys.stderr)
        last[0] = now

    return lap


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="about a minute: fewer cases")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before a hang")
    ap.add_argument("--keep", type=Path, default=None, help="work here and keep it")
    ap.add_argument(
        "--time-file",
        type=Path,
        action="append",
        default=[],
        help="a further database file whose trust check to time (e.g. a built apdb-4x4-7-8.h5)",
    )
    args = ap.parse_args()
    args.flips, args.cuts, signals, pastes = (1, 0, 10, 6) if args.quick else (12, 4, 60, 24)
    rng = random.Random(args.seed)
    work = args.keep or Path(tempfile.mkdtemp(prefix="npuzzle-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["NPUZZLE_CACHE"] = str(work / "cache")
    os.environ.pop("NPUZZLE_DATA", None)
    t0 = time.perf_counter()
    pristine, spares = build_databases(work)
    runs.warm_up(pristine, work)
    known = runs.known_answers(pristine, args.timeout)
    lap = _stopwatch()
    tables = {"damaged databases": damage_cases(pristine, spares, work, known, args, rng)}
    samples = tables["damaged databases"].pop("_samples")
    lap("damaged databases")
    tables["hostile input and huge arguments"] = runs.hostile_cases(pristine, known, args)
    lap("hostile input and huge arguments")
    tables["signals at random moments"] = runs.signal_cases(pristine, work, signals, rng)
    lap("signals")
    pasted = paste_fixes(samples, pristine, work, known, pastes, rng)
    lap("pasted fixes")
    for title, table in tables.items():
        print_table(title, table)
    print(
        f"\nfix commands pasted into a shell: {pasted['fix works']} worked, "
        f"{pasted['fix fails']} failed"
    )
    runs.print_trust_cost(pristine, work, args.time_file)
    print(f"\n{time.perf_counter() - t0:.0f} s in all; load average {os.getloadavg()[0]:.2f}")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    bad = sum(
        c[k]
        for t in tables.values()
        for c in t.values()
        for k in ("wrong", "traceback", "hang", "crash", "other")
    )
    return 1 if bad or pasted["fix fails"] else 0


if __name__ == "__main__":
    sys.exit(main())
