#!/usr/bin/env bash
# Debian's Python packages for the Python SDK's checks (tests/python/python-sdk.test.ts runs
# pytest and mypy --strict on packages/python with /usr/bin/python3). Silent when they are there.
set -euo pipefail
py=/usr/bin/python3
if [ -x "$py" ] && "$py" -c 'import httpx, pytest, mypy, hatchling, build, venv' >/dev/null 2>&1; then
  exit 0
fi
exec bash "$(dirname "$0")/apt-install.sh" "the Python SDK tests fail" \
  python3 python3-httpx python3-pytest python3-mypy python3-hatchling python3-build python3-venv
