#!/usr/bin/env bash
# Replay benchmarks (release build); the peer runs in the same script:
#  1. server replay as a forward proxy: wrk, 64 keep-alive connections, absolute-form GETs through
#     `mouchard mock` and through `mitmdump --server-replay`, both answering from the same recorded
#     HAR (responses reused: --replay-keep / server_replay_reuse), no origin running. Mouchard is
#     measured twice: recording and inspecting every request in a session (its default), and with
#     --no-store (inspection only, like mitmdump which keeps nothing on disk);
#  2. client replay: `mouchard replay` of a HAR of N recorded GETs to a local nginx (one worker,
#     128-byte body), --concurrency 64, with and without recording the new exchanges in a session;
#     wrk straight to nginx gives the ceiling of the machine.
# Prints requests/s and p50/p99 latency (wrk), requests/s (replay's own summary line).
# Needs: wrk, nginx (Debian), mitmdump (pip install mitmproxy): bench/peers.sh installs them.
# Usage: bench/replay.sh [SECONDS]   (default 10; N=50000 requests for the client replay)
set -euo pipefail
cd "$(dirname "$0")/.."
bench/peers.sh
SECS=${1:-10}
N=${N:-50000}
work=$(mktemp -d /tmp/mouchard-bench-replay.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n 8192

[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product mouchard >/dev/null   # SKIP_BUILD=1: use the existing release build
mouchard=.build/release/mouchard
O_HTTP=18921; P_MOCK=18931; P_MITM=18932

wait_port() { for _ in $(seq 200); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 did not open" >&2; exit 1; }
# The mock stores every flow in its session before it exits: give it time (and say how long it took).
stop_pid() {
  local t0=$SECONDS
  kill -INT "$1" 2>/dev/null || true
  for _ in $(seq 1200); do kill -0 "$1" 2>/dev/null || { echo "  (stopped in $((SECONDS - t0)) s)"; return 0; }; sleep 0.1; done
  echo "  (still running after 120 s: killed)"; kill -9 "$1" 2>/dev/null || true
}

# Origin for the client replay: nginx, one worker, a 97-byte body.
mkdir -p "$work/nginx"
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$O_HTTP; location / { return 200 "$(head -c 96 /dev/zero | tr '\0' 'x')\n"; } }
}
CONF
nginx -c "$work/nginx.conf" -p "$work/nginx"
wait_port $O_HTTP
pids+=("$(cat "$work/nginx.pid")")

# The recordings: one exchange with api.bench.test for the mock (served again and again), and N
# distinct GETs to nginx for the client replay.
python3 - "$work" "$O_HTTP" "$N" <<'PY'
import json, sys
work, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
body = "x" * 96 + "\n"
def entry(url, host):
    return {"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "cookies": [],
                        "headers": [{"name": "Host", "value": host}, {"name": "User-Agent", "value": "bench/1"},
                                    {"name": "Accept", "value": "*/*"}],
                        "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                         "headers": [{"name": "Content-Type", "value": "text/plain"},
                                     {"name": "Content-Length", "value": str(len(body))}],
                         "content": {"size": len(body), "mimeType": "text/plain", "text": body},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
def har(entries):
    return {"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}}
json.dump(har([entry("http://api.bench.test/v1/item", "api.bench.test")]), open(work + "/mock.har", "w"))
json.dump(har([entry("http://127.0.0.1:%d/item?i=%d" % (port, i), "127.0.0.1:%d" % port) for i in range(n)]),
          open(work + "/replay.har", "w"))
PY

cat > "$work/wrk.lua" <<CONF
wrk.method = "GET"
wrk.path = "http://api.bench.test/v1/item"
wrk.headers["Host"] = "api.bench.test"
wrk.headers["User-Agent"] = "bench/1"
wrk.headers["Accept"] = "*/*"
CONF

run_wrk() { # port → "rps p50 p99 errors"
  wrk -t2 -c64 -d"${SECS}s" --latency -s "$work/wrk.lua" "http://127.0.0.1:$1" > "$work/wrk.txt" 2>&1 || true
  local rps p50 p99 err
  rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")
  p50=$(awk '$1=="50%"{print $2}' "$work/wrk.txt")
  p99=$(awk '$1=="99%"{print $2}' "$work/wrk.txt")
  err=$(awk '/Non-2xx|Socket errors/{printf "%s ", $0}' "$work/wrk.txt")
  echo "${rps:-0} ${p50:--} ${p99:--} ${err:-none}"
}

echo "== server replay as a forward proxy: wrk -t2 -c64 ${SECS}s, absolute-form GET, served from a recorded HAR"
printf "%-22s %12s %10s %10s  %s\n" "server" "requests/s" "p50" "p99" "errors"
declare -A RPS
for name in mouchard-mock mouchard-mock-nostore mitmdump; do
  case "$name" in
    mouchard-mock)
      MOUCHARD_HOME="$work/home" "$mouchard" mock "$work/mock.har" --listen 127.0.0.1:$P_MOCK --replay-keep --quiet \
        --session "$work/mock-session" >"$work/mock.out" 2>&1 &
      PID=$!; PORT=$P_MOCK ;;
    mouchard-mock-nostore)
      MOUCHARD_HOME="$work/home" "$mouchard" mock "$work/mock.har" --listen 127.0.0.1:$P_MOCK --replay-keep --quiet \
        --no-store >"$work/mock2.out" 2>&1 &
      PID=$!; PORT=$P_MOCK ;;
    mitmdump)
      mitmdump -q --listen-host 127.0.0.1 --listen-port $P_MITM --set confdir="$work/mitm" \
        --server-replay "$work/mock.har" --set server_replay_reuse=true --set server_replay_extra=404 \
        >"$work/mitm.out" 2>&1 &
      PID=$!; PORT=$P_MITM ;;
  esac
  pids+=("$PID")
  wait_port "$PORT"
  wrk -t1 -c8 -d1s -s "$work/wrk.lua" "http://127.0.0.1:$PORT" >/dev/null 2>&1 || true
  read -r rps p50 p99 err <<<"$(run_wrk "$PORT")"
  RPS[$name]=$rps
  printf "%-22s %12s %10s %10s  %s\n" "$name" "$rps" "$p50" "$p99" "$err"
  stop_pid "$PID"
done
[ -f "$work/mock.out" ] && grep -h "served from the recordings" "$work/mock.out" "$work/mock2.out" | sed 's/^/  /' || true
python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); print('ratio mouchard mock / mitmdump: %.1fx (session recorded), %.1fx (--no-store)' % (a/c, b/c))" \
  "${RPS[mouchard-mock]}" "${RPS[mouchard-mock-nostore]}" "${RPS[mitmdump]}"

echo "== client replay: $N recorded GETs to nginx on loopback, --concurrency 64"
wrk -t2 -c64 -d5s "http://127.0.0.1:$O_HTTP/item" > "$work/direct.txt" 2>&1 || true
echo "wrk -c64 straight to nginx (the ceiling): $(awk '/Requests\/sec/{print $2}' "$work/direct.txt") requests/s"
"$mouchard" replay "$work/replay.har" --concurrency 64 --no-store | tail -1 | sed 's/^/no session:       /'
"$mouchard" replay "$work/replay.har" --concurrency 64 --session "$work/replay-session" | tail -1 | sed 's/^/session recorded: /'
