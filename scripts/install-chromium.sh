#!/usr/bin/env bash
# Debian's Chromium for the docs test (tests/docs drives it with playwright-core, which never
# downloads a browser). Silent when /usr/bin/chromium is already there.
set -euo pipefail
if [ ! -x /usr/bin/chromium ] && ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: warning: /usr/bin/chromium is missing and there is no apt-get; tests/docs fails until it is there" >&2
elif [ ! -x /usr/bin/chromium ]; then
  as_root=""
  if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
  echo "bootstrap: installing chromium (apt-get)"
  apt_log="$(mktemp)"
  if ! { $as_root apt-get update -qq \
      && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    echo "bootstrap: installing chromium failed" >&2
    exit 1
  fi
  rm -f "$apt_log"
fi
