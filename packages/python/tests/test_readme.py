"""The READMEs' Python snippets: every block compiles, the repository README's worker is
examples/worker.py (one source, checked by mypy --strict with the other examples), and it runs
against the reference server (takes the report lease, consumes a message, exits on SIGTERM)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from conftest import API_KEY, ROOT, Server
from leasehold import Leasehold, NotFoundError

SRC = Path(__file__).resolve().parents[1] / "src"
READMES = [ROOT / "README.md", ROOT / "packages/python/README.md"]
WORKER_EXAMPLE = Path(__file__).resolve().parents[1] / "examples/worker.py"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.M | re.S)


def test_every_python_block_compiles() -> None:
    blocks = [(path, block) for path in READMES for block in python_blocks(path)]
    assert len(blocks) >= 4
    for path, block in blocks:
        compile(block, str(path), "exec")


def test_the_readme_worker_is_the_example_file() -> None:
    worker = next(b for b in python_blocks(ROOT / "README.md") if "consume(" in b)
    assert worker == WORKER_EXAMPLE.read_text(), "README.md's Python worker and packages/python/examples/worker.py differ"
    assert len(worker.splitlines()) <= 20


def test_the_readme_worker_runs(server: Server, tmp_path: Path) -> None:
    worker = WORKER_EXAMPLE.read_text()
    (tmp_path / "worker.py").write_text(worker.replace("http://127.0.0.1:4010", server.url))
    lh = Leasehold(base_url=server.url, api_key=API_KEY)
    try:
        billing = lh.spool("billing")
        try:
            billing.create()
        except Exception:
            pass  # another run of this test made it
        billing.queue("invoices").put(lease_timeout=60)
        billing.queue("dead").put(lease_timeout=60)
        billing.queue("invoices").send({"invoiceId": "inv_1"})
        child = subprocess.Popen(
            [sys.executable, "worker.py"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"},
        )
        assert child.stdout is not None
        lines: list[str] = []
        charged = threading.Event()

        def read() -> None:
            assert child.stdout is not None
            for line in child.stdout:
                lines.append(line)
                if line.startswith("charging"):
                    charged.set()
            charged.set()

        threading.Thread(target=read, daemon=True).start()
        assert charged.wait(60), "".join(lines)
        child.send_signal(signal.SIGTERM)
        assert child.wait(30) == 0, "".join(lines)
        output = "".join(lines)
        assert "building the report under fence" in output and "charging {'invoiceId': 'inv_1'}" in output
        try:
            lh.space("6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a").get_claim("reports/2026-11")
            raise AssertionError("the report lease was not released")
        except NotFoundError:
            pass
    finally:
        lh.close()
