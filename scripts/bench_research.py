#!/usr/bin/env python
"""The research table (docs/research/search.md): IDA*'s search enhancements switched on one
by one, on Korf's 100 (7-8 and 6-6-3), the 17 80-move 15-puzzles and, within a cap, Korf &
Taylor's 24-puzzles and the 14 of Korf & Felner's 50 random 24-puzzles that took them under
4 G nodes (``kf24``);
nodes and seconds per instance beside the published counts and the C reference
(``--cref PATH``: the C reference solver, Korf & Felner's 2002 design -- plain IDA* with 7-8 or
6-6-3 and the reflection) run in the same process.

    python scripts/bench_research.py --cref PATH            # 15-puzzle rows, C side by side
    python scripts/bench_research.py --workloads korf100-78 --configs all
    python scripts/bench_research.py --workloads kt --kt 1,2,4,8 --cap 900 --jobs 2
    python scripts/bench_research.py --workloads kf24 --configs all,all+pick
    python scripts/bench_research.py --cref PATH --markdown table.md  # C beside; write the table

Rows (configurations): ``plain`` (the sum of the tables only, never undoing a move),
``+reflection`` (the mirrored lookup too, Korf & Felner 2002: what the C reference runs), ``+fsm``
(duplicate pruning by a finite-state machine of move strings, Taylor & Korf 1993, without the
reflection), ``all`` (both: npuzzle's default), ``all-fsmN`` for other machine depths,
``all+2nd``, the maximum with a second database cut differently (7-8b, 6-6-6-6b), and
``all+pick``, the race of every equally strong database built (``--pick --no-pick-max``: on
the 24-puzzle 6-6-6-6 and its cuts c to e, whichever are built; the search goes on with the
one that needs the fewest nodes), and ``all+pick+max`` (npuzzle's default without zero-aware twins), the race with the
maxima of those databases entered too, each one's nodes weighted by its cost per node.
``all+zero`` and ``all+pick+max+zero`` read the zero-aware twins of the databases
(``build-pdb --partition P --zero-aware``: a pattern's value by the blank's region too;
npuzzle's default where the twins are built, so ``all`` and ``all+pick+max`` switch them off).
Every length is checked against the file's optimal length; a wrong one stops the run.
Nodes are generated nodes (children created, as Korf & Felner count them) and expanded nodes
(as Clausecker and Doebbelin et al. count them).  Times are search seconds on one core unless
``--jobs``: tables loaded, kernels compiled and pruning machines made before the clock starts.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_korf100 import read_korf  # noqa: E402

from solver import api  # noqa: E402
from solver.core import config  # noqa: E402
from solver.core.board import Shape, preset_goal  # noqa: E402
from solver.core.solution import SearchLimitReached  # noqa: E402
from solver.search import fsm  # noqa: E402
from solver.tables import loading  # noqa: E402

KORF100 = ROOT / "data" / "korf100.txt"
HARD80 = ROOT / "data" / "hardest80.txt"
KT24 = ROOT / "data" / "korf-taylor-24.txt"
KF24 = ROOT / "data" / "korf-felner-24.txt"
KF_EASY = 4e9  # the kf24 workload: Korf & Felner's instances under this many nodes (14 of 50)
# The C reference solver's binary (``--cref PATH``; its tables in the binary's directory).
CREF: Path | None = None

# Mean generated nodes per instance on 1,000 random 15-puzzles with 7-8 (a different set from
# Korf's 100, whose mean is close): regular lookup only, with the reflection (Felner, Korf &
# Hanan, JAIR 22, 2004), and all four lookups with BPMX (Felner, Zahavi, Holte, Schaeffer,
# Sturtevant & Zhang, "Inconsistent heuristics in theory and practice", AIJ 175, 2011).
PUBLISHED_78 = {"plain": 136_289, "+reflection": 36_710, "dual + BPMX (published)": 18_601}


@dataclass(frozen=True)
class Config:
    """One row: the mirrored lookup or not, the pruning machine's depth, whether the
    workload's second database (7-8b, 6-6-6-6b) is combined with the first, whether the
    search races every equally strong database built (``--pick``), and their maxima too
    (``--pick-max``)."""

    name: str
    reflect: bool
    fsm: int
    second: bool = False
    pick: bool = False
    pick_max: bool = False
    zero_aware: bool = False


CONFIGS = {
    "plain": Config("plain", False, 2),
    "+reflection": Config("+reflection", True, 2),
    "+fsm": Config("+fsm", False, config.DEFAULT_FSM_DEPTH),
    "all": Config("all", True, config.DEFAULT_FSM_DEPTH),
    "all-fsm8": Config("all-fsm8", True, 8),
    "all-fsm12": Config("all-fsm12", True, 12),
    "all-fsm10": Config("all-fsm10", True, 10),
    "all+2nd": Config("all+2nd", True, config.DEFAULT_FSM_DEPTH, True),
    "all+pick": Config("all+pick", True, config.DEFAULT_FSM_DEPTH, pick=True),
    "all+pick+max": Config(
        "all+pick+max", True, config.DEFAULT_FSM_DEPTH, pick=True, pick_max=True
    ),
    "all+zero": Config("all+zero", True, config.DEFAULT_FSM_DEPTH, zero_aware=True),
    "all+pick+max+zero": Config(
        "all+pick+max+zero",
        True,
        config.DEFAULT_FSM_DEPTH,
        pick=True,
        pick_max=True,
        zero_aware=True,
    ),
}


@dataclass(frozen=True)
class Workload:
    """A set of boards for one database: ``rows`` are (id, tiles, optimal length) for the
    blank-first goal; ``cref`` the C reference's partition name (None: it has none);
    ``second`` the database the ``all+2nd`` row combines with the first."""

    name: str
    shape: str
    partition: str
    rows: list
    cref: str | None
    published: dict = field(default_factory=dict)
    second: str | None = None


def workloads(names, kt: list[int]) -> list[Workload]:
    """The workloads asked for, read from the reference files."""
    korf = [(r["id"], r["tiles"], r["optimal"]) for r in read_korf(KORF100)]
    hard = [(r[0], r[1], int(r[2])) for r in _tsv(HARD80)]
    out = {
        "korf100-78": Workload("Korf's 100, 7-8", "4x4", "7-8", korf, "78", PUBLISHED_78, "7-8b"),
        "korf100-663": Workload("Korf's 100, 6-6-3", "4x4", "6-6-3", korf, "663"),
        "hard80-78": Workload("17 80-move, 7-8", "4x4", "7-8", hard, "78", {}, "7-8b"),
    }
    easy = [r for r in _tsv(KF24) if float(r[3]) < KF_EASY]
    kf = [(int(r[0]), r[1], int(r[2])) for r in easy]
    published = {"Korf & Felner 2002 (published)": sum(float(r[3]) for r in easy) / len(easy)}
    out["kf24"] = Workload(
        f"Korf-Felner's {len(kf)} under 4 G nodes, 6-6-6-6", "5x5", "6-6-6-6", kf, None, published
    )
    if KT24.exists():
        rows = [(int(r[0]), r[1], int(r[2])) for r in _tsv(KT24) if int(r[0]) in kt]
        out["kt"] = Workload(
            f"Korf-Taylor {kt}, 6-6-6-6", "5x5", "6-6-6-6", rows, None, {}, "6-6-6-6b"
        )
    return [out[n] for n in names if n in out]


def _tsv(path: Path) -> list[list[str]]:
    return [
        line.split("\t") for line in path.read_text().splitlines() if line and line[0].isdigit()
    ]


@dataclass
class Cell:
    """One workload under one configuration."""

    generated: int = 0
    expanded: int = 0
    seconds: float = 0.0
    solved: int = 0
    capped: int = 0
    c_seconds: float | None = None  # the C reference on the same boards, just before


def _goal(work: Workload):
    return preset_goal(Shape.parse(work.shape), "blank-first")


def _plans(work: Workload, opts: api.SearchOptions) -> tuple:
    """The plans a search of ``work``'s boards with ``opts`` reads (its tables mapped), the
    incumbent first."""
    goal = _goal(work)
    return api.search_request(goal, goal, opts).plans


def _incumbent(work: Workload, cfg: Config) -> str:
    """The heuristic a race on ``work``'s boards starts with (the catalog's choice)."""
    opts = api.SearchOptions(reflect=cfg.reflect, pick=True)
    return _plans(work, opts)[0][0].name.removesuffix(" + reflection")


def run(work: Workload, cfg: Config, jobs: int, cap: float | None) -> Cell | None:
    """Solve every board of ``work`` with ``cfg``; lengths checked against the file.  None
    where the configuration does not apply (no second database for this workload, or a race
    that would not start with the workload's database)."""
    partition = None if cfg.pick else work.partition  # the race takes every cut built
    if cfg.pick and _incumbent(work, cfg) != f"pdb {work.partition}":
        return None  # e.g. 6-6-3's workload, where the catalog's choice is 7-8
    if cfg.second:
        if work.second is None:
            return None
        partition += f"+{work.second}"
    opts = api.SearchOptions(
        partition=partition,
        reflect=cfg.reflect,
        fsm=cfg.fsm,
        jobs=jobs,
        timeout=cap,
        pick=cfg.pick,
        pick_max=cfg.pick_max,
        zero_aware=cfg.zero_aware,
    )
    fsm.machine_for(Shape.parse(work.shape), cfg.fsm)  # made (or read) before the clock
    try:  # the tables loaded and the kernels compiled before the clock starts
        api.solve(work.rows[0][1], "blank-first", options=opts, max_nodes=10_000)
    except SearchLimitReached:
        pass
    if cfg.pick:  # and every table a race reads
        _plans(work, opts)
    if cfg.zero_aware and "zero-aware" not in _plans(work, opts)[0][0].name:
        print(f"  {work.name}: no zero-aware twin built, row left out", file=sys.stderr)
        return None
    cell = Cell()
    for ident, tiles, optimal in work.rows:
        try:
            sol = api.solve(tiles, "blank-first", options=opts)
        except SearchLimitReached as stop:
            cell.capped += 1
            cell.generated += stop.partial.nodes_generated
            cell.expanded += stop.partial.nodes_expanded
            cell.seconds += cap or 0
            print(f"  {work.name} #{ident} {cfg.name}: capped at {cap} s", file=sys.stderr)
            continue
        if sol.length != optimal:
            sys.exit(f"{work.name} #{ident} {cfg.name}: length {sol.length}, not {optimal}")
        cell.solved += 1
        cell.generated += sol.nodes_generated
        cell.expanded += sol.nodes_expanded
        cell.seconds += sol.extra["search_seconds"]
        if work.shape == "5x5":
            print(
                f"  {work.name} #{ident} {cfg.name}: {sol.nodes_generated:,} generated, "
                f"{sol.nodes_expanded:,} expanded, {sol.extra['search_seconds']:.1f} s"
                + (f"; {sol.heuristic}; race: {sol.extra['race']}" if "race" in sol.extra else ""),
                file=sys.stderr,
            )
    return cell


def cref_seconds(work: Workload, runs: int) -> float | None:
    """The C reference's search seconds on ``work`` with the reflection (best of ``runs``),
    or None where it has no such job or ``--cref`` names none."""
    binary = CREF
    if binary is None or work.cref is None or not os.access(binary, os.X_OK):
        return None
    boards = "".join(t + "\n" for _, t, _ in work.rows)
    best = None
    for _ in range(runs):
        out = subprocess.run(
            [str(binary), "solve", work.cref, str(binary.parent), "--reflect"],
            input=boards,
            capture_output=True,
            text=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        ).stdout
        found = re.search(r"seconds=([\d.]+)", out)
        if found:
            s = float(found.group(1))
            best = s if best is None else min(best, s)
    return best


def table(results) -> list[str]:
    """The research table as markdown lines."""
    lines = []
    for work, cells in results:
        n = len(work.rows)
        lines.append(f"**{work.name}** ({n} boards)")
        lines.append("")
        lines.append(
            "| configuration | generated/board | expanded/board | ms/board | C ms/board "
            "| vs C | published |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for cfg, cell in cells:
            if cell is None:
                continue
            pub = work.published.get(cfg.name)
            c = cell.c_seconds
            ratio = f"{cell.seconds / c:.2f}x" if c else "-"
            c_ms = f"{c / n * 1000:,.2f}" if c else "-"
            capped = f" ({cell.capped} capped)" if cell.capped else ""
            both = f"{work.partition} & {work.second}, " if cfg.second else ""
            lines.append(
                f"| {cfg.name} ({both}{'refl., ' if cfg.reflect else ''}fsm {cfg.fsm}){capped} "
                f"| {cell.generated / n:,.0f} | {cell.expanded / n:,.0f} "
                f"| {cell.seconds / n * 1000:,.2f} | {c_ms} | {ratio} "
                f"| {f'{pub:,.0f}' if pub else ''} |"
            )
        for name, pub in work.published.items():
            if name not in CONFIGS:
                lines.append(f"| {name} | | | | | | {pub:,.0f} |")
        lines.append("")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", default="korf100-78,korf100-663,hard80-78")
    ap.add_argument("--configs", default="plain,+reflection,+fsm,all,all-fsm10,all+2nd")
    ap.add_argument("--kt", default="1,2,4,8", help="Korf-Taylor instances for the kt workload")
    ap.add_argument("--cap", type=float, default=None, help="seconds per board (kt)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    ap.add_argument(
        "--c-runs", type=int, default=2, help="C runs (best of) just before each configuration"
    )
    ap.add_argument(
        "--cref",
        type=Path,
        default=None,
        help="the C reference solver's binary (its tables beside it); without it no C column",
    )
    a = ap.parse_args()
    global CREF
    CREF = a.cref
    loading.prefer(batch=True, searches=True)  # tables as `solve -` has them (huge pages), as C
    configs = [CONFIGS[n] for n in a.configs.split(",")]
    works = workloads(a.workloads.split(","), [int(k) for k in a.kt.split(",")])
    results = []
    for work in works:
        cells = []
        for cfg in configs:
            # C runs just before each row, so that both meet the same load on a shared machine.
            c_seconds = cref_seconds(work, a.c_runs)
            t = time.perf_counter()
            cell = run(work, cfg, a.jobs, a.cap)
            if cell is not None:
                cell.c_seconds = c_seconds
            cells.append((cfg, cell))
            print(f"{work.name} / {cfg.name}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
        results.append((work, cells))
    load = os.getloadavg()[0]
    lines = table(results)
    lines.append(f"One core each unless --jobs ({a.jobs}); load average {load:.2f} at the end.")
    print("\n".join(lines))
    if a.markdown:
        a.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
