"""What the programs say about themselves: bare ``npuzzle`` shows click's usage and command
list, and every ``--help`` names only options its own command takes -- or another command's,
named with that command (``npuzzle generate --count 1000 | npuzzle distance -``)."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest

from pdb_builder.cli import main as build_main
from solver.cli import COMMANDS, main
from solver.cli.group import HELP_ALL

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# A command named in a help text: `build-pdb`, `npuzzle solve`, or `npuzzle` alone (the group).
NAMED = re.compile(r"\bbuild-pdb\b|\bnpuzzle\b(?:\s+(" + "|".join(COMMANDS) + r")\b)?")


def programs() -> dict[str, click.Command]:
    """Every command a user can ask ``--help`` of, by the name they type."""
    ctx = click.Context(main)
    found = {"npuzzle": main, "build-pdb": build_main}
    found.update({f"npuzzle {name}": main.get_command(ctx, name) for name in COMMANDS})
    return found


def options_of(command: click.Command) -> set[str]:
    """The long option names ``command`` accepts (``--help`` included)."""
    names = {"--help"}
    for param in command.params:
        names.update(o for o in [*param.opts, *param.secondary_opts] if o.startswith("--"))
    return names


def help_text(name: str, command: click.Command) -> str:
    """The help as ``NAME --help`` prints it, without line wrapping (so that an option name
    split at a hyphen across two lines is still one name)."""
    ctx = click.Context(command, info_name=name, terminal_width=10_000, max_content_width=10_000)
    return command.get_help(ctx)


def foreign_options(name: str, text: str, known: dict[str, set[str]]) -> list[str]:
    """The options ``text`` (the help of ``name``) mentions that neither ``name`` takes nor the
    command named last before them in the same paragraph: ``'--jobs' in 'npuzzle distance'``."""
    found = []
    for paragraph in text.split("\n"):
        marks = [(m.start(), "command", m) for m in NAMED.finditer(paragraph)]
        marks += [(m.start(), "option", m) for m in OPTION.finditer(paragraph)]
        named = None
        for _, what, m in sorted(marks, key=lambda x: x[0]):
            if what == "command":
                named = " ".join(m.group(0).split())
            elif m.group(0) not in known[name] and m.group(0) not in known.get(named, ()):
                found.append(f"{m.group(0)!r} in {name!r}: {paragraph.strip()}")
    return found


def test_bare_npuzzle_prints_the_usage_and_the_commands():
    """As click prints it for a group run without a command: several lines, the usage
    first and every command listed, exit status 2 (a usage error), no error line."""
    p = subprocess.run([sys.executable, "-m", "solver"], capture_output=True, text=True)
    assert p.returncode == 2
    lines = p.stderr.splitlines()
    assert lines[0] == "Usage: npuzzle [OPTIONS] COMMAND [ARGS]..."
    assert "Commands:" in lines
    listed = {line.split()[0] for line in lines[lines.index("Commands:") + 1 :] if line.strip()}
    assert listed == set(COMMANDS)
    assert "error" not in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("name", sorted(programs()))
def test_every_help_names_only_options_its_command_takes(name):
    commands = programs()
    known = {n: options_of(c) for n, c in commands.items()}
    assert foreign_options(name, help_text(name, commands[name]), known) == []


def test_the_check_catches_a_foreign_option():
    known = {"npuzzle distance": {"--json"}, "npuzzle generate": {"--count", "--json"}}
    text = (
        "npuzzle generate --count 9 | npuzzle distance - --json\n"
        "--scheduler: each worker needs the databases; --count is then ignored\n"
    )
    assert foreign_options("npuzzle distance", text, known) == [
        "'--scheduler' in 'npuzzle distance': --scheduler: each worker needs the databases; "
        "--count is then ignored",
        "'--count' in 'npuzzle distance': --scheduler: each worker needs the databases; "
        "--count is then ignored",
    ]


def help_all_text(name: str, command: click.Command) -> str:
    """The help as ``NAME --help-all`` prints it (every tier), without line wrapping."""
    ctx = click.Context(command, info_name=name, terminal_width=10_000, max_content_width=10_000)
    ctx.meta[HELP_ALL] = True
    return command.get_help(ctx)


@pytest.mark.parametrize("name", sorted(programs()))
def test_every_help_all_names_only_options_its_command_takes(name):
    commands = programs()
    known = {n: options_of(c) for n, c in commands.items()}
    assert foreign_options(name, help_all_text(name, commands[name]), known) == []


def listed_options(text: str, heading: str) -> list[str]:
    """The long option names listed under ``heading`` in a help text."""
    block = text.split(f"\n{heading}:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  (?:-\w, )?(--[a-z-]+)", block, re.M)


def test_solve_help_shows_the_common_options_and_points_at_help_all():
    """About 15 options a user needs; the research and teaching ones behind --help-all."""
    r = subprocess.run(
        [sys.executable, "-m", "solver", "solve", "--help"], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stderr == ""
    shown = re.findall(r"^  (?:-\w, )?(--[a-z-]+)", r.stdout, re.M)
    assert shown == [
        "--goal", "--shape", "--data-dir", "--json", "--show", "--tiles", "--algorithm",
        "--partition", "--weight", "--jobs", "--timeout", "--max-nodes", "--resume",
        "--scheduler", "--verbose", "--server", "--token", "--quiet", "--help-all", "--help",
    ]  # fmt: skip
    assert "\nResearch options:\n" not in r.stdout and "--fsm" not in r.stdout
    assert r.stdout.rstrip().splitlines()[-1].endswith("npuzzle solve --help-all")


def test_help_all_shows_every_option_under_its_tier():
    r = subprocess.run(
        [sys.executable, "-m", "solver", "solve", "--help-all"], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stderr == ""
    text = r.stdout
    assert listed_options(text, "Research options") == [
        "--fsm", "--combine", "--pick", "--pick-max", "--no-zero-aware", "--promising-first",
        "--no-reflect", "--load",
    ]  # fmt: skip
    assert listed_options(text, "Teaching options") == [
        "--heuristic",
        "--depth-limit",
        "--cycle-check",
    ]
    assert "--help-all" not in text.rstrip().splitlines()[-1]
    solve = programs()["npuzzle solve"]
    assert set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text)) >= options_of(solve) - {
        "--no-combine",
        "--no-pick",
        "--no-pick-max",
        "--search-order",
    }


@pytest.mark.parametrize(
    "name,tiers",
    [
        ("distance", ["Research options"]),
        ("hint", ["Research options"]),
        ("heuristic", ["Research options"]),
        ("compare", []),  # a teaching command: its --help shows the teaching options
        ("check", []),
    ],
)
def test_other_commands_keep_their_research_and_teaching_options_apart(name, tiers):
    cmd = programs()[f"npuzzle {name}"]
    ctx = click.Context(cmd, info_name=f"npuzzle {name}")
    plain = cmd.get_help(ctx)
    every = help_all_text(f"npuzzle {name}", cmd)
    for heading in ("Research options", "Teaching options"):
        assert f"\n{heading}:" not in plain
        assert (f"\n{heading}:" in every) == (heading in tiers)
    assert (f"npuzzle {name} --help-all" in plain) == bool(tiers)


def test_the_teaching_command_shows_its_teaching_options_in_its_help():
    """``compare``'s own examples use --depth-limit: its --help lists it."""
    cmd = programs()["npuzzle compare"]
    plain = cmd.get_help(click.Context(cmd, info_name="npuzzle compare"))
    for flag in ("--heuristic", "--depth-limit", "--cycle-check"):
        assert flag in plain


def test_the_service_names_the_blank_as_the_command_line_does():
    """The request bodies' board help lists the blank's words from their one place (``X`` too)."""
    pytest.importorskip("pydantic", reason="the service needs the [serve] extra")
    from solver.core.shape import BLANK_WORDS
    from solver.service.requests import BOARD_HELP

    assert f"the blank is {BLANK_WORDS}." in BOARD_HELP and "X" in BLANK_WORDS


def test_the_size_of_a_12_cell_table_is_computed_once():
    """``build-pdb --help`` and docs/databases.md quote the size of the 3x4 and 2x6 exact
    tables that :func:`solver.tables.compact.table_bytes` computes."""
    from pathlib import Path

    from solver.core.board import Shape
    from solver.tables.compact import table_bytes

    mb = round(table_bytes(Shape(3, 4)) / 1e6)
    assert table_bytes(Shape(2, 6)) == table_bytes(Shape(3, 4))
    assert f"3x4 and 2x6: about a minute and {mb} MB each" in help_text("build-pdb", build_main)
    docs = (Path(__file__).resolve().parent.parent / "docs" / "databases.md").read_text()
    assert f"{mb} MB for 3x4" in " ".join(docs.split())
