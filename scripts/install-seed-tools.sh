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
exec bash "$(dirname "$0")/apt-install.sh" "tests/seeds fails" "${missing[@]}"
