#!/usr/bin/env bash
# apt-get install PACKAGE... as root, waiting (10 minutes at most, with one line saying so) while another
# package manager holds apt's lock, as an unattended upgrade on a fresh machine does; any other failure
# stops at once with apt's own message. APT_WAIT_SECONDS changes the bound, APT_GET the command (tests).
set -euo pipefail
apt_get=${APT_GET:-apt-get}
limit=${APT_WAIT_SECONDS:-600}

run() {
  local started=$SECONDS said=0 out
  while true; do
    if out=$(DEBIAN_FRONTEND=noninteractive "$apt_get" -o DPkg::Lock::Timeout=10 "$@" 2>&1); then
      return 0
    fi
    if ! grep -qiE "could not get lock|unable to acquire the dpkg|unable to lock|is held by process" <<<"$out"; then
      printf '%s\n' "$out" >&2
      return 1
    fi
    # Said the first time the lock is found held, whatever the time taken so far, so that giving up
    # always follows it.
    if (( ! said )); then
      echo "setup: another package manager holds apt's lock (an unattended upgrade?); waiting for it, ${limit} s at most" >&2
      said=1
    fi
    if (( SECONDS - started >= limit )); then
      printf '%s\n' "$out" >&2
      echo "setup: apt's lock was still held after ${limit} s; run setup again once the other package manager is done" >&2
      return 1
    fi
    sleep "${APT_RETRY_SECONDS:-5}"
  done
}

run update -qq
run install -y -qq "$@" >/dev/null
