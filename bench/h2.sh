#!/usr/bin/env bash
# HTTP/2 interception benchmark (release build): h2load, 64 streams in flight over 8 connections
# (-c 8 -m 8) for SECONDS, to the local nginx origin (bench/origin.sh) speaking h2 over TLS, through Mouchard (live
# audit on, h2 on both sides) and through mitmdump (which intercepts h2 by default), in the same
# run; and straight to the origin for reference. h2load has no proxy support: socat opens each
# connection through the proxy with CONNECT (one socat process per connection, the same for both
# proxies). Prints requests/s, p50/p99 latency (from h2load's per-request log), peak RSS of the
# proxy, and Mouchard's ratio to mitmdump.
# Needs: h2load (nghttp2-client), nginx, socat (Debian), mitmdump (pip install mitmproxy), openssl.
# Usage: bench/h2.sh [SECONDS]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
bench/peers.sh
SECS=${1:-10}
for tool in h2load nginx socat mitmdump openssl; do
    command -v "$tool" >/dev/null || { echo "bench/h2.sh: $tool is missing" >&2; exit 2; }
done
work=$(mktemp -d /tmp/mouchard-bench-h2.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n 8192

swift build -c release --product mouchard >/dev/null
mouchard=.build/release/mouchard

O_HTTP=18930; O_H2=18931; P_MOUCHARD=18932; P_MITM=18933; RELAY=18934

. bench/origin.sh
origin_certificates "$work" localhost 127.0.0.1
pids+=("$(origin_nginx "$work" 127.0.0.1:$O_HTTP 127.0.0.1:$O_H2 http2)")
cat > "$work/device.json" <<CONF
{ "name": "bench device", "platform": "ios",
  "identifiers": { "idfa": "6D92078A-8246-4BA4-AE5B-76104861E7DC" } }
CONF

start_proxy() { # name → sets PID, PORT
  case "$1" in
    mouchard)
      MOUCHARD_HOME="$work/home" "$mouchard" proxy --listen 127.0.0.1:$P_MOUCHARD --quiet --session "$work/session" \
        --device "$work/device.json" --upstream-ca "$work/ca.pem" >"$work/mouchard.out" 2>&1 &
      PID=$!; PORT=$P_MOUCHARD ;;
    mitmproxy)
      mitmdump -q --listen-host 127.0.0.1 --listen-port $P_MITM --set confdir="$work/mitm" \
        --set ssl_verify_upstream_trusted_ca="$work/ca.pem" >"$work/mitm.out" 2>&1 &
      PID=$!; PORT=$P_MITM ;;
  esac
  pids+=("$PID")
  wait_port "$PORT"
}

run_h2load() { # port → "rps p50 p99 failed"
  rm -f "$work/h2load.log"
  timeout $((SECS + 30)) h2load -D "$SECS" -c 8 -m 8 -t 1 --log-file="$work/h2load.log" "https://localhost:$1/" \
    > "$work/h2load.txt" 2>&1 || true
  local rps failed
  rps=$(awk '/^finished in/{for (i = 1; i <= NF; i++) if ($(i+1) == "req/s,") print int($i)}' "$work/h2load.txt")
  failed=$(awk '/^requests:/{for (i = 1; i <= NF; i++) if ($(i+1) == "failed,") print $i}' "$work/h2load.txt")
  # The log: start time, status, duration in microseconds per request.
  local pct
  pct=$(awk '{print $3}' "$work/h2load.log" 2>/dev/null | sort -n | awk '{a[NR] = $1} END {
    if (NR == 0) { print "- -"; exit }
    i50 = int(NR * 0.5) + 1; i99 = int(NR * 0.99) + 1
    if (i50 > NR) i50 = NR
    if (i99 > NR) i99 = NR
    printf "%.2fms %.2fms", a[i50] / 1000, a[i99] / 1000 }')
  echo "${rps:-0} $pct ${failed:-?}"
}

printf "%-10s %10s %10s %10s %8s %8s\n" "target" "req/s" "p50" "p99" "failed" "peakRSS"
read -r rps p50 p99 failed <<< "$(run_h2load $O_H2)"
printf "%-10s %10s %10s %10s %8s %8s\n" "direct" "$rps" "$p50" "$p99" "$failed" "-"
declare -A RESULT
for name in mouchard mitmproxy; do
  start_proxy "$name"
  socat "TCP-LISTEN:$RELAY,fork,reuseaddr,bind=127.0.0.1" "PROXY:127.0.0.1:localhost:$O_H2,proxyport=$PORT" 2>/dev/null &
  relay=$!
  pids+=("$relay")
  wait_port "$RELAY"
  read -r rps p50 p99 failed <<< "$(run_h2load $RELAY)"
  printf "%-10s %10s %10s %10s %8s %7sMB\n" "$name" "$rps" "$p50" "$p99" "$failed" "$(peak_rss_mb "$PID")"
  RESULT[$name]=$rps
  kill "$relay" 2>/dev/null || true
  pkill -P "$relay" 2>/dev/null || true
  stop_proxy "$PID"
  sleep 0.5
done
if [ "${RESULT[mitmproxy]:-0}" -gt 0 ]; then
  echo "mouchard / mitmproxy: $(awk -v a="${RESULT[mouchard]}" -v b="${RESULT[mitmproxy]}" 'BEGIN{printf "%.1f", a/b}')x requests/s"
fi
