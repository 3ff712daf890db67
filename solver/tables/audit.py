"""A full audit of a database file: everything a reader relies on (layer 1: tables).

``build-pdb --verify`` runs :func:`audit` on every file of the data directory.  A reader
(:mod:`.exact`, :mod:`.pattern_db`) proves the digest and checks what is cheap on every open;
the audit checks everything, reading every byte:

* the digest in the user block, computed afresh (never taken from the record of verified files);
* the root attributes: ``format``, ``format_version``, ``ranking``, and ``kind``, ``shape``,
  ``goal``, ``partition``, ``patterns`` agreeing with what the file's *name* says
  (:func:`solver.tables.names.parse_name`) -- another database's file under this name fails;
* every dataset the reader needs is present, and no other: ``blank_<cell>`` for each cell of an
  exact file, ``pattern_<i>`` for each pattern of an additive one, with the ``tiles`` of the
  partition in order;
* each table's size and type (``N!`` entries, or ``N!/(N-k)!`` for a pattern of k tiles; uint8),
  its ``checksum``, its histogram ``counts`` recomputed from the table (with ``max_distance`` /
  ``max_h`` and the unreachable entries), and its goal's entry at 0.

The file is never handed to h5py before its digest is proven, so damage cannot make the audit
hang or crash.

Imports: numpy, h5py (when auditing), :mod:`.store`, :mod:`.names`, the core.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..core.packing import VALUE_MASK
from ..core.ranking import count_placements, rank
from . import names, store

UNREACHABLE = 255  # the uint8 entry of a state (or placement) no search reached
_STEP = 1 << 24  # entries counted at a time: bounded memory on the 550 MB tables


def audit(path: Path) -> list[str]:
    """Every problem found in the database file ``path`` (empty when it is sound).  Never
    raises for a damaged file; a name that is not a database's gives one problem."""
    path = Path(path)
    entry = names.parse_name(path)
    if entry is None:
        return [f"{path.name}: not the name of an npuzzle database"]
    problems = store.verify(path)  # the digest afresh, then each dataset's checksum
    if problems:
        return problems
    import h5py

    try:
        with h5py.File(path, "r") as f:
            attrs = {k: store._decode(v) for k, v in f.attrs.items()}
            problems += _root_problems(entry, attrs)
            if entry.kind == names.EXACT and entry.layout == names.COMPACT:
                problems += _compact_problems(entry, f)
            elif entry.kind == names.EXACT:
                problems += _exact_problems(entry, f)
            elif entry.kind == names.ZERO_AWARE:
                problems += _zero_aware_problems(entry, f)
            else:
                problems += _additive_problems(entry, f)
    except Exception as e:  # noqa: BLE001 - a proven file h5py cannot read: say so, go on
        problems.append(f"{path.name}: unreadable ({type(e).__name__}: {e})")
    return [f"{path.name}: {p}" if not p.startswith(path.name) else p for p in problems]


def _root_problems(entry: names.Entry, attrs: dict) -> list[str]:
    want = {
        "format": store.FORMAT,
        "format_version": store.FORMAT_VERSION,
        "ranking": store.RANKING,
        "kind": entry.kind,
        "shape": str(entry.shape),
        "goal": entry.goal.flat(),
    }
    if entry.kind in (names.ADDITIVE, names.ZERO_AWARE):
        want["partition"] = entry.partition_name
        want["patterns"] = str(entry.partition)
    elif entry.layout == names.COMPACT:
        from . import compact

        want.update(layout=names.COMPACT, encoding=compact.ENCODING, index=compact.INDEX)
    return [
        f"attribute {k} is {attrs.get(k)!r}, its name says {v!r}"
        for k, v in want.items()
        if attrs.get(k) != v
    ]


def _datasets(f, expected: list[str]) -> tuple[list[str], list[str]]:
    """(problems, names present) for the datasets ``expected`` and no others."""
    present = [name for name in expected if name in f]
    problems = [f"dataset {name} is missing" for name in expected if name not in f]
    problems += [f"unexpected dataset {name}" for name in f if name not in expected]
    return problems, present


def _exact_problems(entry: names.Entry, f) -> list[str]:
    from .exact import canonical_goal, table_name

    n = entry.shape.size
    problems, present = _datasets(f, [table_name(c) for c in range(n)])
    for name in present:
        cell = int(name.rsplit("_", 1)[1])
        goal = canonical_goal(entry.shape, cell)
        problems += _table_problems(
            f[name],
            name,
            n,
            math.factorial(n),
            goal.tiles,
            goal.flat(),
            "max_distance",
            math.factorial(n) // 2,
        )
    return problems


def _compact_problems(entry: names.Entry, f) -> list[str]:
    """A compact exact file: its datasets, of the sizes its shape needs.  (Its nibbles are
    covered by the digest and their checksums; recounting them would mean decoding 240
    million states, so its histogram is taken as written.)"""
    from . import compact

    problems, present = _datasets(
        f,
        [
            compact.NIBBLES,
            compact.BLOCK_BASE,
            compact.OVERFLOW_INDEX,
            compact.OVERFLOW_DISTANCE,
            compact.RARE_INDEX,
        ],
    )
    sizes = {
        compact.NIBBLES: compact.packed_bytes(entry.shape),
        compact.BLOCK_BASE: compact.base_entries(entry.shape),
    }
    for name, size in sizes.items():
        if name in present and f[name].shape != (size,):
            problems.append(f"{name} has {f[name].shape} entries, expected ({size},)")
    if (
        compact.OVERFLOW_INDEX in present
        and compact.OVERFLOW_DISTANCE in present
        and f[compact.OVERFLOW_INDEX].shape != f[compact.OVERFLOW_DISTANCE].shape
    ):
        problems.append("the overflow lists differ in length")
    return problems


