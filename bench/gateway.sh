#!/usr/bin/env bash
# Gateway benchmark (release build), in network namespaces of its own (phone → gateway → internet),
# peers in the same run, interleaved:
#  1. plain HTTP: wrk in the phone namespace, 64 keep-alive connections, to an nginx origin in the
#     internet namespace; the gateway namespace intercepts port 80 with `mouchard gateway` (live
#     audit on: every request inspected against a device profile, the phone side captured to
#     traffic.pcap), squid in intercept mode, and `mitmdump --mode transparent`;
#  2. intercepted HTTPS, a new TLS connection (full TLS 1.3 handshake) per request, with the lean
#     TLS 1.3 client of bench/tls13_client.c (bench/proxy_load.c tls13-direct: no CONNECT, straight
#     to the origin's address), Mouchard vs mitmdump (squid's intercept needs ssl-bump, which
#     Debian's squid package is not built for).
# Prints requests/s, p50/p99 latency and the proxy's CPU time per request (user+system of its
# processes over the run, from /proc). Needs root, ip, nft, wrk, nginx, squid, mitmdump, cc.
# Usage: sudo bench/gateway.sh [SECONDS]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench/gateway.sh: needs root (network namespaces, nftables)" >&2; exit 1; }
bench/peers.sh
SECS=${1:-10}
ROUNDS=${ROUNDS:-1}
tag=$$
P=mbp-$tag; G=mbg-$tag; I=mbi-$tag
work=$(mktemp -d /tmp/mouchard-bench-gateway.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  for ns in "$P" "$G" "$I"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n 8192

swift build -c release --product mouchard >/dev/null
mouchard=$PWD/.build/release/mouchard
cc -O2 -o "$work/proxy_load" bench/proxy_load.c bench/tls13_client.c -lssl -lcrypto -lpthread

# Namespaces: phone 10.78.1.2 → gateway 10.78.1.1 | 10.78.2.1 → internet 10.78.2.2.
ORIGIN=10.78.2.2
for ns in "$P" "$G" "$I"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
ip link add "bp$tag" netns "$P" type veth peer name "bgp$tag" netns "$G"
ip link add "bgu$tag" netns "$G" type veth peer name "bi$tag" netns "$I"
ip -n "$P" addr add 10.78.1.2/24 dev "bp$tag"
ip -n "$G" addr add 10.78.1.1/24 dev "bgp$tag"
ip -n "$G" addr add 10.78.2.1/24 dev "bgu$tag"
ip -n "$I" addr add $ORIGIN/24 dev "bi$tag"
ip -n "$P" link set "bp$tag" up; ip -n "$G" link set "bgp$tag" up; ip -n "$G" link set "bgu$tag" up; ip -n "$I" link set "bi$tag" up
ip -n "$P" route add default via 10.78.1.1
ip -n "$G" route add default via $ORIGIN
inP() { ip netns exec "$P" "$@"; }
inG() { ip netns exec "$G" "$@"; }

# Origin certificate (test CA) and nginx in the internet namespace, one worker, a 97-byte body.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca.key" -out "$work/ca.pem" \
  -days 2 -subj "/CN=bench origin CA" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/srv.key" -out "$work/srv.csr" \
  -subj "/CN=bench.example.test" 2>/dev/null
printf "subjectAltName=DNS:bench.example.test,IP:$ORIGIN\nextendedKeyUsage=serverAuth\n" > "$work/ext.cnf"
openssl x509 -req -in "$work/srv.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -out "$work/srv.pem" \
  -days 2 -extfile "$work/ext.cnf" 2>/dev/null
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
  server { listen $ORIGIN:80; location / { return 200 "$(head -c 96 /dev/zero | tr '\0' 'x')\n"; } }
  server { listen $ORIGIN:443 ssl; ssl_certificate $work/srv.pem; ssl_certificate_key $work/srv.key;
           location / { return 200 "$(head -c 96 /dev/zero | tr '\0' 'y')\n"; } }
}
CONF
ip netns exec "$I" nginx -c "$work/nginx.conf" -p "$work/nginx"
sleep 0.5

cat > "$work/device.json" <<CONF
{ "name": "bench device", "platform": "ios",
  "identifiers": { "idfa": "6D92078A-8246-4BA4-AE5B-76104861E7DC", "idfv": "A1B2C3D4-0000-4111-8222-333344445555",
                   "udid": "2b6f0cc904d137be2e1730235f5664094b831186" },
  "owner": { "email": ["camille.martin@example.org"], "phone": ["+33 6 12 34 56 78"] } }
CONF
P_SQUID=3129; P_MITM=8081
cat > "$work/squid.conf" <<CONF
http_port 3128
http_port $P_SQUID intercept
http_access allow all
cache deny all
cache_mem 8 MB
access_log none
cache_log $work/squid-cache.log
pid_filename $work/squid.pid
coredump_dir $work
shutdown_lifetime 1 seconds
CONF

# A peer's redirect: its own table in the gateway namespace (mouchard gateway makes its own).
peer_rules() { # port ports...
  local to=$1; shift
  inG nft -f - <<NFT
table inet mouchardbench {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    iifname "bgp$tag" tcp dport { $(echo "$@" | tr ' ' ',') } redirect to :$to
  }
}
NFT
}
drop_peer_rules() { inG nft delete table inet mouchardbench 2>/dev/null || true; }

