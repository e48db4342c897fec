#!/usr/bin/env bash
# Runs every workload of Benchmarks/ (W1–W13 of ../shared/specs/performance.md) in release
# builds and keeps each program's output, for docs/benchmarks.md.
#
#   bash scripts/bench.sh [sizes] [output folder]
#
# sizes: comma-separated object counts (default 10000,100000,1000000); W12 has its fixed size
# (3,417 persons) and W13 runs at 100,000 as the spec asks. Output: one .txt file per program in
# the folder (default Benchmarks/.build/results-<date>), printed as it runs. Each program
# measures its baselines in the same run, so read the ratios; absolute times depend on the load.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="${1:-10000,100000,1000000}"
out="${2:-Benchmarks/.build/results-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
# Every product of the package (one `swift build` builds only the last of several --product
# flags, so the whole package is built).
swift build -c release --package-path Benchmarks
bin="$(swift build -c release --package-path Benchmarks --show-bin-path)"
positional="${sizes//,/ }"

run() {
    local name="$1"; shift
    echo "== $name $* ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" | tee "$out/$name.txt"
    "$bin/$name" "$@" 2>&1 | tee -a "$out/$name.txt"
}

run SQLiteStoreBenchmark --sizes "$sizes" --runs 1        # W1–W6
run FetchRequestBenchmark --sizes "$sizes" --runs 3       # W3, W4: the fixed cost of a request
run FaultingBenchmark --sizes "$sizes" --runs 1           # W11, W12
run BinaryStoreBenchmark --sizes "$sizes" --runs 1        # W7
# shellcheck disable=SC2086 # the sizes are separate arguments
run XMLStoreBenchmark --runs 1 $positional    # W8
# shellcheck disable=SC2086
run PipeCSVStoreBenchmark --runs 1 $positional    # W9
# shellcheck disable=SC2086
run InMemoryStoreBenchmark $positional                    # W10, InMemory insert+save
run ConcurrentReadersBenchmark --size 100000 --runs 3     # W13
echo "results in $out"
