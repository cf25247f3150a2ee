#!/usr/bin/env bash
# Debian's PostgreSQL server binaries for the store tests (tests/support/postgres-cluster.ts
# starts a throwaway cluster from them). Silent when /usr/lib/postgresql/*/bin is already there.
# Installing the package may start Debian's own cluster; the tests never use it.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: warning: PostgreSQL is missing and there is no apt-get; the PostgreSQL store tests fail until it is there" >&2
  exit 0
fi
as_root=""
if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
echo "bootstrap: installing postgresql (apt-get)"
apt_log="$(mktemp)"
if ! { $as_root apt-get update -qq \
    && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql; } >"$apt_log" 2>&1; then
  cat "$apt_log" >&2
  rm -f "$apt_log"
  echo "bootstrap: installing postgresql failed" >&2
  exit 1
fi
rm -f "$apt_log"
