#!/usr/bin/env bash
# Records a real TLS capture on loopback with its key log: a local `openssl s_server -www` (ECDSA
# P-256 certificate made here), curl and `openssl s_client` clients writing their secrets
# (SSLKEYLOGFILE, -keylogfile), tcpdump on lo with a port filter, stopped with SIGINT so the file
# is complete. TLS 1.3 with each AEAD suite, TLS 1.2 ECDHE with AES-GCM and ChaCha20-Poly1305,
# sessions resumed (two URLs per curl run), an IDFA planted in a query and a header.
#
#   scripts/record-tls-capture.sh OUTDIR [ROUNDS] [BODY_BYTES]
#     OUTDIR/capture.pcap, OUTDIR/keys.log, OUTDIR/requests.txt (METHOD URI per request sent)
#   ROUNDS (default 1) repeats the client runs (the bench makes large captures with it);
#   BODY_BYTES (default 0) adds a POST of that many bytes per run.
# Needs root (tcpdump on lo), openssl, curl, tcpdump. Exits 2 when a tool is missing.
set -euo pipefail
out=${1:?usage: record-tls-capture.sh OUTDIR [ROUNDS] [BODY_BYTES]}
rounds=${2:-1}
body=${3:-0}
for tool in openssl curl tcpdump python3; do
    command -v "$tool" >/dev/null || { echo "record-tls-capture: $tool is missing" >&2; exit 2; }
done
mkdir -p "$out"
# shellcheck source=scripts/unblocked.sh
. "$(dirname "$0")/unblocked.sh"
out=$(cd "$out" && pwd)
idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC
port=$(( 20000 + RANDOM % 20000 ))
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/key.pem" -out "$out/cert.pem" \
    -days 2 -subj /CN=localhost 2>/dev/null
rm -f "$out/keys.log" "$out/capture.pcap" "$out/requests.txt"
# s_server quits at the end of its standard input: give it one that stays open.
exec 9< <(unblocked sleep 3600)
holder=$!
unblocked openssl s_server -accept "$port" -cert "$out/cert.pem" -key "$out/key.pem" -www -quiet <&9 >/dev/null 2>&1 &
server=$!
unblocked tcpdump -i lo -U --immediate-mode -s 0 -B 65536 -w "$out/capture.pcap" "tcp port $port" 2>"$out/tcpdump.log" &
dump=$!
cleanup() { kill "$server" "$holder" 2>/dev/null || true; kill -INT "$dump" 2>/dev/null || true; wait "$dump" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 1 50); do
    grep -q "listening on" "$out/tcpdump.log" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
export SSLKEYLOGFILE="$out/keys.log"
base="https://localhost:$port"
request() {  # curl options... -- path...: one run of curl (one connection per URL: s_server -www closes)
    local opts=() paths=()
    while [ "$1" != "--" ]; do opts+=("$1"); shift; done
    shift
    local urls=()
    for p in "$@"; do urls+=("$base$p"); echo "GET $p" >> "$out/requests.txt"; done
    timeout 20 curl -sk --max-time 10 "${opts[@]}" -H "X-IDFA: $idfa" "${urls[@]}" -o /dev/null -o /dev/null -o /dev/null
}
for round in $(seq 1 "$rounds"); do
    request --tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256 -- "/t13/aes128?idfa=$idfa&r=$round" "/t13/aes128/resumed?r=$round"
    request --tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384 -- "/t13/aes256?r=$round"
    request --tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256 -- "/t13/chacha?r=$round"
    request --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256 -- "/t12/aes128?idfa=$idfa&r=$round" "/t12/aes128/resumed?r=$round"
    request --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-AES256-GCM-SHA384 -- "/t12/aes256?r=$round"
    request --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305 -- "/t12/chacha?r=$round"
    if [ "$body" -gt 0 ]; then
        head -c "$body" /dev/zero | tr '\0' 'a' > "$out/body.bin"
        echo "POST /t13/upload?r=$round" >> "$out/requests.txt"
        timeout 60 curl -sk --max-time 50 --tlsv1.3 --data-binary @"$out/body.bin" -H "X-IDFA: $idfa" \
            "$base/t13/upload?r=$round" -o /dev/null || true
    fi
done
# openssl s_client writes its own key log (-keylogfile); the request is written on its stdin.
echo "GET /s_client?idfa=$idfa" >> "$out/requests.txt"
printf 'GET /s_client?idfa=%s HTTP/1.0\r\nHost: localhost\r\nX-IDFA: %s\r\n\r\n' "$idfa" "$idfa" |
    timeout 10 openssl s_client -connect "127.0.0.1:$port" -servername localhost -tls1_3 -quiet \
        -keylogfile "$out/keys.log" >"$out/s_client.log" 2>&1 || echo "record-tls-capture: openssl s_client failed" >&2
sleep 1  # let the last packets reach the file before tcpdump stops
cleanup
trap - EXIT
echo "record-tls-capture: $(wc -l < "$out/requests.txt") requests, $(stat -c %s "$out/capture.pcap") bytes in $out/capture.pcap"
