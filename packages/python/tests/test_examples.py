"""The other examples in packages/python/examples run against the reference server and print what
they promise (examples/worker.py is the README's worker, run by test_readme.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import API_KEY, Server

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SRC = Path(__file__).resolve().parents[1] / "src"


def run_example(name: str, server: Server) -> str:
    """Runs one example as its reader would (``python3 examples/<name>``) and returns its output."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(SRC), "LEASEHOLD_URL": server.url, "LEASEHOLD_API_KEY": API_KEY},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_task_worker_works_each_task_to_done(server: Server) -> None:
    output = run_example("task_worker.py", server)
    assert output.count("rebuilt under fence") == 3
    assert "done: True" in output


def test_the_async_worker_holds_eight_leases(server: Server) -> None:
    output = run_example("async_worker.py", server)
    assert "exported 8 partitions under fences" in output


def test_every_example_is_covered() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == ["async_worker.py", "task_worker.py", "worker.py"]
