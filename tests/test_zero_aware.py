"""The zero-aware tables of scripts/bench_zero_aware.py (the script that measures what they
give): on the whole 8-puzzle they must be admissible and ordered as their definitions
say, and IDA* with each must find the true distance -- else the node counts it prints mean
nothing."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_zero_aware as za  # noqa: E402
from naive_bfs import distances_from  # noqa: E402

from solver.core import regions as cellsets  # noqa: E402

JUMP, KF, ZPDB, ZPDB2 = range(len(za.KINDS))


@pytest.fixture(scope="module")
def eight_puzzle():
    tables = za.Tables(3, 3, ((1, 2, 3, 4), (5, 6, 7, 8)))
    truth = distances_from(tuple(range(9)), 3, 3)  # blank-first: tile t on cell t
    return tables, truth


def test_every_table_is_admissible_and_zero_awareness_only_adds(eight_puzzle):
    tables, truth = eight_puzzle
    gained = 0
    for state, dist in truth.items():
        board = np.array(state, np.int64)
        h = [za.board_h(board, *tables.args(kind)) for kind in range(len(za.KINDS))]
        assert h[JUMP] <= h[KF] <= h[ZPDB2] <= h[ZPDB] <= dist, (state, h, dist)
        mirrored = za.board_h(za.transpose(board, 3, 3), *tables.args(ZPDB))
        assert mirrored <= dist, (state, mirrored, dist)  # the mirror's goal is the goal
        gained += h[ZPDB] > h[KF]
    assert gained > 1000  # the blank's region matters on this board, or nothing was measured


def test_idastar_with_each_table_finds_the_true_distance(eight_puzzle):
    tables, truth = eight_puzzle
    rng = random.Random(21)
    for i, state in enumerate(rng.sample(sorted(truth), 40)):
        board = np.array(state, np.int64)
        mirror = i % 2 == 1  # half of them with the mirrored lookup too
        kinds = (KF, ZPDB, ZPDB2)
        runs = [za.ida(board, 3, 3, mirror, *tables.args(kind), tables.nb, 10**7) for kind in kinds]
        assert {length for length, _ in runs} == {truth[state]}, (state, runs)
        kf, zpdb, zpdb2 = (nodes for _, nodes in runs)
        # The last iteration stops at its first solution, so a stronger table may by chance
        # need a few more nodes there; never many more.
        assert zpdb <= kf * 1.5 + 50 and zpdb2 <= kf * 1.5 + 50


def test_regions_are_the_free_cells_connected_parts():
    binom = cellsets.binomials(9)
    labels, nreg, main = cellsets.label_regions(3, 3, 2)
    # Tiles on cells 1 and 3 wall the corner 0 off from the other six free cells.
    mask = (1 << 1) | (1 << 3)
    mr = cellsets.set_rank(mask, 9, binom)
    assert nreg[mr] == 2
    assert labels[mr, 0] != labels[mr, 4] and labels[mr, 1] == -1
    assert main[mr] == labels[mr, 4]  # the largest region holds the centre
