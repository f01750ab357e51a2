#!/usr/bin/env bash
# Report scale benchmark: summary + HTML/Markdown/JSON/SARIF of a synthetic 100,000-flow session
# (release build). Usage: bench/report.sh [FLOWS] [OUTDIR|-] [--inspect]
# Targets: under 10 s in total, HTML under 5 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product mouchard-bench >/dev/null
.build/release/mouchard-bench report "${1:-100000}" "${2:--}" ${3:+"$3"}
