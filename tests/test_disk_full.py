"""A disk that fills while ``build-pdb`` writes: one line that names the file, the space it needs
and the directory; exit 2; no partial file and no temporary left behind.

Everywhere: the write of the file's digest fails with ENOSPC.  As root where ``mount`` works:
a real 256 KB tmpfs that HDF5 itself fills (HDF5 reports that in text, without an errno).
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from pdb_builder import budget
from pdb_builder.cli import main as build_main
from solver.tables import store


def build(data_dir) -> tuple[int, str]:
    """``build-pdb -q`` of the 4x4 5-5-5 database (1.6 MB) into ``data_dir``."""
    args = ["-q", "--shape", "4x4", "--partition", "5-5-5", "--data-dir", str(data_dir)]
    r = CliRunner().invoke(build_main, args)
    return r.exit_code, r.output


def assert_full_disk_said(code: int, output: str, data_dir) -> None:
    errors = [line for line in output.splitlines() if line.startswith("build-pdb: ")]
    assert code == 2 and "Traceback" not in output and len(errors) == 1, output
    line = errors[0]
    assert line.startswith("build-pdb: error: no space left on the device for apdb-4x4-5-5-5.h5")
    assert "it needs about 1.6 MB" in line and f"in {data_dir}," in line, line
    assert "errno" not in line and "buf =" not in line, line
    assert sorted(os.listdir(data_dir)) == [], os.listdir(data_dir)


def test_a_full_disk_while_sealing_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    def no_room(path, *_args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(store.trust, "seal", no_room)
    code, output = build(tmp_path)
    assert_full_disk_said(code, output, tmp_path)


@pytest.fixture
def small_disk(tmp_path):
    """A 256 KB tmpfs mounted under ``tmp_path`` (root only; skips where it cannot be)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount")
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_hdf5_filling_a_real_disk_is_one_line_and_leaves_nothing(small_disk, monkeypatch):
    # The disk fills during the write, not before it: the estimate up front sees room.
    monkeypatch.setattr(budget, "check", lambda *args, **kwargs: None)
    code, output = build(small_disk)
    assert_full_disk_said(code, output, small_disk)
