#!/usr/bin/env bash
# Tracker directory speed: load time of Rules/trackers.json and host lookups per second (release build).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product mouchard-bench >/dev/null
.build/release/mouchard-bench trackers-lookup Rules/trackers.json "${1:-2000000}"
