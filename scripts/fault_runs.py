"""Running the commands of ``scripts/fault_injection.py`` and judging what they did.

Damage cases run in processes forked from this warm process (the CLI, numpy, h5py and the IDA*
kernel already loaded), each in its own process group with its stdin, stdout and stderr in
files, killed when it outlives the timeout -- so a case costs milliseconds, yet a hang, a
segfault or a traceback is seen exactly as in a real run.  Signals and huge arguments run the
real programs (``python -m solver``, ``python -m pdb_builder``).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EASY_4X4 = "2 6 3 4/1 8 10 7/5 15 14 12/9 0 11 13"  # 30 moves, a few thousand nodes
BATCH_3X3 = [
    "8 6 7 2 5 4 3 0 1",
    "1 2 3/4 5 6/0 7 8",
    "# a comment",
    "",
    "3 1 2/4 0 5/6 7 8",
    "1 2 3 4 5 6 8 7 0",
    "junk",
]
BATCH_4X4 = [
    EASY_4X4,
    "1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15",
    "5 1 2 4/9 6 3 8/13 10 7 11/0 14 15 12",
    "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 0",
]
INFO = ("building into", "data directory:", "npuzzle: note:", "build-pdb: note:")


@dataclass(frozen=True)
class Cmd:
    """A reading command: ``prog`` is npuzzle or build-pdb; ``--data-dir`` is added."""

    name: str
    prog: str
    args: tuple
    stdin: bytes | None = None
    boards: tuple = ()  # the starts of a solve, for checking another path of equal length
    goal: str | None = None


def _lines(rows) -> bytes:
    return ("\n".join(rows) + "\n").encode()


COMMANDS = (
    Cmd("distance 2x3", "npuzzle", ("distance", "4 1 2/5 0 3")),
    Cmd("distance 2x5 (compact)", "npuzzle", ("distance", "1 2 5 9 3/8 7 4 6 0")),
    Cmd(
        "solve 2x5 (compact)",
        "npuzzle",
        ("solve", "1 2 5 9 3/8 7 4 6 0"),
        boards=("1 2 5 9 3/8 7 4 6 0",),
    ),
    Cmd(
        "generate 2x5 --distance 30",
        "npuzzle",
        ("generate", "--shape", "2x5", "--distance", "30", "--count", "2", "--seed", "4"),
    ),
    Cmd("distance 3x3", "npuzzle", ("distance", "8 6 7 2 5 4 3 0 1")),
    Cmd(
        "distance 3x3 --goal spiral",
        "npuzzle",
        ("distance", "8 6 7 2 5 4 3 0 1", "--goal", "spiral", "--json"),
    ),
    Cmd("distance -", "npuzzle", ("distance", "-"), _lines(BATCH_3X3 + ["0 1 2 3 4 5"])),
    Cmd("solve 3x3", "npuzzle", ("solve", "8 6 7 2 5 4 3 0 1"), boards=("8 6 7 2 5 4 3 0 1",)),
    Cmd("solve 4x4", "npuzzle", ("solve", EASY_4X4), boards=(EASY_4X4,)),
    Cmd(
        "solve - 4x4 --jobs 2",
        "npuzzle",
        ("solve", "-", "--jobs", "2"),
        _lines(BATCH_4X4),
        boards=tuple(BATCH_4X4),
    ),
    Cmd(
        "solve - 3x3",
        "npuzzle",
        ("solve", "-", "--jobs", "1"),
        _lines(BATCH_3X3),
        boards=tuple(BATCH_3X3),
    ),
    Cmd("heuristic 3x3", "npuzzle", ("heuristic", "8 6 7 2 5 4 3 0 1")),
    Cmd("heuristic 4x4", "npuzzle", ("heuristic", EASY_4X4)),
    Cmd("heuristic -", "npuzzle", ("heuristic", "-"), _lines(BATCH_4X4)),
    Cmd("check -", "npuzzle", ("check", "-"), _lines(BATCH_3X3)),
    Cmd("stats 3x3", "npuzzle", ("stats", "--shape", "3x3")),
    Cmd("stats 2x3 --goal snake", "npuzzle", ("stats", "--shape", "2x3", "--goal", "snake")),
    Cmd("generate 3x3", "npuzzle", ("generate", "--count", "5", "--seed", "3")),
    Cmd(
        "generate 3x3 --distance 25",
        "npuzzle",
        ("generate", "--distance", "25", "--count", "3", "--seed", "3"),
    ),
    Cmd(
        "generate 4x4 walk",
        "npuzzle",
        (
            "generate",
            "--shape",
            "4x4",
            "--method",
            "walk",
            "--length",
            "24",
            "--count",
            "2",
            "--seed",
            "5",
        ),
    ),
    Cmd("build-pdb --verify", "build-pdb", ("--verify",)),
    Cmd("build-pdb --list", "build-pdb", ("--list",)),
)


@dataclass
class Result:
    rc: int | None
    out: str = ""
    err: str = ""
    killed_by: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


# --- forked runs ------------------------------------------------------------------------------


def _invoke(cmd: Cmd, data_dir: Path) -> int:
    from pdb_builder.cli import main as build_pdb
    from solver.cli import main as npuzzle

    program = npuzzle if cmd.prog == "npuzzle" else build_pdb
    try:
        program.main(args=[*cmd.args, "--data-dir", str(data_dir)], prog_name=cmd.prog)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - exactly what the judge looks for
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    return code


def _spawn(cmd: Cmd, data_dir: Path, scratch: Path, n: int):
    files = [scratch / f"{n}.{x}" for x in ("in", "out", "err")]
    files[0].write_bytes(cmd.stdin or b"")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: run the command, never return
        code = 1
        try:
            os.setpgid(0, 0)
            for fd, path, flags in (
                (0, files[0], os.O_RDONLY),
                (1, files[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                (2, files[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            ):
                os.dup2(os.open(path, flags, 0o644), fd)
            code = _invoke(cmd, data_dir)
        finally:
            os._exit(code & 0xFF)
    return pid, files


def run_many(jobs, parallel: int, timeout: float, progress: bool = False):
    """Run jobs ``(cmd, data_dir, ...)``, ``parallel`` at a time; yield ``(job, Result)`` in
    the order they finish."""
    scratch = Path(tempfile.mkdtemp(prefix="npuzzle-runs-"))
    pending = list(enumerate(jobs))[::-1]
    running: dict = {}
    done = 0
    while pending or running:
        while pending and len(running) < parallel:
            n, job = pending.pop()
            pid, files = _spawn(job[0], job[1], scratch, n)
            running[pid] = (job, files, time.monotonic())
        time.sleep(0.003)
        for pid in list(running):
            job, files, t0 = running[pid]
            got, status = os.waitpid(pid, os.WNOHANG)
            late = time.monotonic() - t0 > timeout
            if got == 0 and not late:
                continue
            if got == 0:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            else:
                _reap_group(pid)
            res = Result(
                None if got == 0 else os.waitstatus_to_exitcode(status),
                files[1].read_text(errors="replace"),
                files[2].read_text(errors="replace"),
                timed_out=got == 0,
                seconds=time.monotonic() - t0,
            )
            if res.rc is not None and res.rc < 0:
                res.killed_by, res.rc = -res.rc, None
            del running[pid]
            for f in files:
                f.unlink(missing_ok=True)
            done += 1
            if progress and done % 250 == 0:
                print(f"  {done:,} cases run", file=sys.stderr)
            yield job, res
    scratch.rmdir()


def _reap_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)  # stray pool workers of a finished case
    except ProcessLookupError:
        pass


def run_one(cmd: Cmd, data_dir: Path, timeout: float = 120.0) -> Result:
    return next(run_many([(cmd, data_dir)], 1, timeout))[1]


def warm_up(pristine: Path, work: Path) -> None:
    """Load the IDA* kernel and the batch machinery in this process (its children inherit
    them), then forget every file it opened."""
    import shutil

    from solver import api
    from solver.search import plans

    warm = work / "warm"
    shutil.copytree(pristine, warm)
    api.solve(EASY_4X4, data_dir=warm)
    plans.clear_cache()
    shutil.rmtree(warm)


def known_answers(pristine: Path, timeout: float) -> dict:
    """Each command's result on the pristine databases (they must all succeed)."""
    known = {}
    for (cmd, _), res in run_many([(c, pristine) for c in COMMANDS], 2, timeout):
        if res.rc not in (0, 1, 2) or "Traceback" in res.err:
            raise SystemExit(f"pristine run of {cmd.name} failed: {res.rc} {res.err}")
        known[cmd.name] = res
    return known


