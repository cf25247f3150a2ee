#!/usr/bin/env bash
# Debian's Chromium for the docs test (tests/docs drives it with playwright-core, which never
# downloads a browser). Silent when /usr/bin/chromium is already there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
exec bash "$(dirname "$0")/apt-install.sh" "tests/docs fails" chromium
