"""Each option is declared once (:mod:`solver.options`): the search's ``SearchOptions``, the
commands' click options and the service's request bodies are made from that declaration, and
must agree with it -- the same names, defaults, choices and bounds -- and the same values given
on the command line and in a request body must ask for the same search."""

from __future__ import annotations

import dataclasses
import re
import typing

import click
import pytest

from solver import SearchOptions, api
from solver import options as solver_options
from solver.cli import main
from solver.cli import options as cli_options
from solver.core.board import BoardError
from solver.options import BY_NAME, SPEC, TIERS, for_command, for_endpoint

pydantic = pytest.importorskip("pydantic")
requests = pytest.importorskip("solver.service.requests")

COMMANDS = sorted({c for o in SPEC for c in o.commands})
ENDPOINTS = sorted({e for o in SPEC for e in o.endpoints})
MODELS = {
    "distance": requests.DistanceRequest,
    "heuristic": requests.HeuristicRequest,
    "hint": requests.HintRequest,
    "solve": requests.SolveRequest,
}


def command(name: str) -> click.Command:
    return main.get_command(click.Context(main), name)


def param(cmd: click.Command, name: str) -> click.Parameter:
    (found,) = [p for p in cmd.params if p.name == name]
    return found


# --- the specification itself ------------------------------------------------------------------


def test_each_option_is_whole():
    for o in SPEC:
        assert o.tier in TIERS, o.name
        assert o.help.strip() and o.flags and all(f.startswith("-") for f in o.flags), o.name
        assert o.commands or o.endpoints, f"{o.name} is taken nowhere"
        assert not (o.off and o.negated), o.name
    assert len(BY_NAME) == len(SPEC)


def test_help_texts_explain_and_do_not_measure():
    measured = re.compile(r"\d+(\.\d+)?\s*(times|x)\s+(the|fewer|sooner|faster)|\d+(\.\d+)? ?%")
    assert [o.name for o in SPEC if measured.search(o.help)] == []


# --- SearchOptions ----------------------------------------------------------------------------


def test_search_options_has_every_search_option_with_its_default():
    fields = {f.name: f for f in dataclasses.fields(SearchOptions)}
    searched = {o.name for o in SPEC if o.search}
    assert set(fields) - {"progress"} == searched
    for name in searched:
        assert fields[name].default == BY_NAME[name].default, name
    assert fields["progress"].compare is False
    assert api.SearchOptions is SearchOptions
    for name in ("ALGORITHMS", "HEURISTICS", "CYCLE_CHECKS"):  # still importable from the API
        assert getattr(api, name) is getattr(solver_options, name)


def test_a_search_request_has_the_defaults_of_the_options():
    """A request made in code without a field searches as the options' default would: the
    pruning machine of depth DEFAULT_FSM_DEPTH (None was the weakest machine), the same
    heuristic switches."""
    from solver.core.board import goal_board
    from solver.search.request import SearchRequest

    goal = goal_board("3x3")
    bare, asked = SearchRequest(goal, goal), api.search_request(goal, goal, SearchOptions(), False)
    assert bare.fsm_depth == SearchOptions().fsm == asked.fsm_depth
    assert bare.heuristic == asked.heuristic and bare.jobs == asked.jobs
    assert bare.promising_first == asked.promising_first


def test_the_warm_path_forwards_the_commands_server_is_taken_by():
    """The client keeps its own list (it must start without importing this module): the
    same commands."""
    from solver.client import wire

    assert wire.FORWARDED == BY_NAME["server"].commands


def test_search_options_keeps_its_rules():
    for bad in (
        {"algorithm": "warp"},
        {"heuristic": "psychic"},
        {"cycle_check": "sometimes"},
        {"jobs": 0},
        {"fsm": 1},
        {"fsm": 15},
        {"fsm": True},
        {"weight": 2, "algorithm": "bfs"},
    ):
        with pytest.raises(BoardError):
            SearchOptions(**bad)
    assert SearchOptions(fsm=2).fsm == 2
    assert SearchOptions(progress=print) == SearchOptions()  # the listener is not the search


# --- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_takes_its_options_as_declared(name):
    cmd = command(name)
    for o in for_command(name):
        p = param(cmd, o.name) if o.name != "load" else _by_flag(cmd, "--load")
        assert p.default == o.command_line_default, (name, o.name)
        assert set(p.opts) | set(p.secondary_opts) == {*o.flags, *([o.off] if o.off else [])}
        assert p.tier == o.tier
        if o.choices:
            assert tuple(p.type.choices) == o.choices, (name, o.name)
        if isinstance(p.type, click.IntRange | click.FloatRange):
            assert (p.type.min, p.type.max) == (o.low, o.high), (name, o.name)
    declared = {o.name for o in for_command(name)}
    tiered = {p.name for p in cmd.params if hasattr(p, "tier")}
    assert tiered == declared | ({"load"} & declared)


def _by_flag(cmd: click.Command, flag: str) -> click.Parameter:
    (found,) = [p for p in cmd.params if flag in p.opts]
    return found


