#!/usr/bin/env bash
# Debian's Python packages for the Python SDK's checks (tests/python/python-sdk.test.ts runs
# pytest and mypy --strict on packages/python with /usr/bin/python3). Silent when they are there.
set -euo pipefail
py=/usr/bin/python3
if [ -x "$py" ] && "$py" -c 'import httpx, pytest, mypy, hatchling, build, venv' >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: warning: Debian's python3-httpx/pytest/mypy are missing and there is no apt-get; the Python SDK tests fail until they are there" >&2
  exit 0
fi
as_root=""
if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
echo "bootstrap: installing the Python SDK's tools (apt-get)"
apt_log="$(mktemp)"
if ! { $as_root apt-get update -qq \
    && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      python3 python3-httpx python3-pytest python3-mypy python3-hatchling python3-build python3-venv; } >"$apt_log" 2>&1; then
  cat "$apt_log" >&2
  rm -f "$apt_log"
  echo "bootstrap: installing the Python tools failed" >&2
  exit 1
fi
rm -f "$apt_log"
