#!/usr/bin/env bash
# Determinism on real-world inputs: every HAR and capture of a wild corpus (har/*.har, pcap/*.pcap*)
# goes RUNS times (default 10) through `scan --format json`, `report --out x.html` and
# `import` + `export --har`; each run's outputs (stdout, stderr, the written file, the exit status)
# are hashed and must equal the first run's. Prints one line per differing file and command, then
# `determinism: F files, C commands x R runs, D differing`. Exit status 1 when anything differs.
# Usage: scripts/wild-determinism.sh /path/to/mouchard [WILD_DIR (default ../shared/wild)] [RUNS]
set -uo pipefail
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: $0 /path/to/mouchard [WILD_DIR] [RUNS]" >&2; exit 64; }
bin=$(realpath "$1")
wild=${2:-$(dirname "$0")/../../shared/wild}
runs=${3:-10}
[ -d "$wild/har" ] && [ -d "$wild/pcap" ] || { echo "$0: no wild corpus at $wild (har/ and pcap/)" >&2; exit 64; }
wild=$(realpath "$wild")  # the runs below happen in a temporary folder
work=$(mktemp -d /tmp/mouchard-determinism.XXXXXX)
trap 'rm -rf "$work"' EXIT
export MOUCHARD_HOME="$work/home"
cd "$work" || exit 1

# The hash of what one command printed and wrote, with its exit status; the output file names are
# the same in every run so that messages naming them compare equal.
one_run() { # file → one line: scan-hash report-hash roundtrip-hash
  local f=$1 s r e
  s=$( { timeout 60 "$bin" scan "$f" --format json 2>&1; echo "status $?"; } | sha256sum | cut -c1-16)
  r=$( { timeout 60 "$bin" report "$f" --out out.html 2>&1; echo "status $?"; cat out.html 2>/dev/null; } | sha256sum | cut -c1-16)
  rm -rf session out.html out.har
  e=$( { timeout 60 "$bin" import "$f" --session "$work/session" 2>&1; echo "status $?";
         timeout 60 "$bin" export "$work/session" --har out.har 2>&1; echo "status $?"; cat out.har 2>/dev/null; } | sha256sum | cut -c1-16)
  echo "$s $r $e"
}

files=0; differing=0
for f in "$wild"/har/*.har "$wild"/pcap/*.pcap*; do
  [ -f "$f" ] || continue
  files=$((files + 1))
  first=$(one_run "$f")
  for _ in $(seq 2 "$runs"); do
    again=$(one_run "$f")
    if [ "$again" != "$first" ]; then
      read -r -a a <<< "$first"; read -r -a b <<< "$again"
      for i in 0 1 2; do
        [ "${a[$i]}" = "${b[$i]}" ] || { echo "differs: $(basename "$f") $(echo scan report import+export | cut -d' ' -f$((i + 1)))"; differing=$((differing + 1)); }
      done
      break
    fi
  done
done
echo "determinism: $files files, 3 commands x $runs runs, $differing differing"
[ "$differing" -eq 0 ]
