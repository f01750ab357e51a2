#!/bin/sh
# HTTP/1 parser throughput: builds mouchard-bench in release mode and runs the `wire` benchmark
# (requests and responses from the dev corpus HARs plus synthetic traffic, ~100 MB each, fed in
# 16 KiB pieces, median of 5 runs). Extra arguments go to the benchmark: --mb N, --chunk BYTES.
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product mouchard-bench
exec .build/release/mouchard-bench wire --corpus ../shared/corpus/dev "$@"
