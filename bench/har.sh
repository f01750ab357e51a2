#!/bin/sh
# HAR codec and session store throughput (release build).
#   bench/har.sh [FLOWS]      default 20000 flows (the ios dev corpus repeated)
# Prints HAR read/write MB/s, then the time of `mouchard import` (one transaction per flow)
# and `mouchard export` of that many flows.
set -eu
cd "$(dirname "$0")/.."
FLOWS=${1:-20000}
swift build -c release --product mouchard-bench >/dev/null
swift build -c release --product mouchard >/dev/null
BIN=.build/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN/mouchard-bench" har "$FLOWS" --out "$WORK/big.har"
start=$(date +%s.%N)
"$BIN/mouchard" import "$WORK/big.har" --session "$WORK/s" >/dev/null
mid=$(date +%s.%N)
"$BIN/mouchard" export "$WORK/s" --har "$WORK/out.har" >/dev/null
end=$(date +%s.%N)
awk -v n="$FLOWS" -v a="$start" -v b="$mid" -v c="$end" -v db="$(stat -c %s "$WORK/s/session.sqlite")" 'BEGIN {
  printf "import: %d flows in %.2f s (%.0f flows/s), session.sqlite %.1f MB\n", n, b - a, n / (b - a), db / 1e6
  printf "export: %d flows in %.2f s (%.0f flows/s)\n", n, c - b, n / (c - b) }'
