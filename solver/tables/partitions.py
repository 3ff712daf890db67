"""Partitions of the tiles into disjoint patterns: presets and custom, validated (layer 1: tables).

The vocabulary of additive pattern databases.  A :class:`Pattern` is a sorted tuple of tiles; a
:class:`Partition` is a tuple of patterns that are pairwise disjoint and together cover every
tile ``1..N-1`` of a shape, with a ``name`` used in file names (``apdb-4x4-6-6-3.h5``).

Why disjoint: each pattern's table counts only the moves of *its own* tiles (the other tiles are
indistinguishable and move for free), and every real move slides exactly one tile, so it is
charged to at most one table -- the sum of the tables never overestimates.  Overlapping patterns
would charge one move twice.

Presets are regions of the board, not tile numbers: each is defined once, as groups of cells of
the goal it was published for, and a preset for any other goal is the same regions carried
through the board symmetry that takes that goal's blank onto the other's (the one
:mod:`solver.core.symmetry` reduces goals with), then read as the tiles the goal puts there.
So ``7-8`` names the top-two-rows / bottom-two-rows split for every goal with a corner blank.

Imports: :mod:`solver.core` only (no numpy), so parsing is instant.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from ..core.board import Board, BoardError, Shape, preset_goal
from ..core.symmetry import reduction


@dataclass(frozen=True)
class Preset:
    """A named partition drawn as groups of cells of the goal ``drawn_for``."""

    name: str
    drawn_for: str  # a goal preset name (board.GOAL_PRESETS)
    cells: tuple[tuple[int, ...], ...]
    source: str = ""
    races: bool = False  # one of the cuts a long search races (solver.search.race)


# Korf & Felner (2002) and Felner, Korf & Hanan (2004) drew the 15-puzzle partitions for the
# blank-first goal (blank top-left, tile t on cell t), so their tile sets are cell sets there.
# The 6-6-3 sets are the ones whose mean heuristic over random states (42.92 with reflection)
# reproduces the 42.924 Felner, Korf & Hanan (2004) report; a top-row/left/right split gave 42.14
# and needed 1.85x the nodes on Korf's 100 instances.
_PRESETS = (
    Preset(
        "7-8",
        "blank-first",
        ((1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15)),
        "Korf & Felner 2002",
    ),
    Preset(
        "6-6-3",
        "blank-first",
        ((3, 6, 7), (1, 2, 4, 5, 8, 12), (9, 10, 11, 13, 14, 15)),
        "Felner, Korf & Hanan 2004",
    ),
    Preset(
        "5-5-5",
        "blank-first",
        ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
        "Felner, Korf & Hanan 2004",
    ),
    # The 24-puzzle: Korf & Felner's four 6-tile groups (Korf's own program lists these as its
    # "regular" patterns): the blank's 2x2 corner block with 2, 7 and the centre 12, and three
    # 3x2 blocks that are rotations of one another.  The set is NOT its own mirror image: its
    # reflection across the main diagonal is a second partition (1,5,6,10,11,12 / ...), so the
    # reflection lookup takes the max of two different sums -- a self-mirrored partition would
    # make that second lookup repeat the first.
    Preset(
        "6-6-6-6",
        "blank-first",
        (
            (1, 2, 5, 6, 7, 12),
            (3, 4, 8, 9, 13, 14),
            (10, 11, 15, 16, 20, 21),
            (17, 18, 19, 22, 23, 24),
        ),
        "Korf & Felner 2002",
        races=True,
    ),
    # Second partitions, cut differently from the first: where both are built, IDA* takes the
    # maximum of the two (and of both reflections; docs/research/search.md, section 2).  For
    # 4x4 the L of the top row and the left column against the 3x3 block it encloses; for 5x5
    # one of the seven 6-6-6-6 cuts Clausecker's solver takes its maximum over.
    Preset(
        "7-8b",
        "blank-first",
        ((1, 2, 3, 4, 5, 8, 12), (6, 7, 9, 10, 11, 13, 14, 15)),
        "npuzzle, the companion of 7-8",
    ),
    Preset(
        "6-6-6-6b",
        "blank-first",
        (
            (1, 2, 5, 6, 10, 11),
            (3, 4, 9, 14, 19, 24),
            (7, 8, 12, 13, 18, 23),
            (15, 16, 17, 20, 21, 22),
        ),
        "Clausecker's 24puzzle, catalogue 'small'",
    ),
    # Three more of those seven cuts: built beside 6-6-6-6, a search races them all and goes
    # on with the one that needs the fewest nodes for its board (solver.search.race); on
    # Korf & Taylor's ten each of these three is the best for some (docs/research/search.md,
    # section 4).
    Preset(
        "6-6-6-6c",
        "blank-first",
        (
            (1, 2, 5, 6, 10, 11),
            (3, 4, 7, 8, 9, 12),
            (13, 14, 18, 19, 23, 24),
            (15, 16, 17, 20, 21, 22),
        ),
        "Clausecker's 24puzzle, catalogue 'small'",
        races=True,
    ),
    Preset(
        "6-6-6-6d",
        "blank-first",
        (
            (1, 5, 6, 10, 15, 20),
            (2, 3, 4, 7, 8, 9),
            (11, 12, 16, 17, 21, 22),
            (13, 14, 18, 19, 23, 24),
        ),
        "Clausecker's 24puzzle, catalogue 'small'",
        races=True,
    ),
    Preset(
        "6-6-6-6e",
        "blank-first",
        (
            (1, 5, 6, 10, 15, 20),
            (2, 3, 4, 7, 8, 9),
            (11, 12, 13, 16, 17, 18),
            (14, 19, 21, 22, 23, 24),
        ),
        "Clausecker's 24puzzle, catalogue 'small'",
        races=True,
    ),
    # Small boards, for tests and demonstrations (an exact table is better there).
    Preset("4-4", "blank-last", ((0, 1, 2, 3), (4, 5, 6, 7))),
    Preset("3-2", "blank-last", ((0, 1, 2), (3, 4))),
)
PRESET_SHAPES = {
    "7-8": "4x4",
    "7-8b": "4x4",
    "6-6-6-6b": "5x5",
    "6-6-6-6c": "5x5",
    "6-6-6-6d": "5x5",
    "6-6-6-6e": "5x5",
    "6-6-3": "4x4",
    "5-5-5": "4x4",
    "6-6-6-6": "5x5",
    "4-4": "3x3",
    "3-2": "2x3",
}
MAX_CELLS = 31  # the pattern BFS packs two bits per cell into one 64-bit word
SUGGESTED_MAX_ENTRIES = 1 << 26  # per table of a suggested partition: about a minute to build


class PartitionError(BoardError):
    """A partition that cannot be read or does not partition the tiles (bad input, exit 2)."""


class Pattern(tuple):
    """A set of tiles written as a sorted tuple.

    >>> Pattern([7, 3, 5])
    Pattern(3, 5, 7)
    """

    def __new__(cls, tiles):
        items = [int(t) for t in tiles]
        return super().__new__(cls, sorted(items))

    def __repr__(self) -> str:
        return f"Pattern({', '.join(map(str, self))})"

    def __str__(self) -> str:
        return ",".join(map(str, self))


@dataclass(frozen=True)
class Partition:
    """Disjoint patterns covering the tiles of a board, sorted by their smallest tile.

    ``name`` is a preset name (``6-6-3``) or, for custom partitions, the tiles written
    ``1.2.3.4-5.6.7.8`` (safe in file names).  ``str()`` gives the form accepted by
    :func:`parse_partition`:

    >>> p = parse_partition("5,6,7,8/4,3,2,1", Shape(3, 3))
    >>> p.name, str(p)
    ('4-4', '1,2,3,4/5,6,7,8')
    >>> parse_partition("1,2,3/4,5,6,7,8", Shape(3, 3)).name
    '1.2.3-4.5.6.7.8'
    """

    patterns: tuple[Pattern, ...]
    name: str

    def __str__(self) -> str:
        return "/".join(str(p) for p in self.patterns)

    def __iter__(self):
        return iter(self.patterns)

    def __len__(self) -> int:
        return len(self.patterns)

    @property
    def tiles(self) -> tuple[int, ...]:
        """Every tile of every pattern, sorted."""
        return tuple(sorted(t for p in self.patterns for t in p))

    @property
    def sizes(self) -> str:
        """The pattern sizes, e.g. ``6-6-3`` (largest first)."""
        return "-".join(str(len(p)) for p in sorted(self.patterns, key=len, reverse=True))

    def entries(self, shape: Shape) -> int:
        """Table entries of the whole database: the sum over patterns of N!/(N-k)!.  More
        entries, a better heuristic: this is how databases are ranked (7-8 > 6-6-3 > 5-5-5)."""
        return sum(math.perm(shape.size, len(p)) for p in self.patterns)


def _normalise(patterns) -> tuple[Pattern, ...]:
    return tuple(sorted((Pattern(p) for p in patterns), key=lambda p: (p[0] if p else 0, p)))


def custom_name(patterns) -> str:
    """The file-name-safe name of a custom partition, e.g. ``1.2.3.4-5.6.7.8``."""
    return "-".join(".".join(map(str, p)) for p in _normalise(patterns))


def validate(patterns, shape: Shape, text: str | None = None) -> tuple[Pattern, ...]:
    """Normalise ``patterns`` (sort tiles and patterns) and check that they form a partition of
    the tiles ``1..N-1`` of ``shape``; raise :class:`ValueError` with one line saying what is
    wrong (:class:`PartitionError`, a :class:`ValueError`)."""
    n = shape.size
    shown = f" in '{text}'" if text else ""
    if n > MAX_CELLS:
        raise PartitionError(
            f"pattern databases support boards of up to {MAX_CELLS} cells, {shape} has {n}"
        )
    pats = _normalise(patterns)
    if not pats:
        raise PartitionError(f"a partition needs at least one pattern{shown}")
    seen: dict[int, int] = {}
    for i, p in enumerate(pats):
        if not p:
            raise PartitionError(f"empty pattern{shown}")
        for t in p:
            if t == 0:
                raise PartitionError(f"the blank (0) cannot be in a pattern{shown}")
            if not 1 <= t <= n - 1:
                raise PartitionError(
                    f"tile {t} does not exist on a {shape} board (tiles are 1..{n - 1}){shown}"
                )
            if t in seen:
                where = "twice in one pattern" if seen[t] == i else "in two patterns"
                raise PartitionError(f"tile {t} appears {where}{shown}")
            seen[t] = i
    missing = [t for t in range(1, n) if t not in seen]
    if missing:
        listed = ",".join(map(str, missing))
        raise PartitionError(
            f"tiles {listed} are in no pattern{shown}: a partition must cover every tile 1..{n - 1}"
        )
    return pats


def _preset_tiles(preset: Preset, goal: Board) -> tuple[Pattern, ...]:
    """The tiles ``goal`` puts on the preset's cells, carried onto ``goal`` by a symmetry.

    When no symmetry takes the drawing goal's blank onto ``goal``'s (a blank off the corners of
    a square, say), the cells are used as drawn and the cell of ``goal``'s blank is traded for
    the drawing goal's blank cell, so the patterns still cover every tile once."""
    drawn = preset_goal(goal.shape, preset.drawn_for)
    red = reduction(drawn, goal)
    cells = preset.cells
    if red is not None:
        cells = tuple(tuple(red.symmetry.cells[c] for c in group) for group in cells)
    else:
        cells = tuple(
            tuple(drawn.blank if c == goal.blank else c for c in group) for group in cells
        )
    return _normalise(tuple(goal.tiles[c] for c in group) for group in cells)


