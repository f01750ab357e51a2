#!/usr/bin/env bash
# Inspector throughput on the dev corpus replicated (release build, one core): MB/s of request data and
# requests/s, median of runs, with each device's full profile; add --pattern for pattern mode.
#   bench/inspect.sh [--pattern] [--no-prefilter] [--interleave] [--mb 64] [--runs 5]
# Each capture runs with its own profile, one after the other (as audits do); --interleave alternates them.
# To see where the time goes: --costliest 20 lists the requests that cost most (each inspected alone),
# --only TEXT keeps the requests whose URL holds TEXT (e.g. to run one kind under callgrind).
# --corpus sdk runs on the repository's own SDK corpus (Tests/Fixtures/sdk-corpus, four devices) instead of the
# dev corpus; --corpus DIR on any directory of <device>/traffic.har + <device>/device.json.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus/dev
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --corpus) corpus="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ "$corpus" = sdk ] && corpus=Tests/Fixtures/sdk-corpus
captures=()
for dir in "$corpus"/*/; do
  [ -f "$dir/traffic.har" ] && captures+=("${dir}traffic.har:${dir}device.json")
done
[ ${#captures[@]} -gt 0 ] || { echo "inspect.sh: no <device>/traffic.har in $corpus" >&2; exit 2; }
swift build -c release --product mouchard-bench >/dev/null
.build/release/mouchard-bench inspect "${args[@]+"${args[@]}"}" "${captures[@]}"
