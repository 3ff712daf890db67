"""The byte a zero-aware table keeps a placement (layer 0: core; plain Python, so that the
tables layer can check a twin's entries without the builder).

A two-class table holds a placement's two distances side by side (``2 * r`` for the blank in
the main region, ``2 * r + 1`` elsewhere; :mod:`solver.core.regions` defines the regions).
They differ on only 14-29 % of the placements, and then by an even number (a tile's moves
change its pattern's parity with the blank's), almost always 2: per placement ``a - b`` is 0
on 86 % (6-6-6-6) and 71 % (7-8) of the placements, +-2 on 14 % and 28 %, +-4 on 0.04 % and
0.8 %.  So the file keeps one byte a placement -- the smaller distance in the low
:data:`VALUE_BITS` bits, and which class (if any) is :data:`HIGHER_BY` higher in the top two --
half the memory to miss in, the additive table's size.  A difference of 4 or more is kept as
2 (and one of 1, which parity rules out, as 0): lower, so still a lower bound.  Packing and
reading an entry: :func:`pdb_builder.zero_aware.pack_classes` and
:func:`solver.core.regions.class_value`.

Imports: nothing.
"""

MAIN, OTHER = 0, 1  # the two classes of a zero-aware table
VALUE_BITS = 6  # distances of up to 63 moves (a 6-tile pattern on 5x5: 35; 8 on 4x4: 38)
VALUE_MASK = (1 << VALUE_BITS) - 1
HIGHER_BY = 2  # how much the higher class's distance exceeds the lower one's, as kept