def races(name: str | None) -> bool:
    """Whether a database of partition ``name`` takes part in a race (``--pick``): the
    presets drawn for it (6-6-6-6 and its cuts c, d, e) and every custom partition (built on
    purpose), not the other presets -- 7-8b is a quarter as strong as 7-8 on most 15-puzzles,
    and racing it cost the 80-move positions 76 % more nodes (docs/research/search.md,
    section 4)."""
    preset = next((p for p in _PRESETS if p.name == name), None)
    return preset.races if preset is not None else name is not None


def presets(shape: Shape, goal: Board | None = None) -> dict[str, Partition]:
    """The named partitions of ``shape`` as tile sets for ``goal`` (default: blank-last);
    empty for shapes without presets."""
    goal = goal if goal is not None else preset_goal(shape)
    return dict(_presets_for(shape, goal))


@functools.lru_cache(maxsize=64)  # every search asks, for the same few goals
def _presets_for(shape: Shape, goal: Board) -> tuple[tuple[str, Partition], ...]:
    return tuple(
        (p.name, Partition(_preset_tiles(p, goal), p.name))
        for p in _PRESETS
        if PRESET_SHAPES[p.name] == str(shape)
    )


def _preset_name(pats: tuple[Pattern, ...], shape: Shape, goal: Board | None) -> str | None:
    for name, p in presets(shape, goal).items():
        if p.patterns == pats:
            return name
    return None


