#!/usr/bin/env bash
# `make demo`: Mouchard's main job on the bundled example (captures/example, a fictional app on a
# fictional test phone): scan its traffic with the device profile, show what leaked, to whom and how
# it was hidden, then write the shareable HTML report.
set -euo pipefail
bin=${1:-.build/debug/mouchard}
cd "$(dirname "$0")/.."
example=captures/example
echo "\$ mouchard scan $example/traffic.har --device $example/device.json"
"$bin" scan "$example/traffic.har" --device "$example/device.json"
echo
echo "\$ mouchard report $example/traffic.har --device $example/device.json --app 'Lumo Torch' --out captures/example-report.html"
verdict=$("$bin" report "$example/traffic.har" --device "$example/device.json" --app "Lumo Torch" \
  --out captures/example-report.html)
echo "verdict: ${verdict%%$'\n'*}"
echo "report:  $PWD/captures/example-report.html"
