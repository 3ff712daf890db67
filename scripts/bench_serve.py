#!/usr/bin/env python
"""Benchmark `npuzzle serve` on loopback: warm latency, throughput, latency while a hard search
runs, and a flood of malformed requests.

    python scripts/bench_serve.py [--data-dir DIR] [--workers 2] [--hard-seconds 60]
                                  [--only latency,throughput,hard,malformed]

Starts the server itself (``python -m solver serve`` on a free port), prints a table with the
targets beside the measurements, and the load average (the machine is shared: compare runs
taken at similar loads).  Load generators: latency and the hard-search run use one Python
client at a time over a kept-alive connection (``http.client``); throughput uses ``wrk``
(Debian's package) with 50 connections when it is installed, and a Python asyncio client
(50 connections) as well; the malformed flood uses the asyncio client.  Needs exact 3x3 tables
and the 4x4 7-8 database in the data directory.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from serving import Server  # noqa: E402  (tests/serving.py: the server as a process)

FAR_3X3 = "8 6 7/2 5 4/3 0 1"
EASY_4X4 = "1 2 3 4/5 6 7 8/9 10 0 11/13 14 15 12"


# --- clients -----------------------------------------------------------------------------------


class Client:
    """One kept-alive HTTP connection, one request at a time."""

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def post(self, path: str, body: dict) -> tuple[int, dict, float]:
        data = json.dumps(body).encode()
        t0 = time.perf_counter()
        self.conn.request("POST", path, data, {"content-type": "application/json"})
        r = self.conn.getresponse()
        payload = r.read()
        return r.status, json.loads(payload), time.perf_counter() - t0


def percentiles(seconds: list[float]) -> dict:
    ms = sorted(s * 1000 for s in seconds)
    pick = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]  # noqa: E731
    return {
        "n": len(ms),
        "p50": statistics.median(ms),
        "p90": pick(0.90),
        "p99": pick(0.99),
        "max": ms[-1],
    }


async def _raw(port: int, payloads: list[bytes], connections: int, seconds: float | None):
    """Send ``payloads`` (whole HTTP requests) over ``connections`` kept-alive connections,
    cycling until they are all sent (or ``seconds`` pass); return (statuses, latencies)."""
    statuses: dict = {}
    latencies: list = []
    queue = iter(range(len(payloads) if seconds is None else 1 << 62))
    stop = None if seconds is None else time.perf_counter() + seconds

    async def one_connection():
        reader = writer = None
        for i in queue:
            if stop is not None and time.perf_counter() > stop:
                break
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            t0 = time.perf_counter()
            writer.write(payloads[i % len(payloads)])
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                statuses["closed"] = statuses.get("closed", 0) + 1
                writer.close()
                reader = writer = None
                continue
            status = int(head.split(b" ", 2)[1])
            length = int(re.search(rb"content-length: *(\d+)", head, re.I).group(1))
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - t0)
            statuses[status] = statuses.get(status, 0) + 1
            if re.search(rb"connection: *close", head, re.I):
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    await asyncio.gather(*(one_connection() for _ in range(connections)))
    return statuses, latencies


def request(path: str, body: bytes) -> bytes:
    """A whole HTTP/1.1 POST."""
    return (
        f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


# --- the measurements ----------------------------------------------------------------------------


def random_15_puzzles(count: int, seed: int = 1) -> list[str]:
    import numpy as np

    from solver.core.board import goal_board
    from solver.workloads.generate import shuffled

    boards = shuffled(goal_board("4x4"), count, np.random.default_rng(seed))
    return [" ".join(map(str, b)) for b in boards.tolist()]


def latency(port: int, n: int) -> list[tuple]:
    c = Client(port)
    for _ in range(200):
        c.post("/distance", {"board": FAR_3X3})
    times = [c.post("/distance", {"board": FAR_3X3})[2] for _ in range(n)]
    rows = [("/distance 3x3, one client", "p50 <= 5 ms", percentiles(times))]
    boards = random_15_puzzles(max(50, n // 10))
    for b in boards[:10]:
        c.post("/solve", {"board": b})
    times, lengths = [], []
    for b in boards[10:]:
        status, rec, t = c.post("/solve", {"board": b})
        assert status == 200 and rec["status"] == "solved", rec
        times.append(t)
        lengths.append(rec["length"])
    rows.append(
        (
            f"/solve random 15-puzzle (7-8), one client, mean length "
            f"{statistics.mean(lengths):.1f}",
            "p50 <= 20 ms",
            percentiles(times),
        )
    )
    return rows


def throughput(port: int, seconds: float) -> list[tuple]:
    rows = []
    body = json.dumps({"board": FAR_3X3})
    if shutil.which("wrk"):
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(
                f"wrk.method = 'POST'\nwrk.body = '{body}'\n"
                f"wrk.headers['Content-Type'] = 'application/json'\n"
            )
        out = subprocess.run(
            [
                "wrk",
                "-t1",
                "-c50",
                f"-d{int(seconds)}s",
                "-s",
                f.name,
                f"http://127.0.0.1:{port}/distance",
            ],
            capture_output=True,
            text=True,
        ).stdout
        os.unlink(f.name)
        rate = float(re.search(r"Requests/sec:\s*([\d.]+)", out).group(1))
        bad = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
        errors = re.search(r"Socket errors:.*", out)
        note = f"{int(bad.group(1)) if bad else 0} non-2xx" + (
            f"; {errors.group(0)}" if errors else ""
        )
        rows.append(
            (
                "/distance 3x3, 50 connections, wrk -t1",
                ">= 2,000 req/s, no errors",
                {"req/s": rate, "errors": note},
            )
        )
    statuses, lat = asyncio.run(_raw(port, [request("/distance", body.encode())], 50, seconds))
    ok = statuses.get(200, 0)
    rows.append(
        (
            "/distance 3x3, 50 connections, Python asyncio client",
            ">= 2,000 req/s, no errors",
            {
                "req/s": ok / seconds,
                "errors": f"{sum(statuses.values()) - ok} not 200",
                **{k: v for k, v in percentiles(lat).items() if k in ("p50", "p99")},
            },
        )
    )
    return rows


def hard_search(port: int, seconds: float) -> list[tuple]:
    hardest = next(
        line.split("\t")[1]
        for line in (ROOT / "data/hardest80.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    answer = {}

    def run():
        answer["r"] = Client(port).post(
            "/solve",
            {"board": hardest, "goal": "blank-first", "heuristic": "manhattan", "timeout": seconds},
        )

    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.0)
    c = Client(port)
    lookups, solves = [], []
    while t.is_alive():
        lookups.append(c.post("/distance", {"board": FAR_3X3})[2])
        solves.append(c.post("/solve", {"board": EASY_4X4})[2])
        time.sleep(0.005)
    t.join()
    status, rec, took = answer["r"]
    what = (
        f"during a {took:.0f} s search ({rec.get('status')}, "
        f"{rec.get('nodes_generated', 0) / 1e6:,.0f} M nodes)"
    )
    return [
        (f"/distance 3x3 {what}", "p99 <= 50 ms", percentiles(lookups)),
        (f"/solve easy 4x4 (2nd worker) {what}", "p99 <= 50 ms", percentiles(solves)),
    ]


def malformed_payloads() -> list[bytes]:
    """Bad JSON, wrong types, huge bodies, unsolvable boards, wrong shapes, junk."""
    rnd = random.Random(7)
    paths = ["/solve", "/distance", "/hint", "/heuristic", "/check", "/generate"]
    bodies = [
        b"{bad json",
        b"[1, 2, 3]",
        b"null",
        b"",
        b'"a string"',
        b"\xff\xfe\x00",
        json.dumps({"board": 12345}).encode(),
        json.dumps({"board": {"a": [1, 2]}}).encode(),
        json.dumps({"board": [[1, 2, 3], [4, 5]]}).encode(),
        json.dumps({"board": "1 2 3/4 5 6/8 7 0"}).encode(),  # unsolvable
        json.dumps({"board": "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0"}).encode(),  # unsolvable
        json.dumps({"board": "1 2 3/4 5 6/7 8 0", "shape": "4x4"}).encode(),
        json.dumps({"board": "1 2 3 4 5 0 7", "shape": "2x4"}).encode(),
        json.dumps({"board": FAR_3X3, "timeout": "soon"}).encode(),
        json.dumps({"board": FAR_3X3, "max_nodes": -5}).encode(),
        json.dumps({"board": FAR_3X3, "algorithm": 7}).encode(),
        json.dumps({"board": FAR_3X3, "goal": [[1]]}).encode(),
        json.dumps({"boards": "not a list"}).encode(),
        json.dumps({"boards": [FAR_3X3] * 500}).encode(),
        json.dumps({"shape": "99x99", "count": 5}).encode(),
        json.dumps({"count": -1, "distance": "far"}).encode(),
        b'{"board":' + b"[" * 20000 + b"]" * 20000 + b"}",
        b'{"board": "' + b"9" * 6000 + b'"}',
        b'{"board": "1 2 3", "timeout": ' + b"9" * 5000 + b"}",
        b'{"board": "' + b"1 " * 40000 + b'"}',  # over the body limit
    ]
    bodies += [bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 300))) for _ in range(20)]
    return [request(p, b) for p in paths for b in bodies]


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children (the workers), in MB."""
    total = 0
    pids = [pid] + [
        int(p)
        for p in subprocess.run(
            ["pgrep", "-P", str(pid)], capture_output=True, text=True
        ).stdout.split()
    ]
    for p in pids:
        try:
            text = Path(f"/proc/{p}/status").read_text()
            total += int(re.search(r"VmRSS:\s*(\d+)", text).group(1))
        except (OSError, AttributeError):
            pass
    return total / 1024


