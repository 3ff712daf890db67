"""How many positions lie at each optimal distance from a goal (layer 5: workloads).

From the exact table when the board has one (2x3, 3x3, 3x4, ..., searched in memory where
none is built on boards of up to 10 cells: :func:`solver.tables.exact.table_for`), else from a published
reference file ``distances-<shape>.txt`` (the 4x4 counts of Korf & Schultze 2005, the 3x4,
2x6, 2x5 and 2x4 counts of OEIS A090166, A090167, A090036, A090035; valid for every goal with
the blank in a corner).  Used by ``npuzzle stats`` and by :mod:`solver.workloads.generate` to know how
rare a requested distance is.

Imports: the solver core (board, store, exact).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..core.board import Board, BoardError, Shape, preset_goal
from ..tables import catalog, exact, store

REFERENCE_PACKAGE_DIR = "reference"  # solver/reference/distances-<shape>.txt


class DistributionError(BoardError):
    """No source knows the distribution asked for, or a reference file is malformed."""


@dataclass(frozen=True)
class DistanceCounts:
    """How many positions lie at each optimal distance from a goal, and where that is known."""

    shape: Shape
    goal: Board
    counts: tuple[int, ...]  # counts[d] = number of positions at distance d
    source: str  # e.g. "exact table exact-3x3.h5" or "published counts (…/distances-4x4.txt)"
    notice: str | None = None  # a note for the user: the table was searched in memory

    @property
    def total(self) -> int:
        """Number of positions that can reach the goal (``N!/2``)."""
        return sum(self.counts)

    @property
    def max_distance(self) -> int:
        """The largest distance any position has."""
        return len(self.counts) - 1

    @property
    def mean(self) -> float:
        """Mean optimal distance of a uniformly random solvable position."""
        return sum(d * c for d, c in enumerate(self.counts)) / self.total

    def share(self, lo: int, hi: int) -> float:
        """Fraction of the positions whose distance is in ``lo..hi``."""
        return sum(self.counts[max(lo, 0) : hi + 1]) / self.total

    def as_dict(self) -> dict:
        """JSON-ready fields."""
        return {
            "shape": str(self.shape),
            "goal": self.goal.flat(),
            "source": self.source,
            "counts": list(self.counts),
            "total": self.total,
            "max_distance": self.max_distance,
            "mean": round(self.mean, 6),
        }


# --- distance distributions ------------------------------------------------------------------


def _corner_cells(shape: Shape) -> set[int]:
    return {0, shape.cols - 1, shape.size - shape.cols, shape.size - 1}


def _reference_path(shape: Shape, data_dir=None) -> Path | None:
    # A board and its transpose have the same counts (reflecting across the diagonal maps
    # moves to moves and a corner to a corner), so 4x3 reads distances-3x4.txt.
    for name in dict.fromkeys(
        (f"distances-{shape}.txt", f"distances-{shape.cols}x{shape.rows}.txt")
    ):
        candidate = store.data_dir(data_dir) / name
        if candidate.is_file():
            return candidate
        packaged = resources.files(__package__) / REFERENCE_PACKAGE_DIR / name
        if packaged.is_file():
            return Path(str(packaged))
    return None


def read_reference(path: Path) -> list[int]:
    """Counts from a reference file: ``distance<TAB>states`` lines, ``#`` comments."""
    counts: dict[int, int] = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        try:
            d, c = int(parts[0]), int(parts[1])
        except (IndexError, ValueError):
            raise DistributionError(
                f"{path}:{n}: expected 'distance states', got '{line}'"
            ) from None
        counts[d] = c
    if not counts or sorted(counts) != list(range(max(counts) + 1)):
        raise DistributionError(f"{path}: distances must run 0, 1, 2, … without gaps")
    return [counts[d] for d in range(len(counts))]


def reference_counts(
    shape: Shape, goal: Board | None = None, data_dir=None
) -> DistanceCounts | None:
    """Published counts of positions at each distance (``distances-<shape>.txt``), or None.

    The 4x4 counts (Korf & Schultze 2005) hold for every goal with the blank in a corner:
    renaming tiles and mirroring the board do not change distances.  A file of that name in
    the data directory wins over the copy shipped with the package.
    """
    g = goal if goal is not None else preset_goal(shape)
    path = _reference_path(shape, data_dir)
    if path is None or g.blank not in _corner_cells(shape):
        return None
    return DistanceCounts(shape, g, tuple(read_reference(path)), f"published counts ({path})")


def uses_exact_table(shape: Shape, data_dir=None) -> bool:
    """Whether ``shape``'s distances come from an exact table: one is built, or the board is
    small enough for one searched in memory (:func:`solver.tables.exact.made_in_memory`)."""
    return exact.made_in_memory(shape) or catalog.has_exact(shape, data_dir)


def distance_counts(shape: Shape, goal: Board | None = None, data_dir=None) -> DistanceCounts:
    """Number of positions at each optimal distance from ``goal``: from the exact table when
    the board has one, else from a published reference (4x4, blank in a corner).

    Raises :class:`~solver.tables.store.DatabaseMissing` when an exact table must be built first and
    :class:`DistributionError` when no source knows the answer.
    """
    g = goal if goal is not None else preset_goal(shape)
    if uses_exact_table(shape, data_dir):
        table = exact.table_for(g, data_dir)
        counts = exact.table_counts(table)
        while counts and counts[-1] == 0:
            counts = counts[:-1]
        return DistanceCounts(shape, g, tuple(int(c) for c in counts), table.source, table.notice)
    ref = reference_counts(shape, g, data_dir)
    if ref is not None:
        return ref
    if _reference_path(shape, data_dir) is not None:
        raise DistributionError(
            f"the distances of {shape} positions are known only for goals with the blank in a "
            f"corner (distances-{shape}.txt); {g} has it on cell {g.blank}"
        )
    raise DistributionError(
        f"the distances of {shape} positions are not known: there is no exact table and no "
        f"published distribution (distances-{shape}.txt) for it"
    )
