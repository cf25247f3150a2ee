#!/usr/bin/env bash
# Installs what a fresh machine lacks: pnpm 12.4.2 (npm, not corepack, whose download fails
# signature checks here) and the workspace's locked dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "12.4.2" ]; then
  echo "bootstrap: installing pnpm 12.4.2"
  npm install --global --no-fund --no-audit pnpm@12.4.2 >/dev/null
fi
pnpm install --frozen-lockfile --prefer-offline
