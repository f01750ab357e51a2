#!/bin/sh
# `mouchard scan` of a large capture against tshark on the same file, in the same run, alternating:
#   mouchard scan FILE --format json                       (pattern mode: no device profile)
#   mouchard scan FILE --device DEVICE --format json       (profile mode)
#   tshark -r FILE -Y http.request -T fields -e http.host -e http.request.uri
# each ROUNDS times in turn; prints each one's median wall time and MB/s, and how many times
# faster than tshark each mouchard mode is (ratio of the medians), in wall time and in CPU time
# (user + system: on a shared machine, what the other processes take changes wall time most).
# The capture is synthesized by bench/make_http_capture.py (deterministic cleartext HTTP).
# usage: bench/scan-vs-tshark.sh [SIZE_MB] [ROUNDS] [WORKDIR]     (defaults: 200, 3, a fresh temporary directory)
set -eu
cd "$(dirname "$0")/.."
size=${1:-200}
rounds=${2:-3}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
command -v tshark >/dev/null || { echo "scan-vs-tshark.sh: tshark is not installed" >&2; exit 2; }
device=${MOUCHARD_CORPORA:-../shared}/corpus/dev/ios/device.json
[ -f "$device" ] || device=captures/example/device.json
swift build -c release --product mouchard >/dev/null
capture="$work/http-$size.pcap"
[ -f "$capture" ] || python3 bench/make_http_capture.py "$capture" "$size" >/dev/null
bytes=$(stat -L -c %s "$capture")
echo "capture: $capture ($(echo "$bytes" | awk '{printf "%.0f", $1/1e6}') MB), $rounds rounds, device $device"

seconds() { # command... -> "wall,cpu" seconds on stdout (the command's output discarded)
  /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" > "$work/out.txt" 2> "$work/err.txt" || { echo "failed: $*" >&2; cat "$work/err.txt" >&2; exit 1; }
  awk '{printf "%s,%.2f", $1, $2 + $3}' "$work/time.txt"
}
pattern="" profile="" tshark=""
for _ in $(seq "$rounds"); do
  pattern="$pattern $(seconds .build/release/mouchard scan "$capture" --format json)"
  profile="$profile $(seconds .build/release/mouchard scan "$capture" --device "$device" --format json)"
  tshark="$tshark $(seconds tshark -r "$capture" -Y http.request -T fields -e http.host -e http.request.uri)"
done
wall() { printf '%s\n' $1 | cut -d, -f1 | tr '\n' ' '; }
cpu() { printf '%s\n' $1 | cut -d, -f2 | tr '\n' ' '; }
median() { printf '%s\n' $1 | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
report() { # name, times
  m=$(median "$2")
  printf "%-16s %s s  (median %.2f s, %.1f MB/s)\n" "$1" "$2" "$m" "$(echo "$bytes $m" | awk '{printf "%.1f", $1/1e6/$2}')"
}
echo "wall time:"
report "mouchard pattern" "$(wall "$pattern")"
report "mouchard profile" "$(wall "$profile")"
report "tshark" "$(wall "$tshark")"
echo "CPU time:"
report "mouchard pattern" "$(cpu "$pattern")"
report "mouchard profile" "$(cpu "$profile")"
report "tshark" "$(cpu "$tshark")"
ratio() { echo "$(median "$1") $(median "$2")" | awk '{printf "%.1f", $1/$2}'; }
echo "tshark / mouchard, wall: pattern $(ratio "$(wall "$tshark")" "$(wall "$pattern")")x, profile $(ratio "$(wall "$tshark")" "$(wall "$profile")")x"
echo "tshark / mouchard, CPU:  pattern $(ratio "$(cpu "$tshark")" "$(cpu "$pattern")")x, profile $(ratio "$(cpu "$tshark")" "$(cpu "$profile")")x"
