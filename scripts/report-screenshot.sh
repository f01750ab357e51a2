#!/usr/bin/env bash
# `make report-screenshot`: writes captures/dev-report.html (the dev corpus' iOS traffic, with its
# device profile) and captures/dev-report.png, a full-page screenshot by headless Chromium.
set -euo pipefail
bin=${1:-.build/release/mouchard}
cd "$(dirname "$0")/.."
dev=../shared/corpus/dev/ios
mkdir -p captures
"$bin" report "$dev/traffic.har" --device "$dev/device.json" --app "dev corpus (iOS)" --out captures/dev-report.html || true
test -s captures/dev-report.html
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --window-size=1280,${SCREENSHOT_HEIGHT:-4000} --screenshot="$PWD/captures/dev-report.png" \
  "file://$PWD/captures/dev-report.html" 2>/dev/null
echo "captures/dev-report.png"
