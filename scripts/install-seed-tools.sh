#!/usr/bin/env bash
# What tests/seeds runs each seed page's snippets with, from Debian's packages when missing:
# curl, uuidgen (the space-claims page's `$(uuidgen)`, package uuid-runtime) and Python's
# `requests` for Debian's own /usr/bin/python3 (package python3-requests; the heartbeat page's
# Python snippet runs for real). Silent when everything is there.
set -euo pipefail
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v uuidgen >/dev/null 2>&1 || missing+=(uuid-runtime)
if [ ! -x /usr/bin/python3 ]; then
  missing+=(python3 python3-requests)
elif ! /usr/bin/python3 -c 'import requests' >/dev/null 2>&1; then
  missing+=(python3-requests)
fi
if [ "${#missing[@]}" -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: warning: ${missing[*]} missing and there is no apt-get; tests/seeds fails until they are there" >&2
  exit 0
fi
as_root=""
if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
echo "bootstrap: installing ${missing[*]} (apt-get)"
apt_log="$(mktemp)"
if ! { $as_root apt-get update -qq \
    && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$apt_log" 2>&1; then
  cat "$apt_log" >&2
  rm -f "$apt_log"
  echo "bootstrap: installing ${missing[*]} failed" >&2
  exit 1
fi
rm -f "$apt_log"