def test_the_flags_that_are_gone_are_gone():
    solve = command("solve")
    flags = {f for p in solve.params for f in [*p.opts, *p.secondary_opts]}
    assert "--fast" not in flags and "--zero-aware" not in flags
    assert {"--no-zero-aware", "--no-reflect", "--fsm"} <= flags
    fsm = param(solve, "fsm").type
    assert (fsm.min, fsm.max) == (2, 14)


# --- the service ------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_each_request_takes_its_options_as_declared(endpoint):
    fields = MODELS[endpoint].model_fields
    for o in for_endpoint(endpoint):
        f = fields[o.key]
        assert f.default == (not o.default if o.service_key else o.default), (endpoint, o.key)
        bounds = {type(m).__name__: m for m in f.metadata}
        if o.low is not None:
            assert bounds["Ge"].ge == o.low, (endpoint, o.key)
        if o.high is not None:
            assert bounds["Le"].le == o.high, (endpoint, o.key)
        if o.choices:
            (literal,) = [a for a in typing.get_args(f.annotation) if a is not type(None)]
            assert typing.get_args(literal) == o.choices
        assert f.description == o.help
    search_keys = {k for k in fields if k not in requests.Problem.model_fields}
    assert search_keys == {o.key for o in for_endpoint(endpoint)}


def _key(option: click.Option) -> str:
    """The key a client writes for a command-line option: its first flag as a name."""
    return option.opts[0].lstrip("-").replace("-", "_")


@pytest.mark.parametrize("endpoint", [*MODELS, "check", "generate"])
def test_each_endpoint_takes_every_option_of_its_command_but_the_command_lines_own(endpoint):
    """A request's keys are the command line's option names: every option of the command
    is a key of its endpoint, or declared the command line's own (``unserved``: said in the
    400 that refuses it)."""
    model = {"check": requests.CheckRequest, "generate": requests.GenerateRequest}
    fields = {**MODELS, **model}[endpoint].model_fields
    missing = []
    for p in command(endpoint).params:
        if not isinstance(p, click.Option) or p.name == "help_all":
            continue
        spec = BY_NAME.get(p.name)
        if spec is not None and getattr(spec, "unserved", ""):
            assert _key(p) not in fields, (endpoint, p.name)
            continue
        if (spec.key if spec is not None else _key(p)) not in fields:
            missing.append(p.opts[0])
    assert missing == [], f"/{endpoint} takes no key for {missing}"


def test_the_service_has_no_fast_field():
    with pytest.raises(pydantic.ValidationError):
        requests.SolveRequest(board="1 2 3/4 0 5", fast=True)
    with pytest.raises(pydantic.ValidationError):
        requests.SolveRequest(board="1 2 3/4 0 5", fsm=1)


# --- the same question, asked both ways -------------------------------------------------------


ASKED = [
    ([], {}),
    (["-a", "idastar", "-p", "6-6-3", "--timeout", "2.5", "--max-nodes", "1000"],
     {"algorithm": "idastar", "partition": "6-6-3", "timeout": 2.5, "max_nodes": 1000}),
    (["-w", "1.5", "--fsm", "8", "--combine", "--no-pick", "--no-pick-max"],
     {"weight": 1.5, "fsm": 8, "combine": True, "pick": False, "pick_max": False}),
    (["--no-zero-aware", "--search-order", "--no-reflect", "--heuristic", "manhattan"],
     {"zero_aware": False, "promising_first": False, "no_reflect": True,
      "heuristic": "manhattan"}),
    (["-a", "dls", "--depth-limit", "12", "--cycle-check", "path"],
     {"algorithm": "dls", "depth_limit": 12, "cycle_check": "path"}),
    (["-a", "fast"], {"algorithm": "fast"}),
]  # fmt: skip


@pytest.mark.parametrize("words,body", ASKED)
def test_a_command_line_and_a_request_body_ask_for_the_same_search(words, body):
    ctx = command("solve").make_context("solve", ["1 2 3/4 0 5", *words])
    from_cli = cli_options.search_options(ctx.params)
    params = requests.SolveRequest(board="1 2 3/4 0 5", **body).model_dump()
    from_service = SearchOptions(**requests.search_fields("solve", params))
    assert from_cli == from_service
    if not words:
        assert from_cli == SearchOptions()


def test_solve_help_shows_the_common_options_and_help_all_every_one():
    solve = command("solve")
    common = [p for p in solve.params if getattr(p, "tier", "common") == "common"]
    common = [p for p in common if isinstance(p, click.Option)]
    assert 13 <= len(common) <= 19
    names = {o.name for o in for_command("solve") if o.tier == "common"}
    assert names == {
        "goal", "shape", "data_dir", "as_json", "show", "tiles", "algorithm", "partition",
        "weight", "jobs", "timeout", "max_nodes", "resume", "scheduler", "verbose", "server",
        "token", "quiet",
    }  # fmt: skip
