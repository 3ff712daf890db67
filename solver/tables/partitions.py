"""Partitions of the tiles into disjoint patterns: presets and custom, validated (builder layer).

The vocabulary of additive pattern databases.  A :class:`Pattern` is a sorted tuple of tiles; a
:class:`Partition` is a tuple of patterns that are pairwise disjoint and together cover every
tile ``1..N-1`` of a shape, with a ``name`` used in file names (``apdb-4x4-6-6-3.h5``).

Why disjoint: each pattern's table counts only the moves of *its own* tiles (the other tiles are
indistinguishable and move for free), and every real move slides exactly one tile, so it is
charged to at most one table -- the sum of the tables never overestimates.  Overlapping patterns
would charge one move twice.

Imports: :mod:`solver.board` only (no numpy, no numba), so parsing is instant.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.board import Shape

# Korf & Felner (2002) and Felner, Korf & Hanan (2004) drew their 15-puzzle partitions for the
# blank-first goal (blank top-left, tile t on cell t):
#     7-8:    {1..7} {8..15}                                  (the top two rows / the bottom two)
#     6-6-3:  {3,6,7} {1,2,4,5,8,12} {9,10,11,13,14,15}       (a 3-tile corner, two 6-tile blocks)
#     5-5-5:  {1,2,3,6,7} {4,5,8,9,12} {10,11,13,14,15}
# npuzzle's default goal is blank-last (1 2 ... 15 0).  Rotating the board by 180 degrees (cell
# c -> 15-c) maps the blank-first goal onto the blank-last goal with tile t -> 16-t, and maps the
# published patterns onto the same shapes of cells on our goal, so the presets below are those
# rotations: e.g. blank-first 7-8 {1..7}/{8..15} becomes {9..15}/{1..8} here.
# The 6-6-3 sets are the ones whose mean heuristic over random states (42.92 with reflection)
# reproduces the 42.924 Felner, Korf & Hanan (2004) report; an earlier top-row/left/right split
# gave 42.14 and needed 1.85x the nodes on Korf's 100 instances.
_PRESETS_BLANK_FIRST_4X4 = {
    "5-5-5": ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
    "6-6-3": ((3, 6, 7), (1, 2, 4, 5, 8, 12), (9, 10, 11, 13, 14, 15)),
    "7-8": ((1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15)),
}
N_4X4 = 16  # cells of the 15-puzzle


def _rotate_blank_first(patterns):
    """The blank-first tile sets rotated 180 degrees onto the blank-last goal (t -> 16 - t)."""
    return tuple(tuple(N_4X4 - t for t in p) for p in patterns)


PRESETS: dict[str, dict[str, tuple[tuple[int, ...], ...]]] = {
    "4x4": {name: _rotate_blank_first(p) for name, p in _PRESETS_BLANK_FIRST_4X4.items()},
    # Small boards, for tests and demonstrations (an exact table is better there).
    "3x3": {"4-4": ((1, 2, 3, 4), (5, 6, 7, 8))},
    "2x3": {"3-2": ((1, 2, 3), (4, 5))},
}
# Strongest first: what load_apdb picks when no partition is named.
STRENGTH_ORDER: dict[str, tuple[str, ...]] = {
    "4x4": ("7-8", "6-6-3", "5-5-5"),
    "3x3": ("4-4",),
    "2x3": ("3-2",),
}
MAX_CELLS = 31  # the BFS packs two bits per cell into one 64-bit word


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

    >>> p = parse_partition("5,6,7,8/4,3,2,1", "3x3")
    >>> p.name, str(p)
    ('4-4', '1,2,3,4/5,6,7,8')
    >>> parse_partition("1,2,3/4,5,6,7,8", "3x3").name
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


def _normalise(patterns) -> tuple[Pattern, ...]:
    return tuple(sorted((Pattern(p) for p in patterns), key=lambda p: (p[0] if p else 0, p)))


def custom_name(patterns) -> str:
    """The file-name-safe name of a custom partition, e.g. ``1.2.3.4-5.6.7.8``."""
    return "-".join(".".join(map(str, p)) for p in _normalise(patterns))


def validate(patterns, shape: Shape | str, text: str | None = None) -> tuple[Pattern, ...]:
    """Normalise ``patterns`` (sort tiles and patterns) and check that they form a partition of
    the tiles ``1..N-1`` of ``shape``; raise :class:`ValueError` with one line saying what is
    wrong."""
    shape = Shape.parse(shape)
    n = shape.size
    shown = f" in '{text}'" if text else ""
    if n > MAX_CELLS:
        raise ValueError(f"pattern databases support boards of up to {MAX_CELLS} cells, "
                         f"{shape} has {n}")
    pats = _normalise(patterns)
    if not pats:
        raise ValueError(f"a partition needs at least one pattern{shown}")
    seen: dict[int, int] = {}
    for i, p in enumerate(pats):
        if not p:
            raise ValueError(f"empty pattern{shown}")
        for t in p:
            if t == 0:
                raise ValueError(f"the blank (0) cannot be in a pattern{shown}")
            if not 1 <= t <= n - 1:
                raise ValueError(f"tile {t} does not exist on a {shape} board "
                                 f"(tiles are 1..{n - 1}){shown}")
            if t in seen:
                where = "twice in one pattern" if seen[t] == i else "in two patterns"
                raise ValueError(f"tile {t} appears {where}{shown}")
            seen[t] = i
    missing = [t for t in range(1, n) if t not in seen]
    if missing:
        listed = ",".join(map(str, missing))
        raise ValueError(f"tiles {listed} are in no pattern{shown}: a partition must cover "
                         f"every tile 1..{n - 1}")
    return pats


def presets(shape: Shape | str) -> dict[str, Partition]:
    """The named partitions defined for ``shape`` (empty for shapes without presets)."""
    key = str(Shape.parse(shape))
    return {name: Partition(_normalise(p), name) for name, p in PRESETS.get(key, {}).items()}


def _preset_name(pats: tuple[Pattern, ...], shape: Shape) -> str | None:
    for name, p in presets(shape).items():
        if p.patterns == pats:
            return name
    return None


def make_partition(patterns, shape: Shape | str, text: str | None = None) -> Partition:
    """A validated :class:`Partition` from sequences of tiles; named after a preset when it
    has the same tile sets."""
    shape = Shape.parse(shape)
    pats = validate(patterns, shape, text)
    return Partition(pats, _preset_name(pats, shape) or custom_name(pats))


def parse_partition(text: str | Partition, shape: Shape | str) -> Partition:
    """Read a preset name (``5-5-5``, ``6-6-3``, ``7-8`` on 4x4) or custom tiles written
    ``1,2,3,4/5,6,7,8`` (patterns separated by ``/``, ``|`` or ``;``; tiles by commas or
    spaces; the ``1.2.3.4-5.6.7.8`` form of file names is accepted too).

    >>> parse_partition("7-8", "4x4").patterns[0]
    Pattern(1, 2, 3, 4, 5, 6, 7, 8)
    >>> parse_partition("1,2/3", "2x2").name
    '1.2-3'
    """
    shape = Shape.parse(shape)
    if isinstance(text, Partition):
        return make_partition(text.patterns, shape)
    raw = str(text).strip()
    named = presets(shape)
    if raw in named:
        return named[raw]
    known = ", ".join(named) or "none"
    if re.fullmatch(r"\d+(\.\d+)*(-\d+(\.\d+)*)*", raw):
        # The file-name form 1.2.3-4.5 (patterns joined by '-', tiles by '.').
        groups = [g.split(".") for g in raw.split("-")]
        try:
            return make_partition([[int(t) for t in g] for g in groups], shape, raw)
        except ValueError as e:
            if "." in raw:
                raise
            raise ValueError(f"partition '{raw}' is neither a preset for {shape} ({known}) "
                             f"nor a partition of its tiles ({e})") from None
    if re.fullmatch(r"[\d\s,/|;]+", raw) and re.search(r"\d", raw):
        groups = [re.split(r"[\s,]+", g.strip()) for g in re.split(r"[/|;]", raw)]
        if any(g == [""] for g in groups):
            raise ValueError(f"empty pattern in '{raw}'")
    else:
        raise ValueError(f"partition '{raw}' is neither a preset for {shape} ({known}) nor "
                         f"tiles like '1,2,3,4/5,6,7,8'")
    return make_partition([[int(t) for t in g if t] for g in groups], shape, raw)


def default_partition(shape: Shape | str) -> Partition | None:
    """The strongest preset for ``shape`` (None when the shape has none)."""
    shape = Shape.parse(shape)
    order = STRENGTH_ORDER.get(str(shape), ())
    return presets(shape)[order[0]] if order else None
