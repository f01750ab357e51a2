#!/bin/bash
# TLS decryption speed: records a large real TLS capture on loopback (openssl s_server -WWW serving
# files, curl downloading them over TLS 1.3 AES-128-GCM / AES-256-GCM / ChaCha20-Poly1305 and TLS 1.2
# ECDHE AES-GCM / ChaCha20-Poly1305 in turn, an IDFA planted in a header, SSLKEYLOGFILE, tcpdump on
# lo), then times, on the same file and key log, RUNS times each (median):
#   mouchard scan FILE --keylog KEYS --format json     (reader + reassembly + TLS + HTTP + inspection)
#   tshark -r FILE -o tls.keylog_file:KEYS -Y http.request -T fields -e http.request.method -e http.request.uri
# and prints MB/s of capture, CPU seconds (user + system: the fairer figure on a loaded machine), peak RSS
# (/usr/bin/time -v), the requests each found and the ratios.
# usage: bench/decrypt.sh [SIZE_MB] [WORKDIR] [RUNS]    (defaults: 500, a fresh temporary directory, 3)
# A WORKDIR that already holds the capture and key log is reused (no new recording).
# Needs root (tcpdump on lo), openssl, curl, tcpdump, tshark, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-500}
work=${2:-$(mktemp -d)}
runs=${3:-3}
mkdir -p "$work"
work=$(cd "$work" && pwd)
capture="$work/tls-$size.pcap"
keys="$work/keys.log"
file_mb=8
downloads=$(( (size + file_mb - 1) / file_mb ))
idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC

# shellcheck source=scripts/unblocked.sh
. scripts/unblocked.sh

if [ ! -f "$capture" ]; then
    mkdir -p "$work/www"
    head -c $((file_mb << 20)) /dev/urandom > "$work/www/blob.bin"
    # s_server -WWW opens the path as a file name (a query string would be part of it): one name per download.
    for i in $(seq 1 "$downloads"); do ln -f "$work/www/blob.bin" "$work/www/blob-$i.bin"; done
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
        -days 2 -subj /CN=localhost 2>/dev/null
    port=$(( 20000 + RANDOM % 20000 ))
    rm -f "$keys"
    exec 9< <(unblocked sleep 3600)
    holder=$!
    (cd "$work/www" && unblocked openssl s_server -accept "$port" -cert "$work/cert.pem" -key "$work/key.pem" -WWW -quiet <&9 >/dev/null 2>&1) &
    server=$!
    unblocked tcpdump -i lo -U --immediate-mode -s 0 -B 262144 -w "$capture" "tcp port $port" 2>"$work/tcpdump.log" &
    dump=$!
    for _ in $(seq 1 50); do grep -q "listening on" "$work/tcpdump.log" && break; sleep 0.1; done
    sleep 0.5
    suites=("--tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256" "--tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384"
            "--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256"
            "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256" "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305")
    failed=0
    for i in $(seq 1 "$downloads"); do
        # Rate-limited so that tcpdump keeps up on a shared machine (drops are reported below).
        code=$(SSLKEYLOGFILE="$keys" timeout 60 curl -sk --max-time 50 --limit-rate 200M ${suites[$((i % 5))]} \
            -H "X-IDFA: $idfa" "https://localhost:$port/blob-$i.bin" -o /dev/null -w '%{http_code}' || true)
        [ "$code" = 200 ] || failed=$((failed + 1))
    done
    sleep 1
    kill -INT "$dump"; wait "$dump" || true
    kill "$server" "$holder" 2>/dev/null || true
    rm -rf "$work/www"
    grep -E "captured|dropped" "$work/tcpdump.log" | sed 's/^/  tcpdump: /'
    [ "$failed" = 0 ] || echo "  $failed of $downloads downloads failed"
fi
swift build -c release --product mouchard >/dev/null
bytes=$(stat -L -c %s "$capture")
echo "capture: $capture ($(echo "$bytes" | awk '{printf "%.0f", $1/1e6}') MB, $downloads downloads of $file_mb MiB), key log $(wc -l < "$keys") lines"
echo "load average before timing: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

measure() { # name, command...: RUNS timed runs; prints each, then the median seconds and the largest peak RSS
  name=$1; shift
  local all="" cpus="" rss_max=0
  for run in $(seq 1 "$runs"); do
    /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out-$name.txt" 2> "$work/err-$name.txt" || { echo "$name failed"; tail -5 "$work/err-$name.txt"; exit 1; }
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
    cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$work/time.txt")
    [ "$rss" -gt "$rss_max" ] && rss_max=$rss
    all="$all $secs"
    cpus="$cpus $cpu"
    printf "  %-9s run %d: %8.2f s  %8.1f MB/s  CPU %6.2f s  peak RSS %5s MB  (load %s)\n" "$name" "$run" "$secs" \
        "$(echo "$bytes $secs" | awk '{printf "%.1f", $1/1e6/$2}')" "$cpu" "$rss" "$(cut -d' ' -f1 /proc/loadavg)"
  done
  med=$(echo "$all" | tr ' ' '\n' | grep . | median)
  cpu_med=$(echo "$cpus" | tr ' ' '\n' | grep . | median)
  eval "secs_$name=$med"
  eval "cpu_$name=$cpu_med"
  eval "rss_$name=$rss_max"
  printf "%-10s median %8.2f s  %8.1f MB/s  CPU %6.2f s  peak RSS %5s MB\n" "$name" "$med" \
      "$(echo "$bytes $med" | awk '{printf "%.1f", $1/1e6/$2}')" "$cpu_med" "$rss_max"
}

measure mouchard .build/release/mouchard scan "$capture" --keylog "$keys" --format json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f'  mouchard: {d[\"requests\"]} requests, {len(d[\"findings\"])} findings')" "$work/out-mouchard.txt"
grep "TLS:" "$work/err-mouchard.txt" | sed 's/^/  /' || true
measure tshark tshark -r "$capture" -o "tls.keylog_file:$keys" -Y http.request -T fields -e http.request.method -e http.request.uri
echo "  tshark: $(wc -l < "$work/out-tshark.txt") requests"
echo "ratio (median wall time): mouchard is $(echo "$secs_tshark $secs_mouchard" | awk '{printf "%.1f", $1/$2}')x tshark" \
    "(CPU time, user + system: $(echo "$cpu_tshark $cpu_mouchard" | awk '{printf "%.1f", $1/$2}')x)"
echo "goals: >= 10x tshark, peak RSS <= 200 MB (mouchard: $rss_mouchard MB, tshark: $rss_tshark MB)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
