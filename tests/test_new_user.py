"""What a user who has read only the README meets first: ``-q`` after the command, a batch's
exit status, a board without a blank or with a negative tile, a board's rows on lines of their
own in a batch, and a long batch that says how far it has got on a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios

import click
import pytest
from conftest import assert_one_line_error

from solver.cli import COMMANDS, main

HARDEST_3X3 = "8 6 7 2 5 4 3 0 1"  # 31 moves
UNSOLVABLE_3X3 = "1 2 3 4 5 6 8 7 0"


# --- -q after the command -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_takes_quiet_after_its_name(run_cli, name):
    r = run_cli([name, "-q", "--help"])
    assert r.exit_code == 0, r.output
    assert "-q, --quiet" in r.stdout


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_silences_the_notes_before_or_after_the_command(run_cli, tmp_path, where):
    # No table in the directory: the distance is searched, and a note says what to build.
    args = ["distance", HARDEST_3X3, "--data-dir", tmp_path]
    loud = run_cli(args)
    assert loud.exit_code == 0 and "note:" in loud.stderr, loud.output
    quiet = run_cli(["-q", *args] if where == "before" else [*args, "-q"])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout == loud.stdout == "31\n" and quiet.stderr == ""


def test_quiet_is_declared_once_for_the_group_and_every_command():
    ctx = click.Context(main)
    commands = [main, *(main.get_command(ctx, name) for name in COMMANDS)]
    quiet = [[p for p in c.params if "--quiet" in p.opts] for c in commands]
    assert all(len(q) == 1 for q in quiet)
    assert len({(q[0].help, tuple(q[0].opts), q[0].envvar) for q in quiet}) == 1


# --- a batch's exit status --------------------------------------------------------------------


@pytest.mark.parametrize("bulk", ["1", "0"])
@pytest.mark.parametrize("command", ["solve", "distance", "hint", "heuristic", "check"])
def test_a_batch_exits_1_for_an_unsolvable_line_and_2_for_a_bad_one(
    run_cli, exact_dir, command, bulk
):
    def status(*lines: str) -> int:
        r = run_cli(
            [command, "-", "--data-dir", exact_dir],
            input="\n".join(lines) + "\n",
            env={"NPUZZLE_BULK": bulk},
        )
        assert len(r.stdout.splitlines()) == len(lines), r.output
        return r.exit_code

    assert status(HARDEST_3X3) == 0
    assert status(HARDEST_3X3, UNSOLVABLE_3X3) == 1
    assert status(HARDEST_3X3, "not a board") == 2
    assert status(UNSOLVABLE_3X3, "not a board", HARDEST_3X3) == 2  # bad input wins


# --- a board without a blank, a negative tile ---------------------------------------------------


def test_a_board_numbered_from_1_is_told_it_has_no_blank(run_cli, exact_dir):
    r = run_cli(["distance", *"1 2 3 4 5 6 7 8 9".split(), "--data-dir", exact_dir])
    assert_one_line_error(r, 2)
    assert "no blank" in r.stderr and "out of range" not in r.stderr


@pytest.mark.parametrize("command", ["distance", "solve", "hint", "check", "heuristic"])
def test_a_negative_tile_is_a_tile_not_an_option(run_cli, exact_dir, command):
    r = run_cli([command, *"1 2 3 4 5 6 7 8 -1".split(), "--data-dir", exact_dir])
    assert_one_line_error(r, 2)
    assert "tile -1" in r.stderr and "option" not in r.stderr.lower()


def test_a_negative_value_of_an_option_is_still_the_option_s(run_cli, exact_dir):
    r = run_cli(["solve", HARDEST_3X3, "--max-nodes", "-1", "--data-dir", exact_dir])
    assert_one_line_error(r, 2)
    assert "--max-nodes" in r.stderr


def test_an_unknown_option_beside_a_negative_tile_is_still_no_such_option(run_cli, exact_dir):
    r = run_cli(
        ["distance", *"1 2 3 4 -1 6 7 8 0".split(), "--shpae", "3x3", "--data-dir", exact_dir]
    )
    assert_one_line_error(r, 2)
    assert "No such option '--shpae'" in r.stderr and "--shape" in r.stderr


def test_the_program_reads_a_negative_tile_as_a_tile(exact_dir):
    p = subprocess.run(
        [sys.executable, "-m", "solver", "distance", *"1 2 3 4 5 6 7 8 -1".split()],
        capture_output=True,
        text=True,
        env={**os.environ, "NPUZZLE_DATA": str(exact_dir)},
    )
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and "tile -1" in p.stderr, p.stderr


# --- a board's rows on lines of their own -------------------------------------------------------


@pytest.mark.parametrize(
    "rows,shape",
    [
        ("8 6 7\n2 5 4\n3 0 1\n", None),
        ("8 6 7\n2 5 4\n3 0 1\n", "3x3"),
        ("1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 0\n", None),
    ],
)
def test_rows_on_lines_of_their_own_are_told_once_a_batch_reads_a_board_a_line(
    run_cli, exact_dir, rows, shape
):
    args = ["distance", "-", "--data-dir", exact_dir, *(["--shape", shape] if shape else [])]
    r = run_cli(args, input=rows)
    out = r.stdout.splitlines()
    assert r.exit_code == 2 and len(out) == rows.count("\n")
    assert all(line.startswith("error: ") for line in out), out
    assert [line for line in out if "one board per line" in line] == [out[0]]
    assert "separated by '/'" in out[0]


def test_the_hint_is_in_the_first_json_record_only(run_cli, exact_dir):
    import json

    r = run_cli(["distance", "-", "--json", "--data-dir", exact_dir], input="8 6 7\n2 5 4\n3 0 1\n")
    errors = [json.loads(line)["error"] for line in r.stdout.splitlines()]
    assert len(errors) == 3 and r.exit_code == 2
    assert ["one board per line" in e for e in errors] == [True, False, False]


def test_a_whole_board_on_a_line_gets_no_hint(run_cli, exact_dir):
    r = run_cli(["distance", "-", "--data-dir", exact_dir], input="1 2 3 4 5 6 7 7 0\nx y\n")
    assert r.exit_code == 2 and "one board per line" not in r.stdout


# --- a batch's progress ---------------------------------------------------------------------


def _terminal():
    """A pseudo-terminal (master, slave) 100 columns wide, as a terminal window is."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    return master, slave


