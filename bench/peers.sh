#!/usr/bin/env bash
# Installs the peers the benchmarks compare Mouchard against, when missing (idempotent):
# Debian's wrk, nginx-light, squid, tinyproxy, tshark, tcpdump, time, h2load (nghttp2-client), socat;
# mitmproxy from PyPI.
# Benchmarks only: `make test` does not need any of these beyond what `make deps` installs.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in wrk nginx-light squid tinyproxy tshark tcpdump time gcc libssl-dev nghttp2-client socat; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench/peers.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v mitmdump >/dev/null || { echo "bench/peers.sh: pip install mitmproxy"; python3 -m pip install -q mitmproxy; }
