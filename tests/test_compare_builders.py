"""scripts/compare_builders.py: the options it gives build-pdb for each database it is named,
and that its comparison of two files finds a changed byte, a changed attribute and a missing
dataset, and nothing in two builds of the same database."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import compare_builders as cb  # noqa: E402

from pdb_builder.build_apdb import build_apdb  # noqa: E402


@pytest.mark.parametrize(
    "spec, args",
    [
        ("3x3", ["--shape", "3x3"]),
        ("3x3:4-4", ["--shape", "3x3", "--partition", "4-4"]),
        ("4x4:6-6-3+zero-aware", ["--shape", "4x4", "--partition", "6-6-3", "--zero-aware"]),
        (
            "3x3:1,2,3/4,5,6,7,8@spiral",
            ["--shape", "3x3", "--partition", "1,2,3/4,5,6,7,8", "--goal", "spiral"],
        ),
        ("4x4:strongest", ["--shape", "4x4", "--strongest"]),
    ],
)
def test_each_database_is_built_with_its_options(spec, args):
    assert cb.build_args(spec) == args


@pytest.fixture
def two_builds(tmp_path):
    """The same database built twice, into two directories: the two files."""
    files = []
    for side in ("a", "b"):
        build_apdb("2x3", "3-2", None, tmp_path / side, progress=False)
        files.append(tmp_path / side / "apdb-2x3-3-2.h5")
    return files


def test_two_builds_of_one_database_are_the_same(two_builds):
    count, size, problems = cb.compare_files(*two_builds)
    assert (count, size, problems) == (2, 120 + 30, [])


def _changed(path: Path, change) -> Path:
    """A copy of ``path`` with ``change(file)`` made to it (h5py, past the file's digest)."""
    copy = path.with_name("changed-" + path.name)
    shutil.copy(path, copy)
    with h5py.File(copy, "r+") as f:
        change(f)
    return copy


def test_a_changed_byte_attribute_or_dataset_is_found(two_builds):
    old, new = two_builds

    def flip_a_byte(f):
        table = f["pattern_1"][()]
        table[7] ^= 1
        f["pattern_1"][...] = table

    def retitle(f):
        f.attrs["partition"] = "2-3"

    def recount(f):
        f["pattern_0"].attrs["counts"] = np.zeros(3, np.int64)

    def drop(f):
        del f["pattern_1"]

    assert cb.compare_files(old, _changed(new, flip_a_byte))[2] == ["pattern_1: contents differ"]
    assert cb.compare_files(old, _changed(new, retitle))[2] == ["root attributes differ"]
    assert cb.compare_files(old, _changed(new, recount))[2] == ["pattern_0: attributes differ"]
    assert cb.compare_files(old, _changed(new, drop))[2][0].startswith("datasets differ")


def test_the_writer_is_not_compared(two_builds):
    old, new = two_builds

    def rewrite(f):
        f.attrs["created_by"] = "another version"

    assert cb.compare_files(old, _changed(new, rewrite))[2] == []
