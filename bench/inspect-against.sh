#!/usr/bin/env bash
# The inspector of this build against another build's (a `mouchard-bench` binary built from another
# commit, e.g. main's), in the same run, alternating, on the repository's SDK corpus (four devices,
# each with its profile): median MB/s of each, and the ratio.
#   bench/inspect-against.sh BASE_MOUCHARD_BENCH [--rounds 3] [--runs 5]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/inspect-against.sh BASE_MOUCHARD_BENCH [--rounds N] [--runs N]}
shift
rounds=3 runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "inspect-against.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
captures=()
for dir in Tests/Fixtures/sdk-corpus/*/; do captures+=("${dir}traffic.har:${dir}device.json"); done
swift build -c release --product mouchard-bench >/dev/null
mine=.build/release/mouchard-bench
rate() { "$1" inspect --runs "$runs" "${captures[@]}" 2>&1 | tail -1 | sed -n 's/.*median \([0-9.]*\) MB\/s.*/\1/p'; }
a=() b=()
for _ in $(seq "$rounds"); do
  a+=("$(rate "$base")")
  b+=("$(rate "$mine")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ma=$(median "${a[@]}") mb=$(median "${b[@]}")
echo "base  ${a[*]} MB/s (median $ma)"
echo "this  ${b[*]} MB/s (median $mb)"
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "ratio this/base: %.2f\n", b / a }'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
