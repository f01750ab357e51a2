#!/usr/bin/env bash
# The same requests twice, to a local HTTPS origin: once direct, recorded by tcpdump on lo with the
# client's TLS secrets (SSLKEYLOGFILE), once through `mouchard proxy` into a session. The requests
# carry the values of captures/example/device.json in a query, a JSON body, a header, base64, a
# form, a gzip-compressed body; they go over TLS 1.3 (AES-128-GCM, ChaCha20-Poly1305) and TLS 1.2
# (ECDHE AES-256-GCM, ChaCha20-Poly1305).
#
#   scripts/record-direct-and-proxied.sh OUTDIR MOUCHARD [--h2] [CURL_EXTRA_OPTION...]
#     OUTDIR/capture.pcap, OUTDIR/keys.log (direct), OUTDIR/proxy-session/ (proxied),
#     OUTDIR/requests.txt (METHOD URL per request, each sent once each way)
#   --h2: the origin speaks HTTP/2 (nginx with `http2` in front of the same Python origin, which it
#     reaches in cleartext HTTP/1.1; nginx reads each request body before passing it on, so every
#     answer follows the whole upload) and curl asks for it (--http2), directly and through the proxy;
#     without it, curl asks for HTTP/1.1 both ways (--http1.1).
#   CURL_EXTRA_OPTION: added to every curl.
# Needs root (tcpdump on lo), openssl, curl, tcpdump, python3, and nginx with --h2. Exits 2 when a tool
# is missing.
set -euo pipefail
usage="usage: record-direct-and-proxied.sh OUTDIR MOUCHARD [--h2] [CURL_EXTRA_OPTION...]"
out=${1:?$usage}
mouchard=${2:?$usage}
shift 2
h2=""
if [ "${1:-}" = "--h2" ]; then h2=yes; shift; fi
extra=("$@")
# curl offers h2 to any HTTPS origin, and the proxy gives it h2 even to an HTTP/1.1 origin: the
# version is asked for explicitly, so that both ways speak the same one.
if [ -n "$h2" ]; then extra+=(--http2); else extra+=(--http1.1); fi
tools=(openssl curl tcpdump python3)
[ -z "$h2" ] || tools+=(nginx)
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || { echo "record-direct-and-proxied: $tool is missing" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
# shellcheck source=scripts/unblocked.sh
. "$(dirname "$0")/unblocked.sh"
port=$(( 20000 + RANDOM % 20000 ))
proxy_port=$(( port + 1 ))
backend_port=$(( port + 2 ))  # the Python origin behind nginx, with --h2
rm -rf "$out/keys.log" "$out/capture.pcap" "$out/requests.txt" "$out/proxy-session" "$out/home"
mkdir -p "$out/home"

# An origin CA and a localhost certificate it signs (the proxy verifies upstream certificates).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/ca.key" -out "$out/origin-ca.pem" \
    -days 2 -subj "/CN=Mouchard Test Origin CA" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/origin.key" -out "$out/origin.csr" \
    -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' > "$out/ext.cnf"
openssl x509 -req -in "$out/origin.csr" -CA "$out/origin-ca.pem" -CAkey "$out/ca.key" -CAcreateserial \
    -out "$out/origin.pem" -days 2 -extfile "$out/ext.cnf" 2>/dev/null

# The origin: any method, any path, answers 200 with a small JSON body (HTTP/1.1 over TLS 1.2 and 1.3,
# or in cleartext when it is given no certificate).
cat > "$out/origin.py" <<'EOF'
import http.server, ssl, sys
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = b'{"ok":true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_PUT = answer
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
if len(sys.argv) > 2:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    context.set_alpn_protocols(["http/1.1"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()
EOF
front=""
if [ -z "$h2" ]; then
    unblocked python3 "$out/origin.py" "$port" "$out/origin.pem" "$out/origin.key" > "$out/origin.log" 2>&1 &
    origin=$!
else
    unblocked python3 "$out/origin.py" "$backend_port" > "$out/origin.log" 2>&1 &
    origin=$!
    mkdir -p "$out/nginx"
    cat > "$out/nginx.conf" <<CONF
daemon off;
master_process off;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $out/nginx/body; proxy_temp_path $out/nginx/proxy; fastcgi_temp_path $out/nginx/fcgi;
  uwsgi_temp_path $out/nginx/uwsgi; scgi_temp_path $out/nginx/scgi;
  server {
    listen 127.0.0.1:$port ssl http2;
    ssl_certificate $out/origin.pem; ssl_certificate_key $out/origin.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { proxy_pass http://127.0.0.1:$backend_port; proxy_http_version 1.1; }
  }
}
CONF
    unblocked nginx -c "$out/nginx.conf" -p "$out/nginx" > "$out/nginx/stdout.log" 2>&1 &
    front=$!
fi
dump=""
proxy=""
cleanup() {
    kill "$origin" 2>/dev/null || true
    [ -z "$front" ] || kill "$front" 2>/dev/null || true
    [ -z "$proxy" ] || { kill "$proxy" 2>/dev/null || true; wait "$proxy" 2>/dev/null || true; }
    [ -z "$dump" ] || { kill -INT "$dump" 2>/dev/null || true; wait "$dump" 2>/dev/null || true; }
}
trap cleanup EXIT
for _ in $(seq 1 100); do grep -q ready "$out/origin.log" 2>/dev/null && break; sleep 0.1; done
if [ -n "$h2" ]; then
    for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
fi

idfa=8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13
email=alex.riviere@example.com
email64=$(printf '%s' "$email" | base64)
base="https://localhost:$port"
printf '{"user":{"email":"%s","phone":"+33 6 39 98 42 17"},"lat":45.764,"lon":4.8357}' "$email" | gzip -c > "$out/body.json.gz"

# One pass of the planted requests; $1: extra curl options (proxy, CA), the TLS variants rotate.
planted() {
    local suites=("--tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256" "--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256"
                  "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-AES256-GCM-SHA384"
                  "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305")
    local i=0
    send() {  # curl arguments...; the URL is last
        local tls=${suites[$((i % 4))]}
        i=$((i + 1))
        # shellcheck disable=SC2086
        timeout 20 curl -sS --max-time 10 $tls "${extra[@]}" "${common[@]}" "$@" -o /dev/null
    }
    send "$base/v1/open?advertiserId=$idfa&t=1"
    send -H "Content-Type: application/json" --data "{\"device\":{\"ifa\":\"$idfa\"},\"email\":\"$email\"}" "$base/events"
    send -H "X-IDFA: ${idfa,,}" "$base/config"
    send "$base/v2/id?e=$email64"
    send --data "lat=45.764&lng=4.8357&phone=%2B33639984217" "$base/geo"
    send -H "Content-Type: application/json" -H "Content-Encoding: gzip" --data-binary @"$out/body.json.gz" "$base/upload"
}
for u in "/v1/open?advertiserId=$idfa&t=1" /events /config "/v2/id?e=$email64" /geo /upload; do
    echo "$base$u" >> "$out/requests.txt"
done

# Direct, recorded.
unblocked tcpdump -i lo -U --immediate-mode -s 0 -B 65536 -w "$out/capture.pcap" "tcp port $port" 2>"$out/tcpdump.log" &
dump=$!
for _ in $(seq 1 50); do grep -q "listening on" "$out/tcpdump.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
common=(--cacert "$out/origin-ca.pem")
SSLKEYLOGFILE="$out/keys.log" planted
sleep 1  # let the last packets reach the file before tcpdump stops
kill -INT "$dump"
wait "$dump" 2>/dev/null || true
dump=""

# Through the proxy, into a session.
unblocked "$mouchard" proxy --listen "127.0.0.1:$proxy_port" --session "$out/proxy-session" --upstream-ca "$out/origin-ca.pem" \
    --home "$out/home" --threads 1 --quiet > "$out/proxy.log" 2>&1 &
proxy=$!
for _ in $(seq 1 100); do
    grep -q "proxy listening" "$out/proxy.log" 2>/dev/null && [ -f "$out/home/mouchard-ca.pem" ] && break
    sleep 0.1
done
common=(--cacert "$out/home/mouchard-ca.pem" -x "http://127.0.0.1:$proxy_port")
planted
kill -TERM "$proxy"
wait "$proxy" 2>/dev/null || true
proxy=""
cleanup
trap - EXIT
echo "record-direct-and-proxied: $(wc -l < "$out/requests.txt") requests each way, $(stat -c %s "$out/capture.pcap") bytes in $out/capture.pcap"
