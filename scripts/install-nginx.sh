#!/usr/bin/env bash
# Debian's nginx for the replica chaos test (tests/replicas starts it as a non-daemon with a
# temporary prefix on 127.0.0.1, deploy/nginx/leasehold.conf as its config). Silent when nginx
# is already there. Installing the package may start Debian's own nginx; the tests never use it.
set -euo pipefail
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: warning: nginx is missing and there is no apt-get; the replica chaos test fails until it is there" >&2
  exit 0
fi
as_root=""
if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
echo "bootstrap: installing nginx (apt-get)"
apt_log="$(mktemp)"
if ! { $as_root apt-get update -qq \
    && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light; } >"$apt_log" 2>&1; then
  cat "$apt_log" >&2
  rm -f "$apt_log"
  echo "bootstrap: installing nginx failed" >&2
  exit 1
fi
rm -f "$apt_log"
# Debian's package starts a system nginx on port 80; the tests run their own.
if command -v systemctl >/dev/null 2>&1; then $as_root systemctl disable --now nginx >/dev/null 2>&1 || true; fi
