#!/usr/bin/env bash
# The README's test command: set up a fresh machine, then check generated files, lint, build
# and run every test suite: `pnpm check`, i.e. `pnpm check:static` (its lint is `pnpm lint`
# without lint:docs, because the server's build runs the same strict TypeDoc build of the SDK
# reference), then `pnpm test`. Debian's packages the suites need (scripts/install-test-tools.sh)
# install in the background meanwhile: no check before the tests uses them, except that the
# docs build runs /usr/bin/python3, so a machine without it gets the Python tools first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
if [ ! -x /usr/bin/python3 ]; then bash scripts/install-python-tools.sh; fi
mkdir -p tmp
install_log=tmp/install-test-tools.log
bash scripts/install-test-tools.sh >"$install_log" 2>&1 &
installing=$!
pnpm run check:static
if ! wait "$installing"; then
  cat "$install_log" >&2
  echo "test: installing the test suites' tools failed" >&2
  exit 1
fi
cat "$install_log"
pnpm test
if [ -f tmp/vitest-results.json ]; then
  node -e 'const r = require("./tmp/vitest-results.json"); console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`)'
fi
