#!/usr/bin/env bash
# The README's main-job command: set up a fresh machine, then run the demo fleet against the
# reference server (arguments go to `pnpm demo`, e.g. --url/--api-key for another server).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
pnpm run demo "$@"