def malformed(server: Server, count: int) -> list[tuple]:
    payloads = malformed_payloads()
    asyncio.run(_raw(server.port, payloads, 10, None))  # warm: every path once
    before = rss_mb(server.proc.pid)
    reps = (count + len(payloads) - 1) // len(payloads)
    t0 = time.perf_counter()
    statuses, _ = asyncio.run(_raw(server.port, payloads * reps, 20, None))
    took = time.perf_counter() - t0
    after = rss_mb(server.proc.pid)
    alive = server.proc.poll() is None
    server_errors = sum(
        v for k, v in statuses.items() if isinstance(k, int) and k >= 500 and k not in (503, 504)
    )
    return [
        (
            f"{sum(statuses.values()):,} malformed requests in {took:.1f} s, 20 connections",
            "0 server errors, no crash, memory flat",
            {
                "statuses": dict(sorted(statuses.items(), key=str)),
                "5xx bugs": server_errors,
                "alive": alive,
                "RSS MB before/after": f"{before:.0f} / {after:.0f}",
            },
        )
    ]


# --- the table ---------------------------------------------------------------------------------


def show(rows: list[tuple]) -> None:
    width = max(len(r[0]) for r in rows)
    for name, target, got in rows:
        text = ", ".join(
            f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in got.items()
        )
        print(f"{name:<{width}}  | {target:<38} | {text}")


