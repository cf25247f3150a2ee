#!/usr/bin/env bash
# Debian's Patroni, etcd and HAProxy for the failover test (tests/ha starts them from deploy/ha
# on loopback ports of a temp dir, on top of scripts/install-postgres.sh's PostgreSQL). Silent
# when all three are there. Installing the packages may start Debian's own etcd and HAProxy on
# their default ports; the tests never use them, and they are stopped where systemd runs.
set -euo pipefail
if [ -x /usr/bin/patroni ] && [ -x /usr/bin/etcd ] && [ -x /usr/sbin/haproxy ]; then
  exit 0
fi
bash "$(dirname "$0")/apt-install.sh" "the failover test (tests/ha) fails" patroni python3-psycopg2 etcd-server haproxy
if command -v systemctl >/dev/null 2>&1; then
  as_root=""
  if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
  $as_root systemctl disable --now etcd haproxy patroni >/dev/null 2>&1 || true
fi