# --- judging ----------------------------------------------------------------------------------


def _error_lines(err: str) -> list[str]:
    lines = [ln.split("\r")[-1].strip() for ln in err.splitlines()]
    return [
        ln
        for ln in lines
        if ln
        and not ln.startswith(INFO)
        and "it/s" not in ln
        and not re.match(r"^[\w ]+:\s+\d+%\|", ln)
    ]


def judge(cmd: Cmd, res: Result, known: Result, damage) -> str:
    """right, refused+fix, wrong, traceback, hang, crash or other."""
    if res.timed_out:
        return "hang"
    if res.killed_by:
        return "crash"
    if "Traceback (most recent call last)" in res.err:
        return "traceback"
    errors = _error_lines(res.err)
    one_line = len(errors) <= 1
    fixed = one_line and res.rc == 3 and bool(errors) and "; fix: build-pdb " in errors[0]
    if cmd.name == "build-pdb --list":  # exit 3 and the fix where its digest check fails
        return "right" if res.rc == 0 and one_line else ("refused+fix" if fixed else "other")
    if cmd.name == "build-pdb --verify":
        if damage is None or damage.harmless or damage.verify_passes:  # None: repaired
            return "right" if res.rc == 0 else "other"
        return "refused+fix" if fixed else ("wrong" if res.rc == 0 else "other")
    if res.rc == 3:
        return "refused+fix" if fixed else "other"
    if res.rc == known.rc and (res.out == known.out or same_solutions(cmd, res.out, known.out)):
        return "right" if one_line or res.rc != 0 else "other"
    return "wrong" if res.rc in (0, 1) else "other"


