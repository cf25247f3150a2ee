#!/usr/bin/env bash
# Debian's PostgreSQL server binaries for the store tests (tests/support/postgres-cluster.ts
# starts a throwaway cluster from them). Silent when /usr/lib/postgresql/*/bin is already there.
# Installing the package may start Debian's own cluster; the tests never use it.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  exit 0
fi
exec bash "$(dirname "$0")/apt-install.sh" "the PostgreSQL store tests fail" postgresql
