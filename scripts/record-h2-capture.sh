#!/usr/bin/env bash
# Records a real HTTP/2-over-TLS capture on loopback with its key log: nginx with `http2` (ECDSA
# P-256 certificate made here), curl --http2 writing its secrets (SSLKEYLOGFILE), tcpdump on lo
# with a port filter, stopped with SIGINT so the file is complete. One connection in TLS 1.3
# carrying four multiplexed streams (an IDFA in a query, a header and a JSON body), one in TLS 1.2.
#
#   scripts/record-h2-capture.sh OUTDIR
#     OUTDIR/capture.pcap, OUTDIR/keys.log, OUTDIR/requests.txt (METHOD PATH per request sent)
# Needs root (tcpdump on lo), openssl, curl, nginx, tcpdump. Exits 2 when a tool is missing.
set -euo pipefail
out=${1:?usage: record-h2-capture.sh OUTDIR}
for tool in openssl curl tcpdump nginx; do
    command -v "$tool" >/dev/null || { echo "record-h2-capture: $tool is missing" >&2; exit 2; }
done
mkdir -p "$out/www"
# shellcheck source=scripts/unblocked.sh
. "$(dirname "$0")/unblocked.sh"
out=$(cd "$out" && pwd)
idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC
port=$(( 20000 + RANDOM % 20000 ))
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/key.pem" -out "$out/cert.pem" \
    -days 2 -subj /CN=localhost 2>/dev/null
rm -f "$out/keys.log" "$out/capture.pcap" "$out/requests.txt"
echo '{"ok":true}' > "$out/www/index.json"
cat > "$out/nginx.conf" <<CONF
daemon off;
master_process off;
pid $out/nginx.pid;
error_log $out/nginx-error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $out/body; proxy_temp_path $out/proxy; fastcgi_temp_path $out/fcgi;
  uwsgi_temp_path $out/uwsgi; scgi_temp_path $out/scgi;
  server {
    listen 127.0.0.1:$port ssl http2;
    ssl_certificate $out/cert.pem; ssl_certificate_key $out/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $out/www;
    location = /index.json { }
    location / { return 200 "ok\n"; }
  }
}
CONF
unblocked nginx -c "$out/nginx.conf" -p "$out" >/dev/null 2>&1 &
server=$!
unblocked tcpdump -i lo -U --immediate-mode -s 0 -B 65536 -w "$out/capture.pcap" "tcp port $port" 2>"$out/tcpdump.log" &
dump=$!
cleanup() { kill "$server" 2>/dev/null || true; kill -INT "$dump" 2>/dev/null || true; wait "$dump" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 1 50); do
    grep -q "listening on" "$out/tcpdump.log" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
export SSLKEYLOGFILE="$out/keys.log"
base="https://localhost:$port"
each=(--http2 -sk --max-time 10 -o /dev/null)
timeout 20 curl -s -Z --tlsv1.3 "${each[@]}" -H "x-idfa: $idfa" "$base/v1/header" --next \
    "${each[@]}" "$base/v1/open?advertiserId=$idfa" --next \
    "${each[@]}" --data "{\"device\":{\"ifa\":\"$idfa\"}}" -H "content-type: application/json" "$base/v1/events" --next \
    "${each[@]}" "$base/index.json"
printf 'GET /v1/header\nGET /v1/open?advertiserId=%s\nPOST /v1/events\nGET /index.json\n' "$idfa" >> "$out/requests.txt"
timeout 20 curl --tlsv1.2 --tls-max 1.2 "${each[@]}" "$base/t12?idfa=$idfa"
echo "GET /t12?idfa=$idfa" >> "$out/requests.txt"
sleep 1  # let the last packets reach the file before tcpdump stops
cleanup
trap - EXIT
echo "record-h2-capture: $(wc -l < "$out/requests.txt") requests, $(stat -c %s "$out/capture.pcap") bytes in $out/capture.pcap"
