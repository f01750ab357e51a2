#!/usr/bin/env bash
# Fleet store benchmark (release build). One local PostgreSQL server (a throw-away cluster made here,
# durable settings: fsync and synchronous_commit on) and N simulated gateways: `mouchard-bench
# fleet-gateway` processes, each recording the iOS fixture HAR (35 requests) in a loop with the
# findings its device profile gives (about 1.4 a flow), in batches of 64 as a gateway's live audit
# does, into a local session uploaded to the fleet store (what `mouchard gateway --store` does).
#  1. Full speed, N from GATEWAYS: flows/s recorded and uploaded within the window, upload latency
#     (local commit to PostgreSQL commit) p50/p99, what was left to upload at the end and how long it
#     took; against the peer, the same gateways with the SQLite store alone (no --store). Also the
#     CPU time per flow of the gateways and of the server (all its processes), and the flows/s two
#     idle cores would take at that cost: on a loaded machine the wall-clock rates are shares.
#  2. Paced: GATEWAYS_PACED gateways at total offered rates from RATES: the rate where the upload
#     stops keeping up (uploaded in the window below 95% of what was recorded, or a backlog left).
#  3. The proxy's requests/s with the SQLite store and with --store (wrk plain HTTP, 64 connections;
#     HTTPS with a TLS 1.3 handshake per request, bench/proxy_load.c), interleaved ROUNDS times.
# Every run checks that PostgreSQL holds each recorded flow exactly once.
# Needs: the postgresql server package (make deps), wrk, nginx, cc, openssl (bench/peers.sh).
# Usage: bench/fleet.sh [SECONDS]   (default 10)
#        GATEWAYS="1 2 4" GATEWAYS_PACED=4 RATES="10000 20000 30000 40000" ROUNDS=2 PROXY=1
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-10}
GATEWAYS=${GATEWAYS:-"1 2 4"}
GATEWAYS_PACED=${GATEWAYS_PACED:-4}
RATES=${RATES:-"10000 20000 30000 40000"}
ROUNDS=${ROUNDS:-2}
PROXY=${PROXY:-1}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/postgres" ] || { echo "bench/fleet.sh: needs the PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }
[ "$PROXY" = 0 ] || bench/peers.sh

work=$(mktemp -d /tmp/mouchard-bench-fleet.XXXXXX)
chmod 755 "$work"
pids=()
run_as=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$work" 2>/dev/null || chown nobody: "$work"
  owner=$(stat -c %U "$work")
  run_as=(setpriv --reuid="$owner" --regid="$(id -g "$owner")" --clear-groups --)
fi
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/pg/postmaster.pid" ] && kill -INT "$(head -1 "$work/pg/postmaster.pid")" 2>/dev/null || true
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n 8192

swift build -c release --product mouchard-bench >/dev/null
swift build -c release --product mouchard >/dev/null
bench=.build/release/mouchard-bench
mouchard=.build/release/mouchard
har=Tests/Fixtures/ios/traffic.har
device=Tests/Fixtures/ios/device.json

# The server: a cluster in the work folder, a Unix socket only.
mkdir -p "$work/sock" "$work/runs"
chown "$(stat -c %U "$work")": "$work/sock"
"${run_as[@]}" "$bin/initdb" -D "$work/pg" -U mouchard --auth=trust -E UTF8 --locale=C >/dev/null
"${run_as[@]}" "$bin/postgres" -D "$work/pg" -k "$work/sock" -c listen_addresses= -c shared_buffers=256MB \
  -c max_wal_size=4GB -c max_connections=100 >"$work/postgres.log" 2>&1 &
for _ in $(seq 100); do "$bin/psql" -h "$work/sock" -U mouchard -d postgres -Atc "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
psql_() { "$bin/psql" -h "$work/sock" -U mouchard -d "$1" -Atc "$2"; }
# A new database per run (named by the clock: this runs in a subshell, a counter would not move).
fresh_db() { local name="fleet_$(date +%s%N)"; psql_ postgres "CREATE DATABASE $name" >/dev/null; echo "postgresql://mouchard@/$name?host=$work/sock"; }

echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), fsync on, synchronous_commit on; $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# gateways N URL|none SECONDS [TOTAL_RATE] → one JSON line per gateway in $work/runs/N-*.json
gateways() {
  local n=$1 url=$2 secs=$3 rate=${4:-} g args
  rm -f "$work"/runs/*.json
  local gpids=()
  for g in $(seq "$n"); do
    args=(fleet-gateway --har "$har" --device "$device" --rules Rules --journal "$work/runs/j$g-$RANDOM" --seconds "$secs")
    [ "$url" = none ] || args+=(--store "$url")
    [ -z "$rate" ] || args+=(--rate "$(awk -v r="$rate" -v n="$n" 'BEGIN{printf "%.1f", r/n}')")
    "$bench" "${args[@]}" >"$work/runs/$g.json" 2>"$work/runs/$g.err" &
    gpids+=($!)
    pids+=($!)
  done
  for p in "${gpids[@]}"; do wait "$p"; done
  rm -rf "$work"/runs/j*
}
# sum FIELD → the sum of FIELD over the gateways' lines; max FIELD likewise
field() { grep -ho "\"$1\":[0-9.]*" "$work"/runs/*.json | cut -d: -f2; }
sum() { field "$1" | awk '{s+=$1} END {printf "%.0f", s}'; }
max() { field "$1" | awk 'BEGIN{m=0} {if ($1>m) m=$1} END {printf "%.2f", m}'; }
# Drops a run's database once measured, so that autovacuum does not work on it during the next run.
drop_db() { local db=${1#*@/}; psql_ postgres "DROP DATABASE ${db%%\?*}" >/dev/null; }
exactly_once() { # URL recorded → yes/NO
  local db=${1#*@/}; db=${db%%\?*}
  local got; got=$(psql_ "$db" "SELECT (SELECT count(*) FROM mouchard.flows) || ' ' || (SELECT count(DISTINCT (session_id, id)) FROM mouchard.flows) || ' ' || (SELECT coalesce(sum(flows),0) FROM mouchard.sessions)")
  [ "$got" = "$2 $2 $2" ] && echo yes || echo "NO ($got for $2)"
}

# CPU seconds of the server so far: the postmaster and its children that exited (backends).
server_cpu() { awk '{printf "%.2f", ($14+$15+$16+$17)/100}' "/proc/$(head -1 "$work/pg/postmaster.pid")/stat"; }
echo
echo "== 1. full speed, ${SECS}s: fleet store (local session + upload) vs the SQLite store alone"
printf "%-9s %-8s %11s %11s %9s %9s %7s %7s %8s %-12s %s\n" gateways store "recorded/s" "uploaded/s" "up p50" "up p99" "left" "drain" \
  "app p99" "us CPU/flow" "2-core flows/s, exactly once"
for n in $GATEWAYS; do
  gateways "$n" none "$SECS"
  sqlite_rate=$(sum recorded_per_s)
  cpu=$(awk -v c="$(field cpu_s | awk '{s+=$1} END {print s}')" -v f="$(sum flows)" 'BEGIN{printf "%.1f", c / f * 1e6}')
  printf "%-9s %-8s %11s %11s %9s %9s %7s %7s %8s %-12s %s\n" "$n" sqlite "$sqlite_rate" - - - - - "$(max append_p99_ms)ms" "$cpu" \
    "$(awk -v c="$cpu" 'BEGIN{printf "%.0f", 2e6 / c}')"
  url=$(fresh_db)
  before=$(server_cpu)
  gateways "$n" "$url" "$SECS"
  sleep 1
  gw=$(awk -v c="$(field cpu_s | awk '{s+=$1} END {print s}')" -v f="$(sum flows)" 'BEGIN{printf "%.1f", c / f * 1e6}')
  db=$(awk -v a="$before" -v b="$(server_cpu)" -v f="$(sum flows)" 'BEGIN{printf "%.1f", (b - a) / f * 1e6}')
  printf "%-9s %-8s %11s %11s %9s %9s %7s %7s %8s %-12s %s, %s\n" "$n" postgres "$(sum recorded_per_s)" "$(sum uploaded_per_s)" \
    "$(max upload_p50_ms)ms" "$(max upload_p99_ms)ms" "$(sum left)" "$(max drain_s)s" "$(max append_p99_ms)ms" "$gw+$db" \
    "$(awk -v g="$gw" -v d="$db" 'BEGIN{printf "%.0f", 2e6 / (g + d)}')" "$(exactly_once "$url" "$(sum flows)")"
  echo "full $n $sqlite_rate $(sum recorded_per_s) $(sum uploaded_per_s) $(sum findings) $gw $db" >> "$work/results"
  drop_db "$url"
done

echo
echo "== 2. paced: $GATEWAYS_PACED gateways, ${SECS}s at each total offered rate (flows/s)"
printf "%-10s %12s %12s %8s %10s %10s %9s %s\n" offered "recorded/s" "uploaded/s" ratio "up p50" "up p99" "drain" "keeps up"
for rate in $RATES; do
  url=$(fresh_db)
  gateways "$GATEWAYS_PACED" "$url" "$SECS" "$rate"
  rec=$(sum recorded_per_s); up=$(sum uploaded_per_s)
  # Kept up: what was recorded went up within the window (95%) and the rest within 2 s. When the
  # gateways cannot even record the offered rate, the machine is saturated before the store is.
  keeps=$(awk -v o="$rate" -v r="$rec" -v u="$up" -v d="$(max drain_s)" \
    'BEGIN{print (r < 0.9 * o ? "gateways saturated" : ((u >= 0.95 * r && d < 2) ? "yes" : "no"))}')
  printf "%-10s %12s %12s %8s %10s %10s %9s %s (exactly once: %s)\n" "$rate" "$rec" "$up" \
    "$(awk -v r="$rec" -v u="$up" 'BEGIN{printf "%.2f", (r > 0 ? u / r : 0)}')" "$(max upload_p50_ms)ms" "$(max upload_p99_ms)ms" \
    "$(max drain_s)s" "$keeps" "$(exactly_once "$url" "$(sum flows)")"
  echo "paced $rate $rec $up $keeps" >> "$work/results"
  drop_db "$url"
done
awk '$1=="full" {printf "full speed, %s gateway(s): uploaded %s flows/s (%s findings in all); fleet/SQLite recording ratio %.2f; CPU per flow: gateway %s us + server %s us, so 2 idle cores would take about %.0f flows/s\n", $2, $5, $6, ($3 > 0 ? $4 / $3 : 0), $7, $8, 2e6 / ($7 + $8)}
     $1=="paced" && $5=="yes" {k=$2} END {print "highest paced rate kept up with: " (k ? k : "none") " flows/s"}' "$work/results"

[ "$PROXY" = 0 ] && exit 0
echo
echo "== 3. the proxy with the SQLite store and with --store (${ROUNDS} round(s), interleaved, ${SECS}s each)"
cc -O2 -o "$work/proxy_load" bench/proxy_load.c bench/tls13_client.c -lssl -lcrypto -lpthread
O_HTTP=18921; O_HTTPS=18922; P=18931
. bench/origin.sh
origin_certificates "$work" localhost 127.0.0.1
pids+=("$(origin_nginx "$work" 127.0.0.1:$O_HTTP 127.0.0.1:$O_HTTPS)")
cat > "$work/wrk.lua" <<CONF
wrk.method = "GET"
wrk.path = "http://127.0.0.1:$O_HTTP/?idfa=1CE7A3D8-60D2-4F17-B911-B44ED4595414"
wrk.headers["Host"] = "127.0.0.1:$O_HTTP"
CONF
wait_port() { for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
url=$(fresh_db)
start_proxy() { # sqlite|postgres → PID
  local store=()
  [ "$1" = postgres ] && store=(--store "$url" --app Bench --app-version 1)
  MOUCHARD_HOME="$work/home" "$mouchard" proxy --listen 127.0.0.1:$P --quiet --session "$work/proxy-$1-$RANDOM" --device "$device" \
    --upstream-ca "$work/ca.pem" "${store[@]}" >"$work/proxy-$1.out" 2>&1 &
  PID=$!; pids+=("$PID"); wait_port $P
}
stop_proxy() { kill -INT "$1" 2>/dev/null || true; for _ in $(seq 600); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; kill -9 "$1" 2>/dev/null || true; }
printf "%-6s %-9s %12s %10s %9s\n" load store "requests/s" p99 "stopping"
for round in $(seq "$ROUNDS"); do
  for load in plain tls13; do
    for store in sqlite postgres; do
      start_proxy "$store"
      if [ "$load" = plain ]; then
        wrk -t1 -c8 -d1s -s "$work/wrk.lua" "http://127.0.0.1:$P" >/dev/null 2>&1 || true
        wrk -t2 -c64 -d"${SECS}s" --latency -s "$work/wrk.lua" "http://127.0.0.1:$P" > "$work/wrk.txt" 2>&1 || true
        rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk.txt"); p99=$(awk '$1=="99%"{print $2}' "$work/wrk.txt")
      else
        "$work/proxy_load" tls13 $P localhost $O_HTTPS 32 1 >/dev/null 2>&1 || true
        res=$("$work/proxy_load" tls13 $P localhost $O_HTTPS 32 "$SECS")
        rps=$(echo "$res" | awk '{print $6}'); p99=$(echo "$res" | awk '{print $10}')ms
      fi
      # Stopping waits for the upload to finish: that time is the backlog the load left.
      t0=$(date +%s.%N)
      stop_proxy "$PID"
      stopped=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
      cat "$work/proxy-$store.out" >> "$work/proxy-$store-all.out"
      if [ -z "$rps" ] || [ "${rps%.*}" = 0 ]; then
        echo "$load $store: the load run failed (no requests/s); last lines of the proxy's output:"; tail -3 "$work/proxy-$store.out"
        continue
      fi
      printf "%-6s %-9s %12s %10s %8ss  %s\n" "$load" "$store" "$rps" "$p99" "$stopped" \
        "$(grep -ho 'fleet store: [0-9]* flows' "$work/proxy-$store.out" || true)"
      echo "proxy $load $store $rps" >> "$work/results"
    done
  done
done
awk '$1=="proxy" {s[$2" "$3]+=$4; n[$2" "$3]++}
     END {for (l in s) {}
          p=s["plain postgres"]/n["plain postgres"]; q=s["plain sqlite"]/n["plain sqlite"];
          t=s["tls13 postgres"]/n["tls13 postgres"]; u=s["tls13 sqlite"]/n["tls13 sqlite"];
          printf "proxy requests/s with --store / with the SQLite store (mean over rounds): plain HTTP %.3f, HTTPS handshake per request %.3f\n", p/q, t/u}' "$work/results"
fleet_flows=$(psql_ "$(echo "${url#*@/}" | cut -d'?' -f1)" "SELECT coalesce(sum(flows),0) || ' flows in ' || count(*) || ' sessions, ' || (SELECT count(*) FROM mouchard.flows) || ' rows' FROM mouchard.sessions")
local_flows=$(cat "$work"/proxy-postgres.out >/dev/null; grep -h "^mouchard: [0-9]* flows" "$work"/proxy-postgres-all.out 2>/dev/null | awk '{s+=$2} END {print s+0}')
echo "fleet store after the proxy runs: $fleet_flows; the proxies recorded $local_flows flows"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
