#!/usr/bin/env bash
# The README's test command: set up a fresh machine, then check generated files, lint, build
# and run every test suite. (`pnpm check` is `pnpm lint` without lint:docs, because the server's
# build runs the same strict TypeDoc build of the SDK reference.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/install-chromium.sh
bash scripts/install-postgres.sh
bash scripts/install-nginx.sh
bash scripts/install-seed-tools.sh
bash scripts/install-python-tools.sh
pnpm run check
if [ -f tmp/vitest-results.json ]; then
  node -e 'const r = require("./tmp/vitest-results.json"); console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`)'
fi