cpu_ticks() { # total utime+stime (clock ticks) of the given pids and their children
  local total=0 p
  for p in $(for q in "$@"; do echo "$q"; pgrep -P "$q" 2>/dev/null || true; done | sort -u); do
    local t; t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)
    total=$((total + ${t:-0}))
  done
  echo "$total"
}
HZ=$(getconf CLK_TCK)
wait_listen() { # port: until something listens on it in the gateway namespace (python peers start slowly)
  for _ in $(seq 300); do inG ss -Hltn "sport = :$1" | grep -q . && return 0; sleep 0.1; done
  echo "bench/gateway.sh: nothing listens on :$1 after 30 s" >&2
}

start() { # name → PID (the process to measure)
  case "$1" in
    mouchard)
      MOUCHARD_HOME="$work/home" ip netns exec "$G" "$mouchard" gateway --phone-side "bgp$tag" --uplink "bgu$tag" --quiet \
        --session "$work/session-$RANDOM" --device "$work/device.json" --upstream-ca "$work/ca.pem" \
        --state-dir "$work/state" --ports 80,443 >"$work/mouchard.out" 2>&1 &
      PID=$!
      for _ in $(seq 200); do grep -q "SIGTERM stops" "$work/mouchard.out" && break; sleep 0.05; done ;;
    squid)
      ip netns exec "$G" squid -N -f "$work/squid.conf" >"$work/squid.out" 2>&1 &
      PID=$!; peer_rules $P_SQUID 80; wait_listen $P_SQUID ;;
    mitmproxy)
      ip netns exec "$G" mitmdump -q --mode transparent --listen-port $P_MITM --set confdir="$work/mitm" \
        --set ssl_verify_upstream_trusted_ca="$work/ca.pem" >"$work/mitmproxy.out" 2>&1 &
      PID=$!; peer_rules $P_MITM 80 443; wait_listen $P_MITM ;;
  esac
  pids+=("$PID")
}
stop() { # pid
  kill -INT "$1" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
  drop_peer_rules
}

# The measured process is $! itself: `ip netns exec` execs the program in its own process.
echo "== plain HTTP: wrk -c64 ${SECS}s from the phone namespace to http://$ORIGIN/ (${ROUNDS} round(s))"
printf "%-10s %12s %10s %10s %14s  %s\n" proxy "requests/s" p50 p99 "CPU µs/req" errors
for round in $(seq "$ROUNDS"); do
  for name in mouchard squid mitmproxy; do
    start "$name"
    inP wrk -t1 -c8 -d1s "http://$ORIGIN/" >/dev/null 2>&1 || true   # warm-up
    c0=$(cpu_ticks "$PID")
    inP wrk -t2 -c64 -d"${SECS}s" --latency "http://$ORIGIN/" > "$work/wrk.txt" 2>&1 || true
    c1=$(cpu_ticks "$PID")
    rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")
    total=$(awk '/requests in/{print $1}' "$work/wrk.txt")
    p50=$(awk '$1=="50%"{print $2}' "$work/wrk.txt"); p99=$(awk '$1=="99%"{print $2}' "$work/wrk.txt")
    err=$(awk '/Non-2xx|Socket errors/{printf "%s ", $0}' "$work/wrk.txt")
    cpu=$(awk -v a="$c0" -v b="$c1" -v n="${total:-0}" -v hz="$HZ" 'BEGIN { if (n > 0) printf "%.1f", (b - a) / hz * 1e6 / n; else print "-" }')
    printf "%-10s %12s %10s %10s %14s  %s\n" "$name" "${rps:--}" "${p50:--}" "${p99:--}" "$cpu" "${err:-none}"
    echo "plain $name ${rps:-0}" >> "$work/results"
    [ -n "$rps" ] || { echo "  $name: $(tail -3 "$work/wrk.txt" | tr '\n' ' ')"; tail -5 "$work/$name.out" 2>/dev/null || true; }
    stop "$PID"
  done
done

echo
echo "== intercepted HTTPS: a new TLS 1.3 connection per request (lean client), 32 threads, ${SECS}s"
printf "%-10s %s\n" proxy result
for round in $(seq "$ROUNDS"); do
  for name in mouchard mitmproxy; do
    start "$name"
    inP "$work/proxy_load" tls13-direct $ORIGIN 443 bench.example.test 8 1 >/dev/null 2>&1 || true   # warm-up
    c0=$(cpu_ticks "$PID")
    res=$(inP "$work/proxy_load" tls13-direct $ORIGIN 443 bench.example.test 32 "$SECS")
    c1=$(cpu_ticks "$PID")
    n=$(echo "$res" | awk '{print $2}')
    cpu=$(awk -v a="$c0" -v b="$c1" -v n="${n:-0}" -v hz="$HZ" 'BEGIN { if (n > 0) printf "%.0f", (b - a) / hz * 1e6 / n; else print "-" }')
    printf "%-10s %s cpu_us_per_req %s\n" "$name" "$res" "$cpu"
    echo "tls13 $name $(echo "$res" | awk '{print $6}')" >> "$work/results"
    stop "$PID"
  done
done
echo
awk '{sum[$1" "$2]+=$3; n[$1" "$2]++} END {
  m=sum["plain mouchard"]/n["plain mouchard"]; s=sum["plain squid"]/n["plain squid"]; t=sum["plain mitmproxy"]/n["plain mitmproxy"];
  h=sum["tls13 mouchard"]/n["tls13 mouchard"]; u=sum["tls13 mitmproxy"]/n["tls13 mitmproxy"];
  printf "ratios (mean over rounds): plain mouchard/squid %.2f, mouchard/mitmproxy %.1fx; HTTPS mouchard/mitmproxy %.1fx\n",
    (s > 0 ? m/s : 0), (t > 0 ? m/t : 0), (u > 0 ? h/u : 0) }' "$work/results"
grep -E "flows" "$work/mouchard.out" | tail -1 || true
