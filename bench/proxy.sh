#!/usr/bin/env bash
# Proxy benchmark (release build). Peers run in the same script, interleaved:
#  1. plain HTTP: wrk, 64 keep-alive connections, 10 s, absolute-form requests through each proxy
#     (Mouchard with the live audit on, squid, tinyproxy, mitmdump) to a local nginx origin;
#  2. HTTPS interception, a new TLS connection (full TLS 1.3 handshake) per request, Mouchard vs
#     mitmdump, with two load clients (bench/proxy_load.c): `tls13`, the lean client of
#     bench/tls13_client.c (the headline: about 0.9M instructions per handshake, so the client
#     leaves the CPU to the proxy), and `tls`, OpenSSL's own client (about 4.8M, as much CPU as
#     the proxy itself on these two shared cores), for comparison with earlier runs;
#  3. 2,000 idle keep-alive client connections held 30 s through Mouchard while wrk loads it.
# Prints requests/s, p50/p99 latency and peak RSS (VmHWM, summed over the proxy's processes).
# Needs: wrk, nginx, squid, tinyproxy (Debian), mitmdump (pip install mitmproxy), cc, openssl.
# Usage: bench/proxy.sh [SECONDS]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
bench/peers.sh
SECS=${1:-10}
ROUNDS=${ROUNDS:-1}
work=$(mktemp -d /tmp/mouchard-bench-proxy.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n 8192

swift build -c release --product mouchard >/dev/null
mouchard=.build/release/mouchard
cc -O2 -o "$work/proxy_load" bench/proxy_load.c bench/tls13_client.c -lssl -lcrypto -lpthread

O_HTTP=18901; O_HTTPS=18902; P_MOUCHARD=18911; P_SQUID=18912; P_TINY=18913; P_MITM=18914

# Test CA + origin certificate, and the origin: nginx, one worker, a 97-byte body.
. bench/origin.sh
origin_certificates "$work" localhost 127.0.0.1
pids+=("$(origin_nginx "$work" 127.0.0.1:$O_HTTP 127.0.0.1:$O_HTTPS)")

cat > "$work/squid.conf" <<CONF
http_port 127.0.0.1:$P_SQUID
http_access allow all
cache deny all
cache_mem 8 MB
access_log none
cache_log $work/squid-cache.log
pid_filename $work/squid.pid
coredump_dir $work
shutdown_lifetime 1 seconds
CONF
cat > "$work/tinyproxy.conf" <<CONF
Port $P_TINY
Listen 127.0.0.1
Timeout 600
MaxClients 200
LogLevel Critical
PidFile "$work/tinyproxy.pid"
CONF
# The live audit inspects every request against a device profile (and Rules/ when present).
cat > "$work/device.json" <<CONF
{ "name": "bench device", "platform": "ios",
  "identifiers": { "idfa": "6D92078A-8246-4BA4-AE5B-76104861E7DC", "idfv": "A1B2C3D4-0000-4111-8222-333344445555",
                   "udid": "2b6f0cc904d137be2e1730235f5664094b831186" },
  "owner": { "email": ["camille.martin@example.org"], "phone": ["+33 6 12 34 56 78"] } }
CONF
cat > "$work/wrk.lua" <<CONF
wrk.method = "GET"
wrk.path = "http://127.0.0.1:$O_HTTP/"
wrk.headers["Host"] = "127.0.0.1:$O_HTTP"
CONF

rss_mb() { # sum of VmHWM over the given pids and their children
  local total=0 p
  for p in $(for q in "$@"; do echo "$q"; pgrep -P "$q" 2>/dev/null || true; done | sort -u); do
    local kb; kb=$(awk '/VmHWM/{print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo $((total / 1024))
}
rss_mb() { awk '/VmRSS/{print int($2/1024)}' "/proc/$1/status"; }


start_proxy() { # name → sets PID
  case "$1" in
    mouchard)
      MOUCHARD_HOME="$work/home" "$mouchard" proxy --listen 127.0.0.1:$P_MOUCHARD --quiet --session "$work/session" --device "$work/device.json" \
        --upstream-ca "$work/ca.pem" >"$work/mouchard.out" 2>&1 &
      PID=$!; PORT=$P_MOUCHARD ;;
    squid) squid -N -f "$work/squid.conf" >"$work/squid.out" 2>&1 & PID=$!; PORT=$P_SQUID ;;
    tinyproxy) tinyproxy -d -c "$work/tinyproxy.conf" >"$work/tiny.out" 2>&1 & PID=$!; PORT=$P_TINY ;;
    mitmproxy)
      mitmdump -q --listen-host 127.0.0.1 --listen-port $P_MITM --set confdir="$work/mitm" \
        --set ssl_verify_upstream_trusted_ca="$work/ca.pem" >"$work/mitm.out" 2>&1 &
      PID=$!; PORT=$P_MITM ;;
  esac
  pids+=("$PID")
  wait_port "$PORT"
}

