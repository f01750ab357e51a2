#!/bin/sh
# Sniffer speed: synthesizes a >= 300 MB pcap of cleartext HTTP (bench/make_http_capture.py,
# deterministic), then times, on the same file:
#   mouchard scan FILE --device ... --format json   (reader + reassembly + HTTP + inspection)
#   mouchard-bench sniff-extract FILE               (the sniffer alone: reader + reassembly + HTTP/DNS/TLS)
#   tshark -r FILE -Y http.request -T fields -e http.host -e http.request.uri
#   tcpdump -r FILE -w /dev/null                      (the floor: just reading records)
# and prints MB/s and peak RSS (/usr/bin/time -v) for each.
# usage: bench/sniff.sh [SIZE_MB] [WORKDIR]     (defaults: 320, a fresh temporary directory)
set -eu
cd "$(dirname "$0")/.."
size=${1:-320}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
swift build -c release --product mouchard >/dev/null
swift build -c release --product mouchard-bench >/dev/null
capture="$work/http-$size.pcap"
[ -f "$capture" ] || python3 bench/make_http_capture.py "$capture" "$size"
bytes=$(stat -L -c %s "$capture")
echo "capture: $capture ($(echo "$bytes" | awk '{printf "%.0f", $1/1e6}') MB)"

measure() { # name, command...
  name=$1; shift
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out.txt" 2> "$work/err.txt" || { echo "$name failed"; cat "$work/err.txt"; exit 1; }
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
  printf "%-10s %8.2f s  %8.1f MB/s  peak RSS %5s MB\n" "$name" "$secs" "$(echo "$bytes $secs" | awk '{printf "%.1f", $1/1e6/$2}')" "$rss"
}

measure mouchard .build/release/mouchard scan "$capture" --device ../shared/corpus/dev/ios/device.json --format json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f'  mouchard: {d[\"requests\"]} requests, {len(d[\"findings\"])} findings, {len(d.get(\"destinations\", []))} destinations')" "$work/out.txt"
measure extract .build/release/mouchard-bench sniff-extract "$capture"
echo "  extraction only (no inspection, no JSON): $(head -1 "$work/out.txt")"
measure tshark tshark -r "$capture" -Y http.request -T fields -e http.host -e http.request.uri
echo "  tshark: $(wc -l < "$work/out.txt") request frames"
measure tcpdump tcpdump -r "$capture" -w /dev/null
