"""Helpers for the service's tests: a data directory with small databases, and `npuzzle serve`
run as a real process on a free loopback port."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START_SECONDS = 120  # a fresh checkout compiles the search kernels on the first start


def make_service_dir(target: Path, exact_dir: Path) -> Path:
    """Exact 2x3/3x3 tables (copied), a 3x3 4-4 and a 4x4 5-5-5 pattern database (~1 s)."""
    from pdb_builder.build_apdb import build_apdb

    target.mkdir(parents=True, exist_ok=True)
    for f in Path(exact_dir).glob("exact-*.h5"):
        shutil.copy(f, target / f.name)
    build_apdb("3x3", "4-4", None, target, progress=False)
    build_apdb("4x4", "5-5-5", None, target, progress=False)
    return target


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url: str, body=None, timeout: float = 30.0, token: str | None = None) -> tuple[int, dict]:
    """POST ``body`` as JSON (GET when None), with ``token`` as the bearer token where given,
    and return (status, parsed JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(
        url, data=data, method="GET" if body is None else "POST", headers=headers
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Server:
    """``python -m solver serve`` on a free port; ``url`` once its workers are ready.  A
    ``token`` is given to it in ``$NPUZZLE_TOKEN`` (and sent by :meth:`wait_ready`)."""

    def __init__(
        self,
        data_dir: Path,
        cache_dir: Path,
        *extra: str,
        workers: int = 1,
        env=None,
        token: str | None = None,
    ):
        self.port = free_port()
        self.token = token
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            **(env or {}),
            "PYTHONPATH": str(ROOT),
            "NPUZZLE_CACHE": str(cache_dir),
        }
        env.pop("NPUZZLE_DATA", None)
        env.pop("NPUZZLE_TOKEN", None)
        if token is not None:
            env["NPUZZLE_TOKEN"] = token
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "solver",
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(data_dir),
                "--workers",
                str(workers),
                *extra,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_ready(self) -> None:
        """Wait until /health says every search worker is ready."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.proc.stderr.read()}")
            try:
                status, health = call(self.url + "/health", timeout=2, token=self.token)
                if status == 200 and health["workers"]["ready"] == health["workers"]["of"]:
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not become ready")

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a user would; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return self.proc.returncode, err