def load() -> str:
    return os.popen("uptime").read().strip().split("load average:")[-1].strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data-dir",
        default=None,
        help="the databases (default: npuzzle's own: $NPUZZLE_DATA, the checkout's data/, ...)",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--requests", type=int, default=2000, help="latency samples")
    ap.add_argument("--seconds", type=float, default=10, help="throughput run length")
    ap.add_argument("--hard-seconds", type=float, default=60)
    ap.add_argument("--malformed", type=int, default=10_000)
    ap.add_argument("--only", default="latency,throughput,hard,malformed")
    args = ap.parse_args()
    which = set(args.only.split(","))

    from solver.tables import store

    args.data_dir = store.data_dir(args.data_dir)
    cache = tempfile.mkdtemp(prefix="npuzzle-bench-cache-")
    server = Server(
        args.data_dir,
        Path(cache),
        "--max-seconds",
        str(args.hard_seconds + 30),
        workers=args.workers,
    )
    server.wait_ready()
    print(
        f"npuzzle serve on port {server.port}, {args.workers} search workers, data "
        f"{args.data_dir}; load average at start: {load()}",
        flush=True,
    )
    rows = []
    try:
        if "latency" in which:
            rows += latency(server.port, args.requests)
        if "throughput" in which:
            rows += throughput(server.port, args.seconds)
        if "hard" in which:
            rows += hard_search(server.port, args.hard_seconds)
        if "malformed" in which:
            rows += malformed(server, args.malformed)
    finally:
        code, err = server.stop()
    show(rows)
    print(
        f"load average at end: {load()}; server exit status {code}"
        + ("" if "Traceback" not in err else "; TRACEBACK in the server's stderr")
    )


if __name__ == "__main__":
    main()
