"""The Python twin of the npm consumer test: the wheel and the sdist build (hatchling, no
isolation: Debian's packages), the wheel installs into a fresh virtualenv OUTSIDE the repository
(with the system site packages, for httpx), and a worker run from it takes, renews and releases
a lease on the reference server."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import textwrap
import uuid
import zipfile
from pathlib import Path

from conftest import API_KEY, Server

PACKAGE = Path(__file__).resolve().parents[1]

WORKER = textwrap.dedent(
    """
    import sys, leasehold
    from leasehold import Leasehold, LeaseLostError
    base_url, space_id, scope_id = sys.argv[1:4]
    with Leasehold(base_url=base_url, api_key=%r) as lh:
        run = lh.space(space_id).run(scope_id, holder="wheel-worker")
        fence = run.claim("from-the-wheel").run(lambda lease: lease.fence)
        task = lh.tasks.create("from the wheel")
        done = lh.tasks.work(task["id"], lambda ctx: {"fence": ctx.lease.fence})
        print(leasehold.__file__)
        print(fence, done)
    """
    % API_KEY
)


def test_wheel_and_sdist_build_install_and_run_a_worker(server: Server, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "--outdir", str(out), str(PACKAGE)],
        check=True, capture_output=True, text=True,
    )
    wheel = next(out.glob("leasehold-*.whl"))
    sdist = next(out.glob("leasehold-*.tar.gz"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "leasehold/py.typed" in names and "leasehold/_generated/types.py" in names
    assert any(n.endswith("/src/leasehold/_client.py") for n in tarfile.open(sdist).getnames())
    assert any(n.endswith("/examples/worker.py") for n in tarfile.open(sdist).getnames())

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--no-index", "--no-deps", "-q", str(wheel)], check=True, capture_output=True)
    (tmp_path / "worker.py").write_text(WORKER)
    done = subprocess.run(
        [str(py), "worker.py", server.url, str(uuid.uuid4()), str(uuid.uuid4())],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    where, result = done.stdout.strip().splitlines()
    assert where.startswith(str(venv))  # imported from the installed wheel, not the checkout
    fence, _, task = result.partition(" ")
    assert int(fence) >= 1 and "'fence'" in task