_SOLUTION = re.compile(r"^(\d+) moves: ([UDLR]+)$")


def same_solutions(cmd: Cmd, out: str, known: str) -> bool:
    """Another optimal path is as right as the known one: same lengths, and each path
    replays from its start to the goal."""
    if not cmd.boards:
        return False
    from solver.core.board import Board, goal_board

    got, want = out.splitlines(), known.splitlines()
    if len(got) != len(want):
        return False
    starts = [b for b in cmd.boards]
    for i, (g, w) in enumerate(zip(got, want)):
        if g == w:
            continue
        mg, mw = _SOLUTION.match(g), _SOLUTION.match(w)
        if not (mg and mw and mg.group(1) == mw.group(1)) or i >= len(starts):
            return False
        start = Board.parse(starts[i])
        if start.apply(mg.group(2)) != goal_board(start.shape, cmd.goal):
            return False
    return True


# --- pasting a fix ---------------------------------------------------------------------------


def _path_with_build_pdb(work: Path) -> str:
    """A PATH on which ``build-pdb`` runs this checkout's builder."""
    bin_dir = work / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "build-pdb"
    script.write_text(
        f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT))} exec "
        f'{shlex.quote(sys.executable)} -m pdb_builder "$@"\n'
    )
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


def paste_fix(cmd: Cmd, data_dir: Path, known: Result, work: Path):
    """Run ``cmd`` (exit 3 expected), paste its fix into bash, run ``cmd`` again: True when
    it then answers right, else what went wrong."""
    first = run_one(cmd, data_dir)
    errors = _error_lines(first.err)
    if first.rc != 3 or not errors or "; fix: " not in errors[-1]:
        return f"not refused with a fix: rc={first.rc} {first.err.strip()!r}"
    fix = errors[-1].split("; fix: ", 1)[1]
    env = dict(os.environ, PATH=_path_with_build_pdb(work))
    done = subprocess.run(
        ["bash", "-c", fix + " -q" if "&&" not in fix else fix],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        return f"fix {fix!r} exited {done.returncode}: {done.stderr.strip()[-300:]!r}"
    again = run_one(cmd, data_dir)
    verdict = judge(cmd, again, known, None)
    if verdict == "wrong" and cmd.args[0] == "heuristic" and again.rc == 0:
        verdict = "right"  # the fix may build a stronger database than the one deleted
    return True if verdict == "right" else f"after {fix!r}: {verdict} {again.err.strip()!r}"


# --- hostile input, huge arguments, signals ---------------------------------------------------

HOSTILE_LINES = {
    "huge number": b"1 2 3 4 5 6 7 8 " + b"9" * 5000,
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "invalid UTF-8": b"\xff\xfe 1 2 3\x80",
    "NUL bytes": b"1\x002 3 4 5 6 7 8 0",
    "a 2 MB line": b"1 " * 1_000_000,
    "10,000 tiles": " ".join(map(str, range(10_000))).encode(),
    "unicode digits": "١ ٢ ٣ ٤ ٥ ٦ ٧ ٨ ٠".encode(),
    "separators only": b",,,///   ",
    "float tiles": b"1.5 2 3 4 5 6 7 8 0",
    "JSON object": b'{"a": [1, 2]}',
    "JSON of 100,000 ones": b"[" + b",".join([b"1"] * 100_000) + b"]",
}


def hostile_cases(pristine: Path, known: dict, args) -> dict:
    """Hostile batch lines between two good ones, and huge arguments."""
    table: dict = {}
    jobs = []
    first, last = "8 6 7 2 5 4 3 0 1", "1 2 3/4 5 6/0 7 8"
    for label, line in HOSTILE_LINES.items():
        for command in ("distance", "solve", "heuristic", "check"):
            stdin = first.encode() + b"\n" + line + b"\n" + last.encode() + b"\n"
            jobs.append(
                (
                    Cmd(f"{command} - ({label})", "npuzzle", (command, "-"), stdin),
                    pristine,
                    "hostile batch line: " + label,
                    command,
                )
            )
    good = {
        c: run_one(Cmd(c, "npuzzle", (c, "-"), f"{first}\n{last}\n".encode()), pristine)
        for c in ("distance", "solve", "heuristic", "check")
    }
    for (cmd, _, kind, command), res in run_many(jobs, args.jobs, args.timeout):
        verdict = _judge_hostile(res, good[command])
        table.setdefault(kind, Counter())[verdict] += 1
        if verdict != "right":
            print(
                f"  {verdict}: {cmd.name}: rc={res.rc} {res.err.strip()[-200:]!r}", file=sys.stderr
            )
    for kind, verdict in huge_arguments(pristine, known):
        table.setdefault(kind, Counter())[verdict] += 1
    return table


def _judge_hostile(res: Result, good: Result) -> str:
    if res.timed_out:
        return "hang"
    if res.killed_by:
        return "crash"
    if "Traceback (most recent call last)" in res.err:
        return "traceback"
    out, want = res.out.splitlines(), good.out.splitlines()
    if res.rc not in (0, 1, 2) or len(out) != 3:
        return "other"
    return "right" if (out[0], out[2]) == (want[0], want[1]) else "wrong"


def _program(*args, stdin=None, timeout=60.0, env=None) -> Result:
    cmd = [sys.executable, "-m", args[0], *args[1:]]
    t0 = time.monotonic()
    try:
        p = subprocess.run(
            cmd,
            input=stdin,
            capture_output=True,
            timeout=timeout,
            env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
        )
    except subprocess.TimeoutExpired as e:
        return Result(
            None,
            (e.stdout or b"").decode(errors="replace"),
            (e.stderr or b"").decode(errors="replace"),
            timed_out=True,
        )
    rc = p.returncode
    return Result(
        rc if rc >= 0 else None,
        p.stdout.decode(errors="replace"),
        p.stderr.decode(errors="replace"),
        killed_by=-rc if rc < 0 else None,
        seconds=time.monotonic() - t0,
    )


def _refused(res: Result, code: int = 2) -> str:
    if res.timed_out:
        return "hang"
    if res.killed_by:
        return "crash"
    if "Traceback" in res.err:
        return "traceback"
    return "right" if res.rc == code and len(_error_lines(res.err)) == 1 else "other"


def huge_arguments(pristine: Path, known: dict):
    """(kind, verdict) for each request too large or malformed to honour."""
    d = str(pristine)
    refusals = [
        ("--timeout nan/inf/-1", ("solver", "solve", EASY_4X4, "--timeout", "nan")),
        ("--timeout nan/inf/-1", ("solver", "solve", EASY_4X4, "--timeout", "inf")),
        ("--timeout nan/inf/-1", ("solver", "distance", "1 2 3/4 5 6/7 0 8", "--timeout", "-1")),
        ("--data-dir ''", ("solver", "distance", "1 2 3/4 5 6/7 0 8", "--data-dir", "")),
        ("--data-dir ''", ("pdb_builder", "--verify", "--data-dir", "")),
        (
            "15-tile partition",
            (
                "pdb_builder",
                "--shape",
                "4x4",
                "--partition",
                ",".join(map(str, range(1, 16))),
                "--data-dir",
                d,
            ),
        ),
        (
            "15-tile partition",
            (
                "pdb_builder",
                "--shape",
                "5x5",
                "--partition",
                ",".join(map(str, range(1, 13))) + "/" + ",".join(map(str, range(13, 25))),
                "--data-dir",
                d,
            ),
        ),
        (
            "generate --unique beyond the positions",
            ("solver", "generate", "--count", "10000000", "--unique", "--data-dir", d),
        ),
        (
            "generate --length 10**21",
            ("solver", "generate", "--method", "walk", "--length", "1" + "0" * 21, "--data-dir", d),
        ),
        ("a 100 KB board argument", ("solver", "solve", "1 " * 50_000, "--data-dir", d)),
        (
            "--verify of a missing directory",
            ("pdb_builder", "--verify", "--data-dir", d + " nowhere"),
        ),
    ]
    for kind, args in refusals:
        yield kind, _refused(_program(*args))
    batch = "\n".join(BATCH_4X4) + "\n"
    res = _program(
        "solver",
        "solve",
        "-",
        "--jobs",
        "100000",
        "--data-dir",
        d,
        stdin=batch.encode(),
        timeout=120,
    )
    ok = (
        res.rc == 0
        and res.out == known["solve - 4x4 --jobs 2"].out
        and res.err.count("--jobs 100000") == 1
        and len(_error_lines(res.err)) == 0
    )
    yield "solve - --jobs 100000", _refused(res, 0) if not ok else "right"
    yield "generate --count 10**9 streams", _streams(d)


def _streams(data_dir: str) -> str:
    """The first lines arrive within seconds and memory stays small; then stop it."""
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solver",
            "generate",
            "--count",
            "1000000000",
            "--data-dir",
            data_dir,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    t0 = time.monotonic()
    first = p.stdout.readline()
    took = time.monotonic() - t0
    for _ in range(20000):  # keep it writing for a while
        p.stdout.readline()
    rss = _rss_mb(p.pid)
    p.send_signal(signal.SIGTERM)
    p.stdout.close()
    err = p.stderr.read().decode(errors="replace")
    p.wait(timeout=30)
    good = first.count(b"\t") == 1 and took < 10 and rss < 300 and p.returncode in (143, 141)
    return "right" if good and "Traceback" not in err else "other"


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def signal_cases(pristine: Path, work: Path, count: int, rng) -> dict:
    """SIGINT and SIGTERM at random moments of real runs: exit 130/143 with one line (or 0
    when it finished first), no traceback, no temporary file left, the old file intact."""
    import shutil

    table: dict = {}
    d = str(pristine)
    programs = [
        ("solve 4x4", ("solver", "solve", EASY_4X4, "--data-dir", d)),
        ("solve - --jobs 2", ("solver", "solve", "-", "--jobs", "2", "--data-dir", d)),
        ("generate 10**9", ("solver", "generate", "--count", "1000000000", "--data-dir", d)),
        ("build-pdb --verify", ("pdb_builder", "--verify", "--data-dir", d)),
        (
            "build-pdb 5-5-5 --force",
            (
                "pdb_builder",
                "--shape",
                "4x4",
                "--partition",
                "5-5-5",
                "--force",
                "-q",
                "--data-dir",
                None,
            ),
        ),
    ]
    scratch = work / "signal build"
    for i in range(count):
        label, args = programs[i % len(programs)]
        sig = (signal.SIGINT, signal.SIGTERM)[(i // len(programs)) % 2]
        if None in args:
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(pristine, scratch)
            args = tuple(str(scratch) if a is None else a for a in args)
        delay = rng.uniform(0.0, 2.5)
        verdict, err = _signalled(args, sig, delay, scratch if "--force" in args else None)
        table.setdefault(f"{sig.name} to {label}", Counter())[verdict] += 1
        if verdict != "right":
            print(
                f"  {verdict}: {sig.name} after {delay:.2f} s to {label}: {err[-400:]!r}",
                file=sys.stderr,
            )
    return table


def _signalled(args, sig, delay: float, build_dir: Path | None) -> tuple[str, str]:
    """(verdict, stderr) of one run signalled after ``delay`` seconds."""
    stdin = ("\n".join(BATCH_4X4 * 50) + "\n").encode()
    p = subprocess.Popen(
        [sys.executable, "-m", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    try:
        p.stdin.write(stdin)
        p.stdin.close()
    except BrokenPipeError:
        pass
    p.stdin = None  # closed: communicate() must not flush it
    time.sleep(delay)
    p.send_signal(sig)
    try:
        err = p.communicate(timeout=60)[1].decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        return "hang", ""
    if build_dir is not None:
        if list(build_dir.glob("*.tmp-*")):
            return "other", "a temporary file was left behind"
        from solver.tables import audit

        if audit.audit(build_dir / "apdb-4x4-5-5-5.h5"):
            return "wrong", "the database is not sound after the signal"
    if "Traceback" in err:
        # Python's own start-up, before npuzzle's first line runs, is out of our reach.
        ours = "solver" in err or "pdb_builder" in err
        return ("traceback" if ours else "right"), err
    rc = p.returncode
    if rc == -sig:
        return "right", err  # killed by the default action before the handlers existed
    if rc < 0:
        return "crash", err
    ok = rc in (0, 128 + sig) and len(_error_lines(err)) <= 1
    return ("right" if ok else "other"), err


# --- the cost of trust ------------------------------------------------------------------------


def print_trust_cost(pristine: Path, work: Path, extra: list[Path] = ()) -> None:
    """The hash of each file (first use after it changed), a one-shot command with the record
    of verified files cold and warm, and each of the ``extra`` files (``--time-file``) that
    exists."""
    from solver.tables import store

    print("\ntrust check: sha256 of the file after its header, on its first use after a change")
    files = sorted(pristine.glob("*.h5"))
    files += [path for path in extra if path.is_file()]
    print(f"  {'file':<24} {'MB':>8}  {'wall ms':>8}  {'CPU ms':>8}  CPU GiB/s")
    for path in files:
        wall, cpu = [], []
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            store.prove(path, fresh=True)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        size = path.stat().st_size
        print(
            f"  {path.name:<24} {size / 2**20:8.1f}  {min(wall) * 1000:8.1f}  "
            f"{min(cpu) * 1000:8.1f}  {size / max(min(cpu), 1e-6) / 2**30:9.2f}"
        )
    shell = [
        sys.executable,
        "-m",
        "solver",
        "distance",
        "8 6 7 2 5 4 3 0 1",
        "--data-dir",
        str(pristine),
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cold, warm = [], []
    for _ in range(5):
        env["NPUZZLE_CACHE"] = tempfile.mkdtemp(prefix="npuzzle-cold-", dir=work)
        cold.append(_wall(shell, env))
        warm.append(_wall(shell, env))
    print(
        f"  one-shot `npuzzle distance` (3x3): {min(cold) * 1000:.0f} ms with the exact "
        f"table hashed (cold record), {min(warm) * 1000:.0f} ms when recorded (median of "
        f"5 pairs: {_median(cold) * 1000:.0f} / {_median(warm) * 1000:.0f} ms)"
    )
    build = work / "after build"
    subprocess.run(
        [sys.executable, "-m", "pdb_builder", "--shape", "3x3", "-q", "--data-dir", str(build)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=True,
        capture_output=True,
    )
    t0 = time.perf_counter()
    store._TRUSTED.seen.clear()
    store.prove(build / "exact-3x3.h5")
    print(
        f"  first use after a build: {(time.perf_counter() - t0) * 1000:.2f} ms to prove "
        f"(the builder recorded the file it wrote; nothing is hashed)"
    )


def _wall(cmd, env) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


if __name__ == "__main__":
    # A module of scripts/fault_injection.py: on its own it only says so (and answers --help).
    import argparse

    argparse.ArgumentParser(
        description=__doc__.splitlines()[0] + " Run scripts/fault_injection.py instead."
    ).parse_args()
    raise SystemExit("a module of scripts/fault_injection.py: run that script")
