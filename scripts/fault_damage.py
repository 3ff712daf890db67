"""The damages ``scripts/fault_injection.py`` does to copies of a data directory.

Each :class:`Damage` changes one database file of a copy (or what stands under its name) in one
way; the report groups them by ``kind``.  Kinds:

* (files: exact 2x3 and 3x3, the compact exact 2x5, the 3x3 4-4 and 4x4 5-5-5 PDBs)
* single bytes changed anywhere in a file, or in its HDF5 metadata (the first and last few KB),
  truncations and extensions -- all caught by the digest before h5py sees a byte;
* datasets deleted and attributes edited, left as they are (the digest catches them) and
  re-sealed with a valid digest (``store._seal``), which exercises the checks behind the digest;
* table bytes changed and re-sealed (a builder bug): only ``--verify`` is asked about those,
  a reader has no cheap way to see them (the digest is its proof);
* another database's file under the name, two files' contents swapped;
* a FIFO, a directory, a device, broken or looping links, an empty file under the name; the
  file deleted.

Imports: numpy, h5py, the solver's store (for the seal).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from solver.tables import store

EXACT_2X3, EXACT_3X3 = "exact-2x3.h5", "exact-3x3.h5"
PDB_3X3, PDB_4X4 = "apdb-3x3-4-4.h5", "apdb-4x4-5-5-5.h5"
COMPACT_2X5 = "exact-2x5-blank9.h5"  # a compact exact table (10 to 12 cells)
FILES = (EXACT_2X3, EXACT_3X3, COMPACT_2X5, PDB_3X3, PDB_4X4)
# Sealed files of other databases, built beside the pristine ones (swapped in by name).
SPARE_BLANK_FIRST = "apdb-4x4-5-5-5-blank-first.h5"
SPARE_CUSTOM = "apdb-3x3-1.2.3-4.5.6.7.8.h5"


@dataclass
class Damage:
    """One damage: ``apply(directory)`` does it to the copy."""

    kind: str
    file: str
    what: str
    apply: Callable[[Path], None]
    harmless: bool = False  # nothing a reader sees changes (verify should pass)
    verify_only: bool = False  # only --verify is asked (re-sealed table bytes)
    verify_passes: bool = False  # every file left is sound (one was deleted)


def _flip(name: str, offset: int, xor: int):
    def apply(d: Path) -> None:
        p = d / name
        with open(p, "r+b") as fh:
            fh.seek(offset)
            b = fh.read(1)[0]
            fh.seek(offset)
            fh.write(bytes([b ^ xor]))

    return apply


def _header_end(path: Path) -> int:
    return path.read_bytes()[: store.HEADER_SIZE].index(b"\n") + 1


def flips(pristine: Path, rng: random.Random, per_file: int) -> list[Damage]:
    """Single changed bytes: uniform over each file, and over its metadata regions."""
    out = []
    for name in FILES:
        size = (pristine / name).stat().st_size
        padding = range(_header_end(pristine / name), store.HEADER_SIZE)
        meta = list(range(store.HEADER_SIZE, min(size, store.HEADER_SIZE + 8192))) + list(
            range(max(store.HEADER_SIZE, size - 4096), size)
        )
        for kind, pick in (
            ("byte changed anywhere", lambda size=size: rng.randrange(size)),
            ("byte changed in HDF5 metadata", lambda meta=meta: rng.choice(meta)),
        ):
            for _ in range(per_file):
                off, xor = pick(), rng.randrange(1, 256)
                out.append(
                    Damage(
                        kind,
                        name,
                        f"{name} byte {off} ^ {xor:#04x}",
                        _flip(name, off, xor),
                        harmless=off in padding,
                    )
                )
    return out


def _truncate(name: str, size: int):
    def apply(d: Path) -> None:
        os.truncate(d / name, size)

    return apply


def _extend(name: str, extra: bytes):
    def apply(d: Path) -> None:
        with open(d / name, "ab") as fh:
            fh.write(extra)

    return apply


def truncations(pristine: Path, rng: random.Random, per_file: int) -> list[Damage]:
    """Files cut short (to nothing, inside the header, anywhere) or grown."""
    out = []
    for name in FILES:
        size = (pristine / name).stat().st_size
        cuts = [0, 1, 511, 512, 513, size - 1] + [rng.randrange(size) for _ in range(per_file)]
        out += [Damage("truncated", name, f"{name} cut to {n}", _truncate(name, n)) for n in cuts]
        out.append(Damage("extended", name, f"{name} + 1 byte", _extend(name, b"\0")))
        out.append(Damage("extended", name, f"{name} + 4 KB", _extend(name, b"x" * 4096)))
    return out


def _h5_edit(name: str, edit: Callable, reseal: bool):
    def apply(d: Path) -> None:
        with h5py.File(d / name, "r+") as f:
            edit(f)
        if reseal:
            store._seal(d / name)

    return apply


def _set(path: str, attr: str, value):
    def edit(f):
        (f if path == "/" else f[path]).attrs[attr] = value

    return edit


def _delete(path: str):
    def edit(f):
        del f[path]

    return edit


def _swap_attr(a: str, b: str, attr: str):
    def edit(f):
        va, vb = f[a].attrs[attr], f[b].attrs[attr]
        f[a].attrs[attr], f[b].attrs[attr] = vb, va

    return edit


def _rename(a: str, b: str):
    def edit(f):
        f.move(a, "tmp-swap")
        f.move(b, a)
        f.move("tmp-swap", b)

    return edit


def _scramble_counts(path: str):
    def edit(f):
        c = np.array(f[path].attrs["counts"])
        c[1], c[2] = c[2], c[1]
        f[path].attrs["counts"] = c

    return edit


def _table_byte(path: str, rng: random.Random):
    def edit(f):
        ds = f[path]
        i = rng.randrange(ds.shape[0])
        ds[i] = (int(ds[i]) + 2) % 256

    return edit


def metadata_edits(rng: random.Random) -> list[Damage]:
    """Datasets deleted and attributes edited, each as is and re-sealed."""
    edits = [
        (EXACT_3X3, "dataset deleted", _delete("blank_8")),
        (EXACT_3X3, "dataset deleted", _delete("blank_0")),
        (PDB_4X4, "dataset deleted", _delete("pattern_1")),
        (PDB_3X3, "dataset deleted", _delete("pattern_0")),
        (COMPACT_2X5, "dataset deleted", _delete("nibbles")),
        (COMPACT_2X5, "dataset deleted", _delete("overflow_distance")),
        (COMPACT_2X5, "root attribute edited", _set("/", "encoding", "nibble-v0")),
        (COMPACT_2X5, "root attribute edited", _set("/", "goal", "0 1 2 3 4 5 6 7 8 9")),
        (EXACT_3X3, "root attribute edited", _set("/", "shape", "2x3")),
        (EXACT_3X3, "root attribute edited", _set("/", "kind", "additive-pdb")),
        (EXACT_3X3, "root attribute edited", _set("/", "format_version", 1)),
        (EXACT_2X3, "root attribute edited", _set("/", "ranking", "colex")),
        (EXACT_2X3, "root attribute edited", _set("/", "format", "other")),
        (
            PDB_4X4,
            "root attribute edited",
            _set("/", "goal", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"),
        ),
        (PDB_4X4, "root attribute edited", _set("/", "partition", "6-6-3")),
        (PDB_4X4, "root attribute edited", _set("/", "patterns", "1,2,3/4,5")),
        (PDB_3X3, "root attribute edited", _set("/", "shape", "4x4")),
        (EXACT_3X3, "table attribute edited", _scramble_counts("blank_8")),
        (EXACT_3X3, "table attribute edited", _set("blank_8", "goal", "1 2 3 4 5 6 8 7 0")),
        (EXACT_3X3, "table attribute edited", _set("blank_8", "max_distance", 30)),
        (EXACT_3X3, "table attribute edited", _set("blank_4", "checksum", "blake2b-128:0")),
        (PDB_4X4, "table attribute edited", _swap_attr("pattern_0", "pattern_1", "tiles")),
        (PDB_4X4, "table attribute edited", _swap_attr("pattern_1", "pattern_2", "tiles")),
        (PDB_3X3, "table attribute edited", _swap_attr("pattern_0", "pattern_1", "tiles")),
        (PDB_4X4, "table attribute edited", _scramble_counts("pattern_2")),
        (PDB_4X4, "table attribute edited", _set("pattern_0", "unreached", 7)),
        (PDB_4X4, "table attribute edited", _set("pattern_0", "mean_h", 1.5)),
        (PDB_4X4, "table attribute edited", _set("pattern_0", "tiles", np.array([1, 2, 3]))),
        (PDB_3X3, "table attribute edited", _set("pattern_1", "max_h", 99)),
        (EXACT_3X3, "tables swapped inside", _rename("blank_0", "blank_1")),
        (PDB_4X4, "tables swapped inside", _rename("pattern_0", "pattern_1")),
    ]
    out = []
    for name, kind, edit in edits:
        out.append(Damage(kind, name, f"{name}: {kind}", _h5_edit(name, edit, False)))
        out.append(
            Damage(
                kind + ", re-sealed",
                name,
                f"{name}: {kind} (re-sealed)",
                _h5_edit(name, edit, True),
            )
        )
    for name, ds in (
        (EXACT_3X3, "blank_8"),
        (EXACT_2X3, "blank_3"),
        (PDB_4X4, "pattern_1"),
        (PDB_3X3, "pattern_0"),
    ):
        for _ in range(3):
            out.append(
                Damage(
                    "table byte changed, re-sealed",
                    name,
                    f"{name}/{ds} (re-sealed)",
                    _h5_edit(name, _table_byte(ds, rng), True),
                    verify_only=True,
                )
            )
    return out


def _copy_from(spare_dir: Path, source: str, name: str):
    def apply(d: Path) -> None:
        shutil.copyfile(spare_dir / source, d / name)

    return apply


def _exchange(a: str, b: str):
    def apply(d: Path) -> None:
        (d / a).rename(d / "x.tmp")
        (d / b).rename(d / a)
        (d / "x.tmp").rename(d / b)

    return apply


def swaps(pristine: Path, spares: Path) -> list[Damage]:
    """Another sealed database file under a name."""
    out = [
        Damage(
            "another database's file",
            EXACT_3X3,
            "exact-2x3 as exact-3x3",
            _copy_from(pristine, EXACT_2X3, EXACT_3X3),
        ),
        Damage(
            "another database's file",
            EXACT_2X3,
            "exact-3x3 as exact-2x3",
            _copy_from(pristine, EXACT_3X3, EXACT_2X3),
        ),
        Damage(
            "another database's file",
            COMPACT_2X5,
            "exact-3x3 as exact-2x5-blank9",
            _copy_from(pristine, EXACT_3X3, COMPACT_2X5),
        ),
        Damage(
            "another database's file",
            PDB_4X4,
            "3x3 4-4 as 4x4 5-5-5",
            _copy_from(pristine, PDB_3X3, PDB_4X4),
        ),
        Damage(
            "another database's file",
            PDB_4X4,
            "5-5-5 blank-first as blank-last",
            _copy_from(spares, SPARE_BLANK_FIRST, PDB_4X4),
        ),
        Damage(
            "another database's file",
            PDB_3X3,
            "custom 3-5 partition as 4-4",
            _copy_from(spares, SPARE_CUSTOM, PDB_3X3),
        ),
        Damage(
            "another database's file",
            PDB_3X3,
            "exact-3x3 as the 3x3 PDB",
            _copy_from(pristine, EXACT_3X3, PDB_3X3),
        ),
        Damage("files exchanged", PDB_4X4, "4x4 5-5-5 <-> 3x3 4-4", _exchange(PDB_4X4, PDB_3X3)),
        Damage("files exchanged", EXACT_3X3, "exact 3x3 <-> 2x3", _exchange(EXACT_3X3, EXACT_2X3)),
    ]
    return out


def _replace_with(name: str, make: Callable[[Path], None]):
    def apply(d: Path) -> None:
        (d / name).unlink()
        make(d / name)

    return apply


def _nonempty_dir(p: Path) -> None:
    p.mkdir()
    (p / "inside.txt").write_text("user data")


def _loop(p: Path) -> None:
    os.symlink(p.name, p)


def odd_files(pristine: Path) -> list[Damage]:
    """What is not a regular file under a database's name, and deleted files."""
    makers = {
        "FIFO": os.mkfifo,
        "directory (empty)": os.mkdir,
        "directory (with a file)": _nonempty_dir,
        "link to /dev/zero": lambda p: os.symlink("/dev/zero", p),
        "dangling link": lambda p: os.symlink("nowhere.h5", p),
        "link loop": _loop,
        "empty file": lambda p: p.write_bytes(b""),
        "zeros": lambda p: p.write_bytes(b"\0" * 65536),
    }
    out = []
    for name in FILES:
        for label, make in makers.items():
            out.append(
                Damage(
                    f"not a database: {label.split(' (')[0]}",
                    name,
                    f"{label} as {name}",
                    _replace_with(name, make),
                )
            )
        out.append(
            Damage(
                "file deleted",
                name,
                f"{name} deleted",
                lambda d, n=name: (d / n).unlink(),
                verify_passes=True,
            )
        )
    return out


def every_damage(
    pristine: Path, spares: Path, rng: random.Random, per_file: int, cuts: int
) -> list[Damage]:
    """The whole catalogue, in report order."""
    return (
        flips(pristine, rng, per_file)
        + truncations(pristine, rng, cuts)
        + metadata_edits(rng)
        + swaps(pristine, spares)
        + odd_files(pristine)
    )


if __name__ == "__main__":
    # A module of scripts/fault_injection.py: on its own it only says so (and answers --help).
    import argparse

    argparse.ArgumentParser(
        description=__doc__.splitlines()[0] + " Run scripts/fault_injection.py instead."
    ).parse_args()
    raise SystemExit("a module of scripts/fault_injection.py: run that script")
