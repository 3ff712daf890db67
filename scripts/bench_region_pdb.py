#!/usr/bin/env python
"""Build one large pattern's table with the region BFS (pdb_builder.region_bfs: one byte a
(map, blank region, permutation) state) and print what it cost and what it gives: pattern,
entries (the search's states), bytes (its peak arrays), build seconds, peak MB, the mean h of
the additive table over N random solvable boards and, with ``--twin``, of the zero-aware
values (the blank's class looked up on each board), with the load average before and after.

    python scripts/bench_region_pdb.py --shape 5x5 --tiles 1,2,5,6,7,10,11 --goal blank-first --twin
    python scripts/bench_region_pdb.py --shape 4x4 --tiles 1,2,3,5,6,7 --samples 100000
    python scripts/bench_region_pdb.py --twin --stream   # the tables folded a part at a time

The tiles are those of the goal given (``--goal``, default blank-last): Clausecker's 5x5
patterns are drawn for the blank-first goal (tile t home on cell t), so they are built for it.
Each layer is reported on stderr as it ends; the table goes to stdout.  "peak MB" is this
process's peak resident memory (getrusage); run it under ``/usr/bin/time -v`` for the kernel's
own figure.  With ``--stream`` the tables are folded 64 Mi placements at a time, as a writer
that appends each part to its file would (pdb_builder.region_bfs.fold_chunks): the peak is
then the search's bytes alone.  Nothing is written to disk.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdb_builder.region_bfs import fold_chunks, memory_bytes, region_bfs, search  # noqa: E402
from solver.core import packing, ranking  # noqa: E402
from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.core.regions import binomials, class_value, main_region_masks  # noqa: E402


def random_boards(goal: Board, count: int, seed: int) -> np.ndarray:
    """``count`` boards drawn uniformly among those solvable for ``goal`` (rows of tiles by
    cell).  A permutation of the wrong parity has the tiles on its first two non-blank cells
    swapped: a one-to-one map onto the other class, so the draw stays uniform."""
    n = goal.shape.size
    rng = np.random.default_rng(seed)
    boards = rng.permuted(np.tile(np.arange(n, dtype=np.int8), (count, 1)), axis=1)
    wrong = _parity(boards, goal) != 0
    rows = np.flatnonzero(wrong)
    nonblank = np.argsort(boards[rows] == 0, axis=1, kind="stable")[:, :2]
    a, b = nonblank[:, 0], nonblank[:, 1]
    ta, tb = boards[rows, a].copy(), boards[rows, b].copy()
    boards[rows, a], boards[rows, b] = tb, ta
    assert not np.any(_parity(boards, goal)), "every board drawn is solvable"
    return boards


def _parity(boards: np.ndarray, goal: Board) -> np.ndarray:
    """0 where a board is solvable for ``goal``: the parity of the permutation taking the
    goal to it equals the parity of the blank's Manhattan distance."""
    n, cols = goal.shape.size, goal.shape.cols
    home = np.argsort(np.array(goal.tiles))  # home[t] = goal cell of tile t
    perm = home[boards]  # perm[b, c] = goal cell of the tile on cell c
    inversions = np.zeros(len(boards), np.int64)
    for i in range(n):
        inversions += np.sum(perm[:, i + 1 :] < perm[:, i : i + 1], axis=1)
    blank = np.argmax(boards == 0, axis=1)
    gb = home[0]
    moves = np.abs(blank // cols - gb // cols) + np.abs(blank % cols - gb % cols)
    return (inversions + moves) & 1


def sample_keys(boards: np.ndarray, shape: Shape, tiles) -> tuple[np.ndarray, np.ndarray]:
    """Per board the rank of the pattern's placement and the blank's zero-aware class."""
    where = np.argsort(boards, axis=1)  # where[b, t] = the cell of tile t
    cells = where[:, list(tiles)].astype(np.int64)
    ranks = ranking.rank_many(cells, shape.size)
    binom = binomials(shape.size)
    ordered = np.sort(cells, axis=1)
    colex = sum(binom[ordered[:, i], i + 1] for i in range(len(tiles)))
    main = main_region_masks(shape.rows, shape.cols, len(tiles)).astype(np.int64)[colex]
    blank = where[:, 0].astype(np.int64)
    return ranks, np.where((main >> blank) & 1 == 1, packing.MAIN, packing.OTHER)


class Means:
    """The sums of the additive and the zero-aware values over the sampled boards, added to
    a part of the tables at a time (the boards sorted by their placement's rank)."""

    def __init__(self, ranks: np.ndarray, classes: np.ndarray):
        order = np.argsort(ranks, kind="stable")
        self.ranks, self.classes = ranks[order], classes[order]
        self.h = self.z = 0

    def add(self, first: int, table: np.ndarray, twin: np.ndarray | None) -> None:
        """The boards whose rank falls in ``first..first + len(table) - 1``."""
        lo, hi = np.searchsorted(self.ranks, [first, first + table.size])
        at = self.ranks[lo:hi] - first
        self.h += int(table[at].astype(np.int64).sum())
        if twin is not None:
            self.z += int(class_value(twin[at].astype(np.int64), self.classes[lo:hi]).sum())


def main(argv=None) -> int:
    """Parse the arguments, build, sample and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="5x5")
    ap.add_argument("--tiles", default="1,2,5,6,7,10,11", help="the pattern's tiles, commas")
    ap.add_argument("--goal", default="blank-first", help="a goal preset or board")
    ap.add_argument("--samples", type=int, default=1_000_000, help="random boards (N)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--twin", action="store_true", help="the zero-aware twin's bytes too")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument(
        "--stream",
        action="store_true",
        help="fold the tables a part at a time (as a writer would), never holding them whole",
    )
    args = ap.parse_args(argv)
    shape = Shape.parse(args.shape)
    goal = goal_board(shape, args.goal)
    tiles = tuple(sorted(int(t) for t in args.tiles.split(",")))
    load0 = os.getloadavg()[0]

    def said(depth, new, seconds):
        print(
            f"  depth {depth:3d}: {new:>14,} states  {seconds:7.1f} s", file=sys.stderr, flush=True
        )

    boards = random_boards(goal, args.samples, args.seed)
    means = Means(*sample_keys(boards, shape, tiles))
    del boards
    t0 = time.perf_counter()
    if args.stream:
        found = search(shape, tiles, goal, progress=False, threads=args.threads, on_layer=said)
        hist, clipped, states = np.zeros(256, np.int64), 0, found.states
        for first, table, twin, folded in fold_chunks(found, twin=args.twin):
            means.add(first, table, twin)
            hist += folded.hist
            clipped += folded.clipped
        entries, layers = found.plan.entries, len(found.layers)
        top = int(np.flatnonzero(hist[:255]).max())
        table_mean = float(np.dot(np.arange(top + 1), hist[: top + 1]) / hist[: top + 1].sum())
        del found
    else:
        r = region_bfs(
            shape, tiles, goal, twin=args.twin, progress=False, threads=args.threads, on_layer=said
        )
        means.add(0, r.table, r.twin)
        entries, layers, top, clipped = r.entries, len(r.layers), len(r.counts) - 1, r.clipped
        table_mean, states = r.mean_h, r.states
        del r
    seconds = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    h = means.h / args.samples
    z = means.z / args.samples if args.twin else None
    cols = ["pattern", "entries", "bytes", "build s", "peak MB", f"mean h (N={args.samples:,})"]
    row = [",".join(map(str, tiles)), f"{entries:,}", f"{memory_bytes(shape, len(tiles)):,}"]
    row += [f"{seconds:.1f}", f"{peak:,.0f}", f"{h:.3f}"]
    if z is not None:
        cols.append("zero-aware mean h")
        row.append(f"{z:.3f}")
    print(" | ".join(cols))
    print(" | ".join(row))
    print(
        f"goal {args.goal}, {shape}; {'streamed' if args.stream else 'whole'} tables; "
        f"states {states:,}; max h {top}, table mean {table_mean:.3f}; layers {layers}; "
        f"clipped {clipped:,}; load {load0:.1f} -> {load1:.1f} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
