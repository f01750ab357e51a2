#!/usr/bin/env bash
# Records real HTTP/3 traffic on loopback with its key log: scripts/http3_pair.py (aioquic server
# and client, three QUIC connections, one per TLS 1.3 suite, planted requests), tcpdump on lo with
# a UDP port filter, stopped with SIGINT so that the file is complete.
#
#   scripts/record-quic-capture.sh OUTDIR [PYTHON]
#     OUTDIR/capture.pcap, OUTDIR/keys.log, OUTDIR/requests.txt (METHOD PATH per request sent)
#   PYTHON: an interpreter with the aioquic package (default python3).
# Needs root (tcpdump on lo), openssl, tcpdump, aioquic. Exits 2 when a tool is missing.
set -euo pipefail
out=${1:?usage: record-quic-capture.sh OUTDIR [PYTHON]}
python=${2:-python3}
for tool in openssl tcpdump "$python"; do
    command -v "$tool" >/dev/null || { echo "record-quic-capture: $tool is missing" >&2; exit 2; }
done
"$python" -c "import aioquic" 2>/dev/null || { echo "record-quic-capture: $python has no aioquic" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/unblocked.sh
. "$here/unblocked.sh"
port=$(( 20000 + RANDOM % 20000 ))
rm -f "$out/keys.log" "$out/capture.pcap" "$out/requests.txt"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/key.pem" -out "$out/cert.pem" \
    -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost 2>/dev/null
unblocked tcpdump -i lo -U --immediate-mode -s 0 -B 65536 -w "$out/capture.pcap" "udp port $port" 2>"$out/tcpdump.log" &
dump=$!
cleanup() { kill -INT "$dump" 2>/dev/null || true; wait "$dump" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 1 50); do grep -q "listening on" "$out/tcpdump.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
timeout 60 "$python" "$here/http3_pair.py" "$port" "$out/cert.pem" "$out/key.pem" "$out/keys.log" "$out/requests.txt"
sleep 1  # let the last packets reach the file before tcpdump stops
cleanup
trap - EXIT
echo "record-quic-capture: $(wc -l < "$out/requests.txt") requests, $(stat -c %s "$out/capture.pcap") bytes in $out/capture.pcap"
