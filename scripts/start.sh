#!/usr/bin/env bash
# The README's main-job command: set up a fresh machine, then run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
pnpm run start "$@"
