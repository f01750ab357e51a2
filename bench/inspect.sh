#!/usr/bin/env bash
# Inspector throughput on the dev corpus replicated (release build, one core): MB/s of request data and
# requests/s, median of runs, with each device's full profile; add --pattern for pattern mode.
#   bench/inspect.sh [--pattern] [--no-prefilter] [--interleave] [--mb 64] [--runs 5]
# Each capture runs with its own profile, one after the other (as audits do); --interleave alternates them.
# To see where the time goes: --costliest 20 lists the requests that cost most (each inspected alone),
# --only TEXT keeps the requests whose URL holds TEXT (e.g. to run one kind under callgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus/dev
swift build -c release --product mouchard-bench >/dev/null
.build/release/mouchard-bench inspect "$@" \
  "$corpus/ios/traffic.har:$corpus/ios/device.json" "$corpus/android/traffic.har:$corpus/android/device.json"
