#!/usr/bin/env bash
# Installs Leasehold from this checkout into a project directory, as npm would from the registry
# (nothing is published yet): builds the workspace, packs @leasehold/client, @leasehold/server and
# @leasehold/msw with `pnpm pack` (scripts/pack-packages.mjs), keeps the tarballs in
# <dir>/leasehold-packages/ (the project's package.json points at them) and `npm install`s them.
#   bash scripts/install-local.sh <dir>     <dir> is created when missing (with a package.json)
# Then, in <dir>: `npx leasehold-server`, and `import { Leasehold } from '@leasehold/client'`.
set -euo pipefail
if [ "$#" -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  echo "Usage: bash scripts/install-local.sh <project dir>" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$1"
dir="$(cd "$1" && pwd)"

cd "$root"
[ -d node_modules ] || bash scripts/bootstrap.sh
echo "install-local: building the workspace (pnpm build)"
pnpm build >/dev/null
echo "install-local: packing into $dir/leasehold-packages"
rm -rf "$dir/leasehold-packages"
node scripts/pack-packages.mjs "$dir/leasehold-packages" >/dev/null

cd "$dir"
[ -f package.json ] || printf '{\n  "name": "%s",\n  "private": true,\n  "type": "module"\n}\n' "$(basename "$dir" | tr -c 'a-z0-9._\n-' '-')" > package.json
echo "install-local: npm install into $dir"
npm install --no-audit --no-fund ./leasehold-packages/*.tgz   # ./: a path, not a GitHub owner/repo
echo "install-local: done. In $dir: npx leasehold-server   (the reference server on http://127.0.0.1:4010)"
