#!/usr/bin/env bash
# Installs the Debian packages Mouchard's build, tests and benchmarks need, when missing.
# Idempotent and quiet when everything is there; uses sudo when not root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(grep -v '^\s*#' "$here/debian-packages.txt" | awk 'NF{print $1}')
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "make deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages the tests use as real peers (scripts/python-requirements.txt), in .venv/ at the
# repository root, made with Debian's python3; redone when the requirements change. Tests that
# need them say so and skip when they are missing, so a failure here is a warning.
root=$(cd "$here/.." && pwd)
venv="$root/.venv"
requirements="$here/python-requirements.txt"
if ! cmp -s "$requirements" "$venv/.requirements" 2>/dev/null; then
  echo "make deps: Python packages into .venv/ ($(grep -v '^\s*#' "$requirements" | awk 'NF{printf "%s ", $1}'))"
  if /usr/bin/python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"; then
    cp "$requirements" "$venv/.requirements"
  else
    echo "make deps: warning: the Python packages could not be installed; the tests that need them will skip" >&2
  fi
fi
