"""kill -9 of a Python worker and its restart: the durable idempotency store makes the restarted
worker replay its receipts (the same lease, the same task) instead of doing the work twice; a
SIGTERM'd worker exits cleanly and releases its lease."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from conftest import Harness
from leasehold import NotFoundError

WORKER = Path(__file__).parent / "workers" / "replay_worker.py"
SRC = Path(__file__).resolve().parents[1] / "src"


def start(h: Harness, store: Path, space_id: str, scope_id: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    child = subprocess.Popen(
        [sys.executable, str(WORKER), h.server.url, str(store), space_id, scope_id],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line:
        child.kill()
        raise AssertionError("worker failed: " + (child.stderr.read() if child.stderr else ""))
    return child, json.loads(line)


def test_kill_9_then_restart_replays_the_same_lease_and_task(h: Harness, tmp_path: Path) -> None:
    space_id, scope_id = str(uuid.uuid4()), str(uuid.uuid4())
    first, got = start(h, tmp_path, space_id, scope_id)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    assert first.returncode == -signal.SIGKILL
    second, again = start(h, tmp_path, space_id, scope_id)
    try:
        assert again == got  # replayed: same claim, same fence, same task — nothing done twice
        assert h.lh.space(space_id).get_claim("job")["claimId"] == got["claimId"]
        titles = [t["id"] for t in h.lh.tasks.list() if t["id"] == got["taskId"]]
        assert titles == [got["taskId"]]
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(15)
    assert second.returncode == 0


def test_sigterm_exits_cleanly_and_releases(h: Harness, tmp_path: Path) -> None:
    space_id, scope_id = str(uuid.uuid4()), str(uuid.uuid4())
    child, got = start(h, tmp_path, space_id, scope_id)
    child.send_signal(signal.SIGTERM)
    child.wait(15)
    assert child.returncode == 0
    assert got["fence"] >= 1
    with pytest.raises(NotFoundError):  # released on the way out, not left to expire
        h.lh.space(space_id).get_claim("job")