run_wrk() { # port → "rps p50 p99 errors"
  wrk -t2 -c64 -d"${SECS}s" --latency -s "$work/wrk.lua" "http://127.0.0.1:$1" > "$work/wrk.txt" 2>&1 || true
  local rps p50 p99 err
  rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")
  p50=$(awk '$1=="50%"{print $2}' "$work/wrk.txt")
  p99=$(awk '$1=="99%"{print $2}' "$work/wrk.txt")
  err=$(awk '/Non-2xx|Socket errors/{printf "%s ", $0}' "$work/wrk.txt")
  echo "$rps $p50 $p99 ${err:-none}"
}

echo "== plain HTTP: wrk -c64 ${SECS}s, absolute-form, origin nginx (${ROUNDS} round(s), interleaved)"
printf "%-10s %12s %10s %10s %10s  %s\n" proxy "requests/s" p50 p99 "peakRSS" errors
for round in $(seq "$ROUNDS"); do
  for name in mouchard squid tinyproxy mitmproxy; do
    start_proxy "$name"
    # warm-up (connections, DNS, caches)
    wrk -t1 -c8 -d1s -s "$work/wrk.lua" "http://127.0.0.1:$PORT" >/dev/null 2>&1 || true
    read -r rps p50 p99 err <<<"$(run_wrk "$PORT")"
    printf "%-10s %12s %10s %10s %8sMB  %s\n" "$name" "$rps" "$p50" "$p99" "$(peak_rss_mb "$PID")" "$err"
    echo "plain $name $rps" >> "$work/results"
    stop_proxy "$PID"
  done
done

echo
echo "== HTTPS interception: a new TLS connection per request, 32 client threads, ${SECS}s"
printf "%-10s %-6s %s\n" proxy client result
for round in $(seq "$ROUNDS"); do
  for client in tls13 tls; do
    for name in mouchard mitmproxy; do
      start_proxy "$name"
      "$work/proxy_load" "$client" "$PORT" localhost $O_HTTPS 32 1 >/dev/null 2>&1 || true   # warm-up
      res=$("$work/proxy_load" "$client" "$PORT" localhost $O_HTTPS 32 "$SECS")
      printf "%-10s %-6s %s peakRSS %sMB\n" "$name" "$client" "$res" "$(peak_rss_mb "$PID")"
      echo "$client $name $(echo "$res" | awk '{print $6}')" >> "$work/results"
      stop_proxy "$PID"
    done
  done
done
echo
awk '{sum[$1" "$2]+=$3; n[$1" "$2]++} END {
  m=sum["plain mouchard"]/n["plain mouchard"]; s=sum["plain squid"]/n["plain squid"]; t=sum["plain mitmproxy"]/n["plain mitmproxy"];
  h=sum["tls13 mouchard"]/n["tls13 mouchard"]; u=sum["tls13 mitmproxy"]/n["tls13 mitmproxy"];
  o=sum["tls mouchard"]/n["tls mouchard"]; v=sum["tls mitmproxy"]/n["tls mitmproxy"];
  printf "ratios (mean over rounds): plain mouchard/squid %.2f, mouchard/mitmproxy %.1fx; HTTPS mouchard/mitmproxy %.1fx (lean client), %.1fx (OpenSSL client)\n", m/s, m/t, h/u, o/v }' "$work/results"

echo
echo "== 2,000 idle keep-alive connections held 30 s through mouchard while wrk loads it"
start_proxy mouchard
before=$(rss_mb "$PID")
"$work/proxy_load" idle "$PORT" $O_HTTP 2000 30 > "$work/idle.txt" 2>&1 &
idle=$!
sleep 3
wrk -t2 -c64 -d25s --latency -s "$work/wrk.lua" "http://127.0.0.1:$PORT" > "$work/wrk-idle.txt" 2>&1 || true
wait "$idle" || true
after=$(rss_mb "$PID")
cat "$work/idle.txt"
echo "wrk during idle hold: $(awk '/Requests\/sec/{print $2}' "$work/wrk-idle.txt") requests/s; $(grep -E 'Socket errors|Non-2xx' "$work/wrk-idle.txt" || echo 'no socket errors')"
echo "mouchard RSS before ${before} MB, after ${after} MB, growth $((after - before)) MB, peak $(peak_rss_mb "$PID") MB"
stop_proxy "$PID"
grep -E "flows|finding" "$work/mouchard.out" | tail -1 || true
