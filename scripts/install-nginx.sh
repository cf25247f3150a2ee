#!/usr/bin/env bash
# Debian's nginx for the replica chaos test (tests/replicas starts it as a non-daemon with a
# temporary prefix on 127.0.0.1, deploy/nginx/leasehold.conf as its config). Silent when nginx
# is already there. Installing the package may start Debian's own nginx; the tests never use it.
set -euo pipefail
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
bash "$(dirname "$0")/apt-install.sh" "the replica chaos test fails" nginx-light
# Debian's package starts a system nginx on port 80; the tests run their own.
if command -v systemctl >/dev/null 2>&1; then
  as_root=""
  if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
  $as_root systemctl disable --now nginx >/dev/null 2>&1 || true
fi