def _patterns(entry: names.Entry, f) -> tuple[list[str], list[tuple[str, tuple]], list[int]]:
    """(problems, the datasets present with their pattern's tiles, each tile's goal cell) of
    a pattern database: one ``pattern_i`` per pattern, each with the tiles its name says."""
    patterns = list(entry.partition.patterns)
    problems, present = _datasets(f, [f"pattern_{i}" for i in range(len(patterns))])
    home = [0] * entry.shape.size
    for cell, t in enumerate(entry.goal.tiles):
        home[t] = cell
    named = []
    for name in present:
        tiles = tuple(patterns[int(name.rsplit("_", 1)[1])])
        stored = tuple(int(t) for t in np.atleast_1d(store._decode(f[name].attrs.get("tiles", []))))
        if stored != tiles:
            problems.append(f"{name} has tiles {stored}, the partition says {tiles}")
        else:
            named.append((name, tiles))
    return problems, named, home


def _additive_problems(entry: names.Entry, f) -> list[str]:
    n = entry.shape.size
    problems, named, home = _patterns(entry, f)
    for name, tiles in named:
        goal_cells = [home[t] for t in tiles]
        ds = f[name]
        problems += _table_problems(
            ds,
            name,
            n,
            count_placements(n, len(tiles)),
            goal_cells,
            None,
            "max_h",
            ds.attrs.get("unreached"),
        )
    return problems


def _zero_aware_problems(entry: names.Entry, f) -> list[str]:
    """A zero-aware twin: a packed byte a placement, the goal's lower distance 0, and --
    where the additive database it is the twin of is built -- every lower distance its
    entry (:func:`pdb_builder.zero_aware.pack_classes`)."""
    import h5py

    n = entry.shape.size
    problems, named, home = _patterns(entry, f)
    additive = entry.path.with_name(
        names.apdb_file_name(entry.shape, entry.partition_name, entry.goal)
    )
    other = h5py.File(additive, "r") if additive.is_file() else None
    try:
        for name, tiles in named:
            ds, size = f[name], count_placements(n, len(tiles))
            if ds.dtype != np.uint8 or ds.ndim != 1 or ds.shape[0] != size:
                problems.append(f"{name} is {ds.dtype} {ds.shape}, expected uint8 ({size},)")
                continue
            packed = store._memmap(Path(ds.file.filename), ds)
            r = int(rank(np.array([home[t] for t in tiles], np.int64), n))
            if int(packed[r]) & VALUE_MASK != 0:
                problems.append(f"{name} does not put its goal at 0")
            if other is not None and name in other and other[name].shape[0] == size:
                table = store._memmap(additive, other[name])
                for i in range(0, table.size, _STEP):
                    low = np.asarray(packed[i : i + _STEP]) & VALUE_MASK
                    if not np.array_equal(low, table[i : i + _STEP]):
                        problems.append(
                            f"{name}: its lower distances are not {additive.name}'s table"
                        )
                        break
    finally:
        if other is not None:
            other.close()
    return problems


def _table_problems(
    ds, name: str, n: int, size: int, goal_index, goal_flat: str | None, max_attr: str, unreachable
) -> list[str]:
    """Size, type, the goal's entry (at the rank of ``goal_index`` among ``n`` cells), the
    histogram and its companions, recomputed from the table."""
    if ds.dtype != np.uint8 or ds.ndim != 1 or ds.shape[0] != size:
        return [f"{name} is {ds.dtype} {ds.shape}, expected uint8 ({size},)"]
    problems = []
    if goal_flat is not None and store._decode(ds.attrs.get("goal")) != goal_flat:
        problems.append(
            f"{name} has goal {store._decode(ds.attrs.get('goal'))!r}, expected {goal_flat!r}"
        )
    table = store._memmap(Path(ds.file.filename), ds)
    if int(table[int(rank(np.array(goal_index, np.int64), n))]) != 0:
        problems.append(f"{name} does not put its goal at 0")
    hist = histogram(table)
    counts = [int(c) for c in np.atleast_1d(store._decode(ds.attrs.get("counts", [])))]
    top = int(np.flatnonzero(hist[:UNREACHABLE]).max()) if hist[:UNREACHABLE].any() else -1
    if counts != hist[: top + 1].tolist():
        problems.append(f"{name}: its counts attribute does not match the table")
    if store._decode(ds.attrs.get(max_attr)) != top:
        problems.append(
            f"{name}: {max_attr} is {store._decode(ds.attrs.get(max_attr))!r}, the "
            f"table's largest entry is {top}"
        )
    mean = store._decode(ds.attrs.get("mean_h"))
    if (
        mean is not None
        and counts
        and (
            not isinstance(mean, (int, float)) or abs(mean - _mean(counts)) > 1e-9 * max(1.0, mean)
        )
    ):
        problems.append(f"{name}: mean_h is {mean!r}, its counts say {_mean(counts)!r}")
    if unreachable is not None and store._decode(unreachable) != int(hist[UNREACHABLE]):
        problems.append(
            f"{name}: {int(hist[UNREACHABLE]):,} unreached entries, expected "
            f"{store._decode(unreachable)!r}"
        )
    return problems


def _mean(counts: list[int]) -> float:
    return float(np.dot(np.arange(len(counts)), counts) / np.sum(counts))


def histogram(table: np.ndarray) -> np.ndarray:
    """How many entries hold each value 0..255, counted in slices (bounded memory)."""
    hist = np.zeros(256, np.int64)
    for i in range(0, table.size, _STEP):
        hist += np.bincount(np.asarray(table[i : i + _STEP]), minlength=256)
    return hist


__all__ = ["audit", "histogram"]
