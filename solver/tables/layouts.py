"""Where each table lies in a proven database file, remembered so that a warm start needs no
HDF5 library (layer 1: tables).

Reading a file's metadata takes importing h5py and parsing the HDF5 structures (tens of
milliseconds -- most of a one-board lookup).  Once a file's digest is proven
(:func:`solver.tables.store.prove`), its layout -- root attributes and, per dataset, its
offset, dtype, shape and attributes -- cannot change without the file's identity changing, so
it is recorded under that identity (:func:`solver.tables.store.file_stamp`) in
``layouts.json`` of the npuzzle cache directory and used as long as the identity matches.
Best effort: a cache that cannot be read or written only means asking h5py again.

Imports: the standard library.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

FILE_NAME = "layouts.json"
_seen: dict = {}


def recall(directory: Path, key: str, stamp: tuple) -> dict | None:
    """The layout recorded for the file ``key`` at identity ``stamp``, or None."""
    hit = _seen.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    entry = _load(directory).get(key)
    if isinstance(entry, dict) and entry.get("stamp") == list(stamp):
        layout = entry.get("layout")
        if _well_formed(layout):
            _seen[key] = (stamp, layout)
            return layout
    return None


def remember(directory: Path, key: str, stamp: tuple, layout: dict) -> None:
    """Record ``layout`` for the file ``key`` at identity ``stamp`` (dropping the records of
    files that no longer exist)."""
    _seen[key] = (stamp, layout)
    try:
        text = json.dumps(layout)
    except (TypeError, ValueError):  # an attribute JSON cannot hold: ask h5py next time
        return
    data = {k: v for k, v in _load(directory).items() if os.path.exists(k)}
    data[key] = {"stamp": list(stamp), "layout": json.loads(text)}
    record = directory / FILE_NAME
    tmp = record.with_name(f"{record.name}.tmp-{os.getpid()}")
    try:
        with contextlib.suppress(OSError):
            directory.mkdir(parents=True, exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, record)
    finally:  # also when a signal stops us half-way
        with contextlib.suppress(OSError):
            tmp.unlink()


def forget() -> None:
    """Forget what this process recalled (the file on disk stays)."""
    _seen.clear()


def _load(directory: Path) -> dict:
    try:
        with open(directory / FILE_NAME, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, RecursionError):
        return {}


def _well_formed(layout) -> bool:
    if not isinstance(layout, dict) or not isinstance(layout.get("attrs"), dict):
        return False
    datasets = layout.get("datasets")
    if not isinstance(datasets, dict):
        return False
    for d in datasets.values():
        if not (
            isinstance(d, dict)
            and isinstance(d.get("offset"), int)
            and isinstance(d.get("dtype"), str)
            and isinstance(d.get("shape"), list)
            and isinstance(d.get("attrs"), dict)
        ):
            return False
    return True
