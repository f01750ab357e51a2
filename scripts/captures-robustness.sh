#!/usr/bin/env bash
# Crash and hang check of `mouchard scan` over a folder of captures (tcpdump's test suite by
# default: hundreds of captures, many malformed on purpose): each file is scanned once under
# `timeout`; prints `captures: N files, C crashes, G hangs, E stopped with an error, O ok` and the
# files that crashed or hung. Exit status 1 when any crashed or hung.
# Usage: scripts/captures-robustness.sh /path/to/mouchard [DIR (default ../shared/pcaps/tcpdump-tests)] [TIMEOUT_S (default 20)]
set -uo pipefail
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: $0 /path/to/mouchard [DIR] [TIMEOUT_S]" >&2; exit 64; }
bin=$(realpath "$1")
dir=${2:-$(dirname "$0")/../../shared/pcaps/tcpdump-tests}
limit=${3:-20}
[ -d "$dir" ] || { echo "$0: no captures at $dir" >&2; exit 64; }
work=$(mktemp -d /tmp/mouchard-robustness.XXXXXX)
trap 'rm -rf "$work"' EXIT
export MOUCHARD_HOME="$work/home"
files=0; crashes=0; hangs=0; errors=0; ok=0
for f in "$dir"/*.pcap "$dir"/*.pcapng "$dir"/*.cap; do
  [ -f "$f" ] || continue
  files=$((files + 1))
  timeout "$limit" "$bin" scan "$f" --format json >/dev/null 2>"$work/err"
  rc=$?
  if [ $rc -eq 124 ]; then hangs=$((hangs + 1)); echo "hang: $(basename "$f")"
  elif [ $rc -ge 128 ] || grep -qE "Fatal error|Stack dump|Segmentation fault" "$work/err"; then
    crashes=$((crashes + 1)); echo "crash ($rc): $(basename "$f")"
  elif [ $rc -eq 0 ]; then ok=$((ok + 1))
  else errors=$((errors + 1)); fi
done
echo "captures: $files files, $crashes crashes, $hangs hangs, $errors stopped with an error, $ok ok"
[ $crashes -eq 0 ] && [ $hangs -eq 0 ]
