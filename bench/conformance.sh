#!/usr/bin/env bash
# Forward-proxy conformance (RFC 9110/9112): the black-box cases of Tests/ProxyConformance (a client
# speaking raw bytes, a scripted origin per case, each case citing its section) run against
# Mouchard, squid and mitmproxy in the same run; prints a table (pass/FAIL per case and proxy),
# the totals, and each failure's reason below it. `swift test` runs the same cases against
# Mouchard (ProxyConformanceTests), where every one must pass.
# Every proxy gets the same upstream timeout (UPSTREAM_TIMEOUT, default 3 s): squid through
# read_timeout, Mouchard through --upstream-timeout; mitmproxy has no such setting.
# Needs: squid (Debian), mitmdump (pip install mitmproxy): bench/peers.sh installs them.
# Usage: bench/conformance.sh [CASE,...]    (default: every case); CONFIG=release for a release build
set -euo pipefail
cd "$(dirname "$0")/.."
bench/peers.sh
CONFIG=${CONFIG:-debug}
TIMEOUT=${UPSTREAM_TIMEOUT:-3}
ONLY=${1:-}
work=$(mktemp -d /tmp/mouchard-bench-conformance.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$work"; }
trap cleanup EXIT

swift build -c "$CONFIG" --product mouchard >/dev/null
swift build -c "$CONFIG" --product mouchard-bench >/dev/null
bin=.build/$CONFIG

P_MOUCHARD=18931; P_SQUID=18932; P_MITM=18933
mkdir -p "$work/squid" && chmod 777 "$work/squid"
cat > "$work/squid.conf" <<CONF
http_port 127.0.0.1:$P_SQUID
http_access allow all
cache deny all
cache_mem 8 MB
access_log none
cache_log $work/squid/cache.log
pid_filename $work/squid/squid.pid
coredump_dir $work/squid
shutdown_lifetime 1 seconds
read_timeout $TIMEOUT seconds
CONF

wait_port() { for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open" >&2; return 1; }
stop_proxy() { kill -INT "$1" 2>/dev/null || true; for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; kill -9 "$1" 2>/dev/null || true; }

for name in mouchard squid mitmproxy; do
  case "$name" in
    mouchard)
      MOUCHARD_HOME="$work/home" "$bin/mouchard" proxy --listen 127.0.0.1:$P_MOUCHARD --quiet --no-store \
        --upstream-timeout "$TIMEOUT" >"$work/mouchard.out" 2>&1 &
      PID=$!; PORT=$P_MOUCHARD ;;
    squid) squid -N -f "$work/squid.conf" >"$work/squid.out" 2>&1 & PID=$!; PORT=$P_SQUID ;;
    mitmproxy)
      mitmdump -q --listen-host 127.0.0.1 --listen-port $P_MITM --set confdir="$work/mitm" >"$work/mitm.out" 2>&1 &
      PID=$!; PORT=$P_MITM ;;
  esac
  pids+=("$PID")
  wait_port "$PORT"
  version=$("$bin/mouchard" --version 2>/dev/null | head -1)
  [ "$name" = squid ] && version=$(squid -v | head -1)
  [ "$name" = mitmproxy ] && version="mitmproxy $(mitmdump --version 2>/dev/null | awk '/^Mitmproxy/{print $2}')"
  echo "$name: $version" >> "$work/versions"
  "$bin/mouchard-bench" conformance --proxy 127.0.0.1:$PORT --upstream-timeout "$TIMEOUT" --name "$name" \
    ${ONLY:+--only "$ONLY"} >> "$work/results" || true
  stop_proxy "$PID"
done

cat "$work/versions"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' '
  $2 == "total" { total[$1] = $3; next }
  { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2; ref[$2] = $4 }
    verdict[$2, $1] = $3; if ($3 == "FAIL") why[++w] = sprintf("  %s %s: %s", $1, $2, $6) }
  END {
    printf "%-34s %-31s %-9s %-9s %-9s\n", "case", "reference", "mouchard", "squid", "mitmproxy"
    for (i = 1; i <= n; i++) { c = order[i]
      printf "%-34s %-31s %-9s %-9s %-9s\n", c, ref[c], verdict[c, "mouchard"], verdict[c, "squid"], verdict[c, "mitmproxy"] }
    printf "%-34s %-31s %-9s %-9s %-9s\n", "passed", "", total["mouchard"], total["squid"], total["mitmproxy"]
    if (w > 0) { print "failures:"; for (i = 1; i <= w; i++) print why[i] }
  }' "$work/results"
