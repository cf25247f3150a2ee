"""Fixtures: the real reference server (the CLI on 127.0.0.1 port 0, manual clock, test controls),
started once per session, and clients whose monotonic clock the test moves with the server's."""

from __future__ import annotations

import os
import re
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Optional

import httpx
import pytest

from leasehold import Leasehold, http_transport

ROOT = Path(__file__).resolve().parents[3]
API_KEY = "lh_test_admin"


def server_command() -> list[str]:
    """The CLI from source through tsx, as ``pnpm start`` runs it (``LEASEHOLD_PY_SERVER=dist``: the
    built ``packages/server/dist/cli.js``, faster to start). ``LEASEHOLD_PY_STORE`` is passed as
    ``--store`` (a PostgreSQL URL, or a directory for PGlite)."""
    args = ["--port", "0", "--clock", "manual", "--control"]
    store = os.environ.get("LEASEHOLD_PY_STORE")
    if store:
        args += ["--store", store]
    if os.environ.get("LEASEHOLD_PY_SERVER") == "dist":
        return ["node", str(ROOT / "packages/server/dist/cli.js"), *args]
    return ["node", "--import", "tsx", "packages/server/src/cli.ts", *args]


class Server:
    """A running reference server."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    process = subprocess.Popen(
        server_command(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "LEASEHOLD_LOG_LEVEL": "silent"},
    )
    assert process.stdout is not None
    found: list[str] = []
    seen: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if match and not found:
                found.append(match.group(1))
                ready.set()
        ready.set()

    ready = threading.Event()
    threading.Thread(target=read, daemon=True).start()
    ready.wait(60)
    if not found:
        process.kill()
        raise RuntimeError("the reference server did not start:\n" + "".join(seen))
    yield Server(process, found[0])
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


class FakeClock:
    """A monotonic clock the test moves (with the server's manual clock)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    """Every request the client sent: (method, path, headers, body)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> None:
        self.requests.append(request)

    def of(self, path_part: str) -> list[httpx.Request]:
        return [r for r in self.requests if path_part in r.url.path]


class Harness:
    """A client on a fake clock, the server's test controls, and helpers to move time together."""

    def __init__(self, server: Server, **options: Any) -> None:
        self.server = server
        self.clock = FakeClock()
        self.recorder = Recorder()
        self.sleeps: list[float] = []
        http = httpx.Client(event_hooks={"request": [self.recorder]}, timeout=30, transport=http_transport())
        self.lh = Leasehold(
            base_url=server.url, api_key=API_KEY, clock=self.clock, http_client=http, sleep=self.sleeps.append, **options
        )
        self.space_id = str(uuid.uuid4())
        self.scope_id = str(uuid.uuid4())

    def run(self, holder: str = "py-worker") -> Any:
        return self.lh.space(self.space_id).run(self.scope_id, holder=holder)

    def advance(self, seconds: float) -> None:
        """Moves the server's clock and the client's by ``seconds``, then wakes the renewal thread."""
        self.lh.control.advance(seconds)
        self.clock.now += seconds
        self.lh.renewal.wake()

    def settle(self, predicate: Callable[[], bool], timeout: float = 15.0) -> None:
        """Waits (bounded) until the renewal thread made ``predicate`` true."""
        core = self.lh.renewal.core
        with core.settled:
            ok = core.settled.wait_for(predicate, timeout)
        assert ok, "the renewal thread did not get there in time"

    def heartbeats_sent(self) -> int:
        return len(self.recorder.of("/v1/claims/heartbeat"))


@pytest.fixture
def h(server: Server) -> Iterator[Harness]:
    harness = Harness(server)
    yield harness
    harness.lh.control.clear_faults()
    harness.lh.close()


@pytest.fixture
def make_harness(server: Server) -> Iterator[Callable[..., Harness]]:
    made: list[Harness] = []

    def make(**options: Any) -> Harness:
        harness = Harness(server, **options)
        made.append(harness)
        return harness

    yield make
    for harness in made:
        harness.lh.close()


def wait_event(event: threading.Event, timeout: float = 15.0) -> bool:
    return event.wait(timeout)


__all__ = ["Harness", "Server", "API_KEY", "ROOT", "wait_event", "Optional"]
