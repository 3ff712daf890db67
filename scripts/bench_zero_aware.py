#!/usr/bin/env python
"""What zero-aware pattern databases would give npuzzle: a measurement, not a feature.

Korf & Felner's additive tables (npuzzle's) keep, for each placement of a pattern's tiles,
the fewest moves of those tiles over every place of the blank.  A *zero-aware* one (Clausecker
& Reinefeld) also knows which region of the free cells holds the blank -- the pattern's tiles
can wall cells off, and a tile can only move into the blank's region, which the blank crosses
for free (its moves are other patterns' moves).  Its state is (placement of the pattern's
tiles, the blank's region); it is never below Korf & Felner's value of the same placement (the
minimum over the regions) and is still additive.

This script builds, for one partition, in memory (never written to disk) four tables:

* ``jump``: a table that ignores the blank altogether (a pattern tile may slide into any free
  neighbouring cell, as if the blank could jump there);
* ``kf``: Korf & Felner's additive table, the one npuzzle builds and searches with: the blank
  is part of the search that makes it, and each placement keeps the minimum over the blank's
  places (here: the minimum of ``zpdb`` over the regions);
* ``zpdb``: the zero-aware table over (placement, region), every region kept apart;
* ``zpdb2``: the same folded into two classes per placement -- the blank in the largest
  region, or elsewhere (the minimum over the other regions) -- which a search could index
  as ``2 * rank + class`` beside npuzzle's incremental ranks (twice an additive table's size);

then prints the mean heuristic over random solvable boards (with and without the mirrored
lookup) and, with ``--boards``, IDA*'s generated nodes with each table (a plain IDA*: never
undo the last move, no duplicate pruning, the lookups recomputed for the moved tile only;
``--mirror`` adds the mirrored lookup, as npuzzle's search has it).

    python scripts/bench_zero_aware.py                        # 4x4, 6-6-3, Korf's 100 (a minute)
    python scripts/bench_zero_aware.py --mirror               # the same with the mirrored lookup
    python scripts/bench_zero_aware.py --shape 5x5 --mirror --boards kf24:40,38

Everything is for the blank-first goal (tile t on cell t).  5x5 needs about 5 GB and 20
minutes on one core for the tables (4.5 minutes a pattern), then a few minutes a board; node
counts are exact, independent of the machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.core import ranking_jit, regions_jit  # noqa: E402
from solver.core import regions as cellsets  # noqa: E402
from solver.core.board import Board, Shape, goal_board, is_solvable  # noqa: E402

PARTITIONS = {
    "4x4": ((3, 6, 7), (1, 2, 4, 5, 8, 12), (9, 10, 11, 13, 14, 15)),  # 6-6-3
    "5x5": (  # Korf & Felner's 6-6-6-6
        (1, 2, 5, 6, 7, 12),
        (3, 4, 8, 9, 13, 14),
        (10, 11, 15, 16, 20, 21),
        (17, 18, 19, 22, 23, 24),
    ),
}
UNSEEN = 255
MAX_TILES = 7  # in one pattern
KINDS = ("jump", "kf", "zpdb", "zpdb2")  # the tables, in the order of their kind numbers


@numba.njit(cache=True)
def build(rows, cols, goal_cells, zero_aware, nregions, labels, binom, blank_goal, nb):
    """Distances of one pattern (goal_cells: its tiles' goal cells) by a breadth-first search
    backwards from the goal.  zero_aware: states (rank, region), index rank * nregions +
    region; else states are ranks.  Every move slides one pattern tile (cost 1)."""
    n = rows * cols
    k = len(goal_cells)
    places = 1
    for i in range(k):
        places *= n - i
    width = nregions if zero_aware else 1
    dist = np.full(places * width, UNSEEN, np.uint8)
    queue = np.empty(places * width, np.uint32)
    cells = np.empty(k, np.int64)
    mask = 0
    for i in range(k):
        mask |= 1 << goal_cells[i]
    start = ranking_jit.rank(goal_cells, n) * width
    if zero_aware:
        start += labels[regions_jit.set_rank(mask, n, binom), blank_goal]
    dist[start] = 0
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        idx = queue[head]
        head += 1
        d = dist[idx]
        r = idx // width
        here = idx - r * width  # the blank's region
        ranking_jit.unrank(r, n, k, cells)
        mask = 0
        for i in range(k):
            mask |= 1 << cells[i]
        mr = regions_jit.set_rank(mask, n, binom)
        for i in range(k):
            x = cells[i]
            for j in range(4):
                y = nb[x, j]
                if y < 0 or (mask >> y) & 1:
                    continue
                if zero_aware and labels[mr, y] != here:
                    continue  # the blank cannot reach that cell without moving a pattern tile
                cells[i] = y
                nxt = ranking_jit.rank(cells, n) * width
                if zero_aware:
                    mask2 = mask ^ (1 << x) ^ (1 << y)
                    nxt += labels[regions_jit.set_rank(mask2, n, binom), x]  # the blank is now on x
                cells[i] = x
                if dist[nxt] == UNSEEN:
                    dist[nxt] = d + 1
                    queue[tail] = nxt
                    tail += 1
    return dist


@numba.njit(cache=True)
def fold(z, nregions, nreg, main, places, n, k, binom, classes):
    """The zero-aware table folded to (rank, blank in the largest region or not) (classes 2),
    or to the minimum over the regions (classes 1)."""
    out = np.full(places * classes, UNSEEN, np.uint8)
    cells = np.empty(k, np.int64)
    for r in range(places):
        ranking_jit.unrank(r, n, k, cells)
        mask = 0
        for i in range(k):
            mask |= 1 << cells[i]
        mr = regions_jit.set_rank(mask, n, binom)
        for lab in range(nreg[mr]):
            v = z[r * nregions + lab]
            slot = r * classes + (0 if lab == main[mr] or classes == 1 else 1)
            if v < out[slot]:
                out[slot] = v
    return out


@numba.njit(cache=True, inline="always")
def _pattern_h(tiles_at, blank, p, pats, pk, table, off, kind, width, labels, main, binom, n):
    """One pattern's value for the board whose tile t stands on ``tiles_at[t]``."""
    k = pk[p]
    cells = np.empty(MAX_TILES, np.int64)
    mask = 0
    for i in range(k):
        cells[i] = tiles_at[pats[p, i]]
        mask |= 1 << cells[i]
    r = ranking_jit.rank(cells[:k], n)
    if kind <= 1:
        return table[off[p] + r]
    mr = regions_jit.set_rank(mask, n, binom[p])
    lab = labels[p][mr, blank]
    if kind == 2:
        return table[off[p] + r * width[p] + lab]
    return table[off[p] + r * 2 + (0 if lab == main[p][mr] else 1)]


class Tables:
    """The four tables (:data:`KINDS`) of one partition on one shape, and what a lookup
    needs; the blank-first goal."""

    def __init__(self, rows, cols, partition):
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.nb = cellsets.neighbour_cells(rows, cols)
        self.partition = partition
        n = self.n
        binom = self.binom = cellsets.binomials(n)
        self.pats = np.full((len(partition), MAX_TILES), 0, np.int64)
        self.pk = np.array([len(p) for p in partition], np.int64)
        for i, p in enumerate(partition):
            self.pats[i, : len(p)] = p
        self.labels, self.main, self.width = [], [], []
        parts = {0: [], 1: [], 2: [], 3: []}
        for p in partition:
            t0 = time.perf_counter()
            labels, nreg, main = cellsets.label_regions(rows, cols, len(p))
            width = int(nreg.max())
            goal = np.array(p, np.int64)  # blank-first: tile t's goal cell is t
            a = build(rows, cols, goal, False, 1, labels, binom, 0, self.nb)
            z = build(rows, cols, goal, True, width, labels, binom, 0, self.nb)
            places = len(a)
            parts[0].append(a)
            parts[1].append(fold(z, width, nreg, main, places, n, len(p), binom, 1))
            parts[2].append(z)
            parts[3].append(fold(z, width, nreg, main, places, n, len(p), binom, 2))
            self.labels.append(labels)
            self.main.append(main)
            self.width.append(width)
            print(
                f"  pattern {p}: {places:,} placements, up to {width} regions, "
                f"{time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
            )
        self.tables, self.offsets = {}, {}
        for kind, arrays in parts.items():
            self.offsets[kind] = np.cumsum([0] + [len(x) for x in arrays[:-1]]).astype(np.int64)
            self.tables[kind] = np.concatenate(arrays)
        self.labels_t = tuple(self.labels)
        self.main_t = tuple(self.main)
        self.width_a = np.array(self.width, np.int64)
        self.binom_t = tuple(binom for _ in partition)

    def args(self, kind):
        """The lookup's arguments for a kind of table (an index into KINDS)."""
        return (
            self.pats,
            self.pk,
            self.tables[kind],
            self.offsets[kind],
            kind,
            self.width_a,
            self.labels_t,
            self.main_t,
            self.binom_t,
            self.n,
        )


@numba.njit(cache=True)
def board_h(board, pats, pk, table, off, kind, width, labels, main, binom, n):
    """The sum of the partition's lookups for ``board`` (cell -> tile), the arguments being
    :meth:`Tables.args` of one kind of table."""
    tiles_at = np.empty(n, np.int64)
    blank = 0
    for c in range(n):
        tiles_at[board[c]] = c
        if board[c] == 0:
            blank = c
    h = 0
    for p in range(len(pk)):
        h += _pattern_h(
            tiles_at, blank, p, pats, pk, table, off, kind, width, labels, main, binom, n
        )
    return h


@numba.njit(cache=True)
def diagonal_cells(rows, cols):
    """``out[c]``: cell c mirrored across the main diagonal (square boards).  For the
    blank-first goal the mirror renames tile t to ``out[t]`` too, so the goal stays the goal."""
    out = np.empty(rows * cols, np.int64)
    for c in range(rows * cols):
        out[c] = (c % cols) * cols + c // cols
    return out


def transpose(board, rows, cols):
    """The board mirrored across the main diagonal, tiles renamed likewise (square boards)."""
    img = diagonal_cells(rows, cols)
    out = np.empty_like(board)
    out[img] = img[board]
    return out


def mean_heuristics(t: Tables, samples: int, seed: int = 1):
    """Mean h over random solvable boards per kind, without and with the mirrored lookup; and
    the share of the ``zpdb2`` lookups whose two classes hold different values (only those
    need the blank's class: where they agree, either value is the answer)."""
    rng = np.random.default_rng(seed)
    shape = Shape(t.rows, t.cols)
    goal = goal_board(shape, "blank-first")
    sums = np.zeros((len(KINDS), 2))
    differ = 0
    done = 0
    while done < samples:
        board = rng.permutation(t.n)
        if not is_solvable(Board.from_tiles(board, shape), goal):
            continue
        mirror = transpose(board, t.rows, t.cols)
        for kind in range(len(KINDS)):
            a = board_h(board, *t.args(kind))
            b = board_h(mirror, *t.args(kind))
            sums[kind, 0] += a
            sums[kind, 1] += max(a, b)
        differ += classes_differ(board, *t.args(KINDS.index("zpdb2")))
        done += 1
    return sums / samples, differ / (samples * len(t.pk))


@numba.njit(cache=True)
def classes_differ(board, pats, pk, table, off, kind, width, labels, main, binom, n):
    """How many of the board's pattern lookups in a two-class table (``zpdb2``) find two
    different values for the placement (a class with no region reads UNSEEN: no difference)."""
    tiles_at = np.empty(n, np.int64)
    for c in range(n):
        tiles_at[board[c]] = c
    out = 0
    cells = np.empty(MAX_TILES, np.int64)
    for p in range(len(pk)):
        for i in range(pk[p]):
            cells[i] = tiles_at[pats[p, i]]
        r = ranking_jit.rank(cells[: pk[p]], n)
        v0, v1 = table[off[p] + 2 * r], table[off[p] + 2 * r + 1]
        out += v1 != UNSEEN and v1 != v0
    return out


@numba.njit(cache=True)
def ida(
    board, rows, cols, mirror, pats, pk, table, off, kind, width, labels, main, binom, n, nb, cap
):
    """Plain IDA* (never undo) with the sum of the pattern lookups, and with ``mirror`` the
    maximum of that and the same sum for the board mirrored across the diagonal (square
    boards); returns (length, nodes generated), or (-1, nodes) past ``cap`` nodes."""
    tiles = board.copy()
    tiles_at = np.empty(n, np.int64)
    for c in range(n):
        tiles_at[tiles[c]] = c
    # The mirror: tile T[t] stands on cell T[c] (the transpose renames tiles as it moves cells).
    T = diagonal_cells(rows, cols)
    at_m = np.empty(n, np.int64)
    for t in range(n):
        at_m[T[t]] = T[tiles_at[t]]
    patof = np.zeros(n, np.int64)
    for p in range(len(pk)):
        for i in range(pk[p]):
            patof[pats[p, i]] = p
    np_ = len(pk)
    hv = np.zeros((200, np_), np.int64)
    hm = np.zeros((200, np_), np.int64)
    blank = tiles_at[0]
    for p in range(np_):
        hv[0, p] = _pattern_h(
            tiles_at, blank, p, pats, pk, table, off, kind, width, labels, main, binom, n
        )
        hm[0, p] = _pattern_h(
            at_m, T[blank], p, pats, pk, table, off, kind, width, labels, main, binom, n
        )
    bound = max(hv[0].sum(), hm[0].sum()) if mirror else hv[0].sum()
    gen = 0
    moves = np.zeros(200, np.int64)
    nexti = np.zeros(200, np.int64)
    while True:
        nxt = 1 << 30
        d = 0
        nexti[0] = 0
        moves[0] = -1
        blank = tiles_at[0]
        while d >= 0:
            if nexti[d] >= 4:
                if d == 0:
                    break
                # undo the move into depth d
                d -= 1
                came = moves[d + 1]
                t = tiles[came]
                tiles[blank] = t
                tiles_at[t] = blank
                tiles[came] = 0
                tiles_at[0] = came
                at_m[T[t]] = T[blank]
                at_m[0] = T[came]
                blank = came
                continue
            j = nexti[d]
            nexti[d] += 1
            y = nb[blank, j]
            if y < 0 or y == moves[d]:
                continue
            t = tiles[y]
            gen += 1
            old = blank
            tiles[old] = t
            tiles_at[t] = old
            tiles[y] = 0
            tiles_at[0] = y
            blank = y
            # Only the moved tile's pattern changes: its placement, and (zero-aware) the blank's
            # region in it; in every other pattern the blank stayed in its region.
            p = patof[t]
            for q in range(np_):
                hv[d + 1, q] = hv[d, q]
            hv[d + 1, p] = _pattern_h(
                tiles_at, blank, p, pats, pk, table, off, kind, width, labels, main, binom, n
            )
            h = 0
            for q in range(np_):
                h += hv[d + 1, q]
            if mirror:
                at_m[T[t]] = T[old]
                at_m[0] = T[y]
                pm = patof[T[t]]
                for q in range(np_):
                    hm[d + 1, q] = hm[d, q]
                hm[d + 1, pm] = _pattern_h(
                    at_m, T[y], pm, pats, pk, table, off, kind, width, labels, main, binom, n
                )
                hs = 0
                for q in range(np_):
                    hs += hm[d + 1, q]
                h = max(h, hs)
            f = d + 1 + h
            if f > bound:
                if f < nxt:
                    nxt = f
                tiles[y] = t
                tiles_at[t] = y
                tiles[old] = 0
                tiles_at[0] = old
                at_m[T[t]] = T[y]
                at_m[0] = T[old]
                blank = old
                continue
            if h == 0:
                return d + 1, gen
            d += 1
            moves[d] = old  # the cell the blank came from: not undone
            nexti[d] = 0
            if gen > cap:
                return -1, gen
        bound = nxt


def read_boards(spec: str, shape: str):
    """``korf100``, ``korf100:1,2,3`` or ``kf24:40,38``: (id, tiles) pairs."""
    name, _, ids = spec.partition(":")
    path = {"korf100": ROOT / "data" / "korf100.txt", "kf24": ROOT / "data" / "korf-felner-24.txt"}
    rows = [line.split("\t") for line in path[name].read_text().splitlines() if line[:1].isdigit()]
    wanted = {int(i) for i in ids.split(",")} if ids else None
    return [
        (int(r[0]), np.array(r[1].split(), np.int64))
        for r in rows
        if wanted is None or int(r[0]) in wanted
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="4x4", choices=sorted(PARTITIONS))
    ap.add_argument("--samples", type=int, default=20000, help="random boards for the mean h")
    ap.add_argument(
        "--boards", default=None, help="korf100[:ids] or kf24:ids (default: none on 5x5)"
    )
    ap.add_argument("--cap", type=int, default=2_000_000_000, help="nodes per search")
    ap.add_argument("--mirror", action="store_true", help="IDA* takes the mirrored lookup too")
    a = ap.parse_args()
    rows, cols = map(int, a.shape.split("x"))
    boards = a.boards or ("korf100" if a.shape == "4x4" else None)
    t = Tables(rows, cols, PARTITIONS[a.shape])
    means, differ = mean_heuristics(t, a.samples)
    part = "-".join(str(len(p)) for p in PARTITIONS[a.shape])
    print(f"\n{a.shape}, {part}: mean h over {a.samples:,} random solvable boards\n")
    print("| table | entries | mean h | mean h with the mirrored lookup |")
    print("|---|---:|---:|---:|")
    for kind, name in enumerate(KINDS):
        print(f"| {name} | {len(t.tables[kind]):,} | {means[kind, 0]:.3f} | {means[kind, 1]:.3f} |")
    print(f"\nzpdb2 lookups whose two classes differ (only they need the class): {differ:.1%}")
    if not boards:
        return
    how = "with the mirrored lookup" if a.mirror else "without the mirror"
    print(f"\nIDA* (never undo, {how}), nodes generated, {boards}\n")
    kinds = range(1, len(KINDS))  # "jump" is too weak to search with
    print("| # | length | " + " | ".join(KINDS[k] for k in kinds) + " | zpdb / kf | zpdb2 / kf |")
    print("|---|---:|" + "---:|" * (len(kinds) + 2))
    totals = np.zeros(len(kinds))
    seconds = np.zeros(len(kinds))
    for ident, board in read_boards(boards, a.shape):
        out = []
        for i, kind in enumerate(kinds):
            t0 = time.process_time()
            out.append(ida(board, rows, cols, a.mirror, *t.args(kind), t.nb, a.cap))
            seconds[i] += time.process_time() - t0
        lengths = {length for length, _ in out}
        if -1 in lengths:
            print(f"| {ident} | over --cap {a.cap:,} nodes with one table: left out |", flush=True)
            continue
        assert len(lengths) == 1, (ident, out)  # all are admissible: the same length
        nodes = [g for _, g in out]
        totals += nodes
        print(f"| {ident} | {out[0][0]} | {_cells(nodes)} |", flush=True)
    print(f"| all | | {_cells(totals)} |")
    # This IDA* recomputes a moved pattern's rank from scratch (npuzzle's kernels update it),
    # so its time per node says what the class costs beside a rank, not npuzzle's speed.
    per_node = ", ".join(
        f"{KINDS[k]} {1e9 * s / g:.0f} ns" for k, s, g in zip(kinds, seconds, totals)
    )
    print(f"\nCPU time per generated node (the first search of each compiles): {per_node}")


def _cells(nodes) -> str:
    ratios = [f"{nodes[1] / nodes[0]:.3f}", f"{nodes[2] / nodes[0]:.3f}"]
    return " | ".join([f"{g:,.0f}" for g in nodes] + ratios)


if __name__ == "__main__":
    main()
