# Sourced by the benchmarks that load a proxy: the HTTPS origin's test CA and certificate, a
# one-worker nginx origin answering a 97-byte body, and the helpers that start, wait for, measure
# and stop the proxies.

# origin_certificates DIR NAME IP: DIR/ca.pem (the CA to trust), DIR/srv.pem and DIR/srv.key (a
# P-256 certificate for NAME and IP signed by it).
origin_certificates() {
  local dir=$1 name=$2 ip=$3
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/ca.key" -out "$dir/ca.pem" \
    -days 2 -subj "/CN=bench origin CA" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/srv.key" -out "$dir/srv.csr" \
    -subj "/CN=$name" 2>/dev/null
  printf "subjectAltName=DNS:%s,IP:%s\nextendedKeyUsage=serverAuth\n" "$name" "$ip" > "$dir/ext.cnf"
  openssl x509 -req -in "$dir/srv.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -out "$dir/srv.pem" \
    -days 2 -extfile "$dir/ext.cnf" 2>/dev/null
}

# origin_nginx DIR HTTP_ADDR:PORT HTTPS_ADDR:PORT [http2]: starts nginx (plain HTTP on the first
# address, HTTPS with DIR/srv.pem on the second, offering h2 too with `http2`) and prints its pid.
origin_nginx() {
  local dir=$1 http=$2 https=$3 h2=${4:-}
  mkdir -p "$dir/nginx"
  cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $dir/nginx; proxy_temp_path $dir/nginx; fastcgi_temp_path $dir/nginx;
  uwsgi_temp_path $dir/nginx; scgi_temp_path $dir/nginx;
  server { listen $http; location / { return 200 "$(head -c 96 /dev/zero | tr '\0' 'x')\n"; } }
  server { listen $https ssl $h2; ssl_certificate $dir/srv.pem; ssl_certificate_key $dir/srv.key;
           location / { return 200 "$(head -c 96 /dev/zero | tr '\0' 'y')\n"; } }
}
CONF
  nginx -c "$dir/nginx.conf" -p "$dir/nginx"
  sleep 0.5
  cat "$dir/nginx.pid"
}

# peak_rss_mb PID...: the sum of VmHWM over the given pids and their children, in MB.
peak_rss_mb() {
  local total=0 p
  for p in $(for q in "$@"; do echo "$q"; pgrep -P "$q" 2>/dev/null || true; done | sort -u); do
    local kb; kb=$(awk '/VmHWM/{print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo $((total / 1024))
}

# wait_port PORT: waits (10 s at most) until something listens on 127.0.0.1:PORT.
wait_port() { for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open" >&2; return 1; }

# stop_proxy PID: SIGINT, then SIGKILL after 5 s.
stop_proxy() { kill -INT "$1" 2>/dev/null || true; for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; kill -9 "$1" 2>/dev/null || true; }
