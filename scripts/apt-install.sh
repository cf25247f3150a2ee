#!/usr/bin/env bash
# The apt-get step every scripts/install-*.sh shares: `apt-install.sh "<what fails without it>"
# <package>...` installs Debian's packages (sudo when not root), its output shown only when it
# fails. The package lists are refreshed once for all of them: after a refresh it leaves a stamp
# (LEASEHOLD_APT_STAMP, default /tmp/leasehold-apt-updated), and a stamp under an hour old skips it.
# Without apt-get it warns what will fail and exits 0.
set -euo pipefail
what="$1"
shift
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: warning: $* missing and there is no apt-get; $what until it is there" >&2
  exit 0
fi
as_root=""
if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
stamp="${LEASEHOLD_APT_STAMP:-/tmp/leasehold-apt-updated}"
echo "bootstrap: installing $* (apt-get)"
apt_log="$(mktemp)"
refresh() {
  if [ -n "$(find "$stamp" -mmin -60 2>/dev/null)" ]; then return 0; fi
  $as_root apt-get update -qq && touch "$stamp"
}
if ! { refresh && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } >"$apt_log" 2>&1; then
  cat "$apt_log" >&2
  rm -f "$apt_log"
  echo "bootstrap: installing $* failed" >&2
  exit 1
fi
rm -f "$apt_log"
