#!/usr/bin/env bash
# Everything from Debian's packages the test suites run with, each installed when missing
# (scripts/test.sh runs this in the background while it checks and builds): Chromium,
# PostgreSQL, nginx, the seed pages' tools, the Python SDK's tools; Patroni, etcd and HAProxy. One apt-get update for all.
set -euo pipefail
cd "$(dirname "$0")"
for tool in python-tools postgres chromium nginx seed-tools ha; do
  bash "install-$tool.sh"
done
