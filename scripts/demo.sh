#!/usr/bin/env bash
# `make demo`: scan the bundled example capture with its device profile and show what leaked.
set -euo pipefail
bin=${1:-.build/debug/mouchard}
cd "$(dirname "$0")/.."
"$bin" --version
