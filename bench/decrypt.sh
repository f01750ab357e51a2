#!/bin/bash
# TLS decryption speed: records a large real TLS capture on loopback (openssl s_server -WWW serving
# a file, curl downloading it over TLS 1.3 AES-128-GCM / AES-256-GCM / ChaCha20-Poly1305 and TLS 1.2
# ECDHE AES-GCM / ChaCha20-Poly1305 in turn, SSLKEYLOGFILE, tcpdump on lo), then times, on the same
# file and key log:
#   mouchard scan FILE --keylog KEYS --format json     (reader + reassembly + TLS + HTTP + inspection)
#   tshark -r FILE -o tls.keylog_file:KEYS -Y http.request -T fields -e http.request.method -e http.request.uri
# and prints MB/s of capture, peak RSS (/usr/bin/time -v) and the requests each found.
# usage: bench/decrypt.sh [SIZE_MB] [WORKDIR]     (defaults: 500, a fresh temporary directory)
# Needs root (tcpdump on lo), openssl, curl, tcpdump, tshark, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-500}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
swift build -c release --product mouchard >/dev/null
capture="$work/tls-$size.pcap"
keys="$work/keys.log"
file_mb=8
downloads=$(( (size + file_mb - 1) / file_mb ))

unblocked() {  # (always in a subshell or in the background: it execs) children that a parent's blocked SIGINT/SIGTERM would make unstoppable
    exec python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

if [ ! -f "$capture" ]; then
    mkdir -p "$work/www"
    head -c $((file_mb << 20)) /dev/urandom > "$work/www/blob.bin"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
        -days 2 -subj /CN=localhost 2>/dev/null
    port=$(( 20000 + RANDOM % 20000 ))
    rm -f "$keys"
    exec 9< <(unblocked sleep 3600)
    holder=$!
    (cd "$work/www" && exec unblocked openssl s_server -accept "$port" -cert "$work/cert.pem" -key "$work/key.pem" -WWW -quiet <&9 >/dev/null 2>&1) &
    server=$!
    unblocked tcpdump -i lo -U --immediate-mode -s 0 -B 262144 -w "$capture" "tcp port $port" 2>"$work/tcpdump.log" &
    dump=$!
    for _ in $(seq 1 50); do grep -q "listening on" "$work/tcpdump.log" && break; sleep 0.1; done
    sleep 0.5
    suites=("--tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256" "--tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384"
            "--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256"
            "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256" "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305")
    for i in $(seq 1 "$downloads"); do
        # Rate-limited so that tcpdump keeps up on a shared machine (drops are reported below).
        SSLKEYLOGFILE="$keys" timeout 60 curl -sk --max-time 50 --limit-rate 200M ${suites[$((i % 5))]} \
            "https://localhost:$port/blob.bin?download=$i" -o /dev/null
    done
    sleep 1
    kill -INT "$dump"; wait "$dump" || true
    kill "$server" "$holder" 2>/dev/null || true
    grep -E "captured|dropped" "$work/tcpdump.log" | sed 's/^/  tcpdump: /'
fi
bytes=$(stat -L -c %s "$capture")
echo "capture: $capture ($(echo "$bytes" | awk '{printf "%.0f", $1/1e6}') MB, $downloads downloads of $file_mb MiB), key log $(wc -l < "$keys") lines"

measure() { # name, command...
  name=$1; shift
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out-$name.txt" 2> "$work/err-$name.txt" || { echo "$name failed"; tail -5 "$work/err-$name.txt"; exit 1; }
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
  eval "secs_$name=$secs"
  printf "%-10s %8.2f s  %8.1f MB/s  peak RSS %5s MB\n" "$name" "$secs" "$(echo "$bytes $secs" | awk '{printf "%.1f", $1/1e6/$2}')" "$rss"
}

measure mouchard .build/release/mouchard scan "$capture" --keylog "$keys" --format json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f'  mouchard: {d[\"requests\"]} requests, {len(d[\"findings\"])} findings')" "$work/out-mouchard.txt"
grep "TLS:" "$work/err-mouchard.txt" | sed 's/^/  /' || true
measure tshark tshark -r "$capture" -o "tls.keylog_file:$keys" -Y http.request -T fields -e http.request.method -e http.request.uri
echo "  tshark: $(wc -l < "$work/out-tshark.txt") requests"
echo "ratio: mouchard is $(echo "$secs_tshark $secs_mouchard" | awk '{printf "%.1f", $1/$2}')x tshark"