def make_partition(
    patterns, shape: Shape, text: str | None = None, goal: Board | None = None
) -> Partition:
    """A validated :class:`Partition` from sequences of tiles; named after a preset when it
    has the preset's tile sets for ``goal``."""
    pats = validate(patterns, shape, text)
    return Partition(pats, _preset_name(pats, shape, goal) or custom_name(pats))


def parse_partition(text: str | Partition, shape: Shape, goal: Board | None = None) -> Partition:
    """Read a preset name (``5-5-5``, ``6-6-3``, ``7-8`` on 4x4) or custom tiles written
    ``1,2,3,4/5,6,7,8`` (patterns separated by ``/``, ``|`` or ``;``; tiles by commas or
    spaces; the ``1.2.3.4-5.6.7.8`` form of file names is accepted too).  Presets are read as
    the tiles ``goal`` (default: blank-last) puts on the preset's cells.

    >>> parse_partition("7-8", Shape(4, 4)).patterns[0]
    Pattern(1, 2, 3, 4, 5, 6, 7, 8)
    >>> parse_partition("7-8", Shape(4, 4), preset_goal(Shape(4, 4), "blank-first")).patterns[0]
    Pattern(1, 2, 3, 4, 5, 6, 7)
    >>> parse_partition("1,2/3", Shape(2, 2)).name
    '1.2-3'
    """
    if isinstance(text, Partition):
        return make_partition(text.patterns, shape, goal=goal)
    raw = str(text).strip()
    named = presets(shape, goal)
    if raw in named:
        return named[raw]
    known = ", ".join(named) or "none"
    if re.fullmatch(r"\d+(\.\d+)*(-\d+(\.\d+)*)*", raw):
        # The file-name form 1.2.3-4.5 (patterns joined by '-', tiles by '.').
        groups = [g.split(".") for g in raw.split("-")]
        try:
            return make_partition([[int(t) for t in g] for g in groups], shape, raw, goal)
        except ValueError as e:
            if "." in raw:
                raise
            raise PartitionError(
                f"partition '{raw}' is neither a preset for {shape} ({known}) "
                f"nor a partition of its tiles ({e})"
            ) from None
    if (
        len(raw) <= 4 * shape.size * 4
        and re.fullmatch(r"[\d\s,/|;]+", raw)
        and re.search(r"\d", raw)
    ):
        groups = [re.split(r"[\s,]+", g.strip()) for g in re.split(r"[/|;]", raw)]
        if any(g == [""] for g in groups):
            raise PartitionError(f"empty pattern in '{raw}'")
    else:
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        raise PartitionError(
            f"partition '{shown}' is neither a preset for {shape} ({known}) nor "
            f"tiles like '1,2,3,4/5,6,7,8'"
        )
    return make_partition([[int(t) for t in g if t] for g in groups], shape, raw, goal)


def strongest_preset(shape: Shape) -> Partition | None:
    """The preset of ``shape`` with the most table entries (None when the shape has none)."""
    found = presets(shape)
    if not found:
        return None
    return max(found.values(), key=lambda p: p.entries(shape))


def suggested(shape: Shape) -> str:
    """A partition to suggest for a shape without a preset (in a ``build-pdb`` command that
    must work when pasted): the tiles in row-major order, in groups as large as keep each
    table within :data:`SUGGESTED_MAX_ENTRIES` entries (at most 7 tiles a group)."""
    n = shape.size
    k = 1
    while k < 7 and math.perm(n, k + 1) <= SUGGESTED_MAX_ENTRIES:
        k += 1
    tiles = list(range(1, n))
    return "/".join(",".join(map(str, tiles[i : i + k])) for i in range(0, len(tiles), k))
