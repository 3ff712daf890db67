#!/usr/bin/env python
"""How far apart equally strong databases are on single boards: for each board, the nodes
each cut generates to the same bound (every iteration up to it), and the ratio to the best.

This is the evidence behind the race of databases (``--pick``, solver/search/race.py): if one
cut were best on every board there would be nothing to race, and if the ratios at a small bound
did not hold at the large ones a short race could not predict the long search.

    python scripts/bench_cuts.py                                  # Korf & Taylor's ten, 6-6-6-6 a-e
    python scripts/bench_cuts.py --kt 1,2 --cap 20000000 --cuts 6-6-6-6,6-6-6-6c

Every search is one thread, capped at ``--cap`` generated nodes; each cut's iterations are
recorded, and the boards are compared at the largest bound every cut completed.  Node counts
are exact and do not depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import api  # noqa: E402
from solver.core.solution import SearchLimitReached  # noqa: E402

KT24 = ROOT / "data" / "korf-taylor-24.txt"
CUTS = "6-6-6-6,6-6-6-6b,6-6-6-6c,6-6-6-6d,6-6-6-6e"


def iterations(tiles: str, cut: str, cap: int) -> dict[int, int]:
    """Generated nodes per completed iteration (bound -> nodes) of one capped search."""
    seen: list[tuple[int, int]] = []

    def hear(p) -> None:
        if p.done:
            seen.append((int(p.bound), p.nodes))

    try:
        api.solve(tiles, "blank-first", partition=cut, max_nodes=cap, progress=hear)
    except SearchLimitReached:
        pass
    out, before = {}, 0
    for bound, total in seen:
        out[bound], before = total - before, total
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kt", default="1,2,3,4,5,6,7,8,9,10")
    ap.add_argument("--cuts", default=CUTS)
    ap.add_argument("--cap", type=int, default=100_000_000, help="nodes per search")
    a = ap.parse_args()
    cuts = a.cuts.split(",")
    wanted = {int(k) for k in a.kt.split(",")}
    rows = [line.split("\t") for line in KT24.read_text().splitlines() if line[:1].isdigit()]
    print(f"| # | bound | {' | '.join(cuts)} | best |")
    print(f"|---|---:|{'---:|' * len(cuts)}---|")
    for row in rows:
        if int(row[0]) not in wanted:
            continue
        found = {cut: iterations(row[1], cut, a.cap) for cut in cuts}
        bound = min(max(its) for its in found.values())
        totals = {cut: sum(n for b, n in its.items() if b <= bound) for cut, its in found.items()}
        best = min(totals.values())
        cells = [f"{totals[c] / 1e6:.1f} M ({totals[c] / best:.2f})" for c in cuts]
        winner = min(cuts, key=lambda c: totals[c])
        print(f"| {row[0]} | {bound} | {' | '.join(cells)} | {winner} |", flush=True)


if __name__ == "__main__":
    main()
