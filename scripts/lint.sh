#!/usr/bin/env bash
# `make lint`: style (swift format, configured by .swift-format), declared imports, and a build of
# the sources and tests with warnings as errors.
#
# swift format's lint has two parts: its rules (naming, literals, access levels, ...; the ones the
# code does not follow are off in .swift-format) and its pretty printer's layout diagnostics
# (Indentation, AddLines, RemoveLine, Spacing, TrailingComma, LineLength). The code is laid out by
# hand (aligned continuation lines, one-line bodies), which the pretty printer would rewrite
# wholesale, so the layout diagnostics are not enforced; every rule diagnostic fails the lint
# (--strict turns warnings into failures).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
status=0

report=$(mktemp)
trap 'rm -f "$report"' EXIT
$SWIFT format lint --strict --parallel --recursive Sources Tests bench/Sources Package.swift 2>"$report" || true
layout='\[(Indentation|AddLines|RemoveLine|Spacing|TrailingComma|LineLength)\]'
if grep -vE "$layout" "$report" | grep -E 'warning:|error:'; then
    echo "lint: swift format found the problems above (configuration: .swift-format)" >&2
    status=1
fi

if ! $SWIFT package dump-package | python3 scripts/check-imports.py; then
    echo "lint: declare the modules above in Package.swift" >&2
    status=1
fi

# A build directory of its own: other compiler flags than `swift build`'s, whose build stays valid.
if ! $SWIFT build --build-tests --scratch-path .build/lint -Xswiftc -warnings-as-errors; then
    echo "lint: the build has warnings (treated as errors)" >&2
    status=1
fi
exit $status