def _read_all(fd: int) -> bytes:
    out = b""
    while select.select([fd], [], [], 30)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        out += chunk
    return out


# The program, with the bar shown at once rather than after the delay a quick batch stays under.
AT_ONCE = (
    "import sys; from solver.cli import batch_progress, launch; batch_progress.DELAY = 0; launch()"
)


def _batch(exact_dir, boards, stderr) -> subprocess.CompletedProcess:
    with open(boards, "rb") as stdin:
        return subprocess.run(
            [sys.executable, "-c", AT_ONCE, "distance", "-", "--data-dir", str(exact_dir)],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=stderr,
            timeout=120,
        )


def test_a_batch_shows_its_progress_on_a_terminal_and_not_in_a_pipe(exact_dir, tmp_path):
    boards = tmp_path / "boards.txt"
    boards.write_text(f"{HARDEST_3X3}\n{UNSOLVABLE_3X3}\n{HARDEST_3X3}\n")
    master, slave = _terminal()
    try:
        on_terminal = _batch(exact_dir, boards, slave)
        os.close(slave)
        screen = _read_all(master).decode(errors="replace")
    finally:
        os.close(master)
    in_pipe = _batch(exact_dir, boards, subprocess.PIPE)
    assert "answered" in screen and "/3 " in screen, screen  # the boards done, of 3
    assert in_pipe.stderr == b""
    assert on_terminal.stdout == in_pipe.stdout == b"31\nunsolvable\n31\n"
    assert on_terminal.returncode == in_pipe.returncode == 1


def test_progress_is_shown_only_to_a_terminal_watching_a_batch_it_does_not_type(
    tmp_path, monkeypatch
):
    from solver.cli import batch_progress

    master, slave = _terminal()
    boards = tmp_path / "boards.txt"
    boards.write_text(f"{HARDEST_3X3}\n")
    try:
        with (
            os.fdopen(os.dup(slave), "w") as terminal,
            open(boards) as file,
            open(os.devnull, "w") as log,
        ):
            assert batch_progress.shown(stderr=terminal, stdin=file)
            assert not batch_progress.shown(stderr=log, stdin=file)  # stderr not a terminal
            assert not batch_progress.shown(stderr=terminal, stdin=terminal)  # typed by hand
            monkeypatch.setenv("NPUZZLE_QUIET", "1")
            assert not batch_progress.shown(stderr=terminal, stdin=file)  # -q
    finally:
        os.close(master)
        os.close(slave)
