#!/usr/bin/env bash
# `make demo`: scan the bundled example capture with its device profile and show what leaked.
set -euo pipefail
bin=${1:-.build/debug/mouchard}
cd "$(dirname "$0")/.."
"$bin" --version
# The privacy report of the bundled example (one self-contained HTML file).
verdict=$("$bin" report captures/example/traffic.har --device captures/example/device.json --app "Lumo Torch" \
  --out captures/example-report.html)
echo
echo "verdict: ${verdict%%$'\n'*}"
echo "report:  $PWD/captures/example-report.html"
