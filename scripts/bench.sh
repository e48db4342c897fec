#!/usr/bin/env bash
# Runs every workload of Benchmarks/ (W1–W13 of ../shared/specs/performance.md, the typed
# models' and the PostgreSQL store's) in release builds, keeps each program's output, and prints
# one summary table of every workload's figure against its target, compared with an earlier run.
#
#   bash scripts/bench.sh [sizes] [output folder] [earlier results folder]
#
# sizes: comma-separated object counts (default 10000,100000,1000000); W12 has its fixed size
# (3,417 persons), W13 runs at 100,000 as the spec asks, the typed models at the first size and
# PostgreSQL at the first two. Output: one .txt file per program in the folder (default
# Benchmarks/.build/results-<date>), printed as it runs, then summary.tsv and summary.md
# (scripts/bench-summary.sh). The earlier run compared with is the folder given, else the newest
# other results folder in Benchmarks/.build. The PostgreSQL benchmark runs on a throwaway
# server (scripts/postgres-scratch.sh) where one can be started, and is skipped, saying why,
# otherwise. Each program measures its baselines in the same run, so read the ratios; absolute
# times depend on the load.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="${1:-10000,100000,1000000}"
out="${2:-Benchmarks/.build/results-$(date -u +%Y%m%dT%H%M%SZ)}"
earlier="${3:-}"
if [[ -z "$earlier" ]]; then
    earlier="$(ls -d Benchmarks/.build/results-* 2>/dev/null | grep -v -x -F "$out" | sort | tail -n 1 || true)"
fi
mkdir -p "$out"
# This repository's own modules are built anew when the sources changed since the release
# folder was last built (scripts/clean-stale-modules.sh says why).
bash scripts/clean-stale-modules.sh Benchmarks release
# Every product of the package (one `swift build` builds only the last of several --product
# flags, so the whole package is built).
swift build -c release --package-path Benchmarks
bash scripts/clean-stale-modules.sh --stamp Benchmarks release
bin="$(swift build -c release --package-path Benchmarks --show-bin-path)"
positional="${sizes//,/ }"

run() {
    local name="$1"; shift
    echo "== $name $* ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" | tee "$out/$name.txt"
    "$bin/$name" "$@" 2>&1 | tee -a "$out/$name.txt"
}

# Medians of three runs (of nine for W13, whose two-thread rounds vary most): on two shared
# cores single runs moved ratios by a fifth between invocations, and W13 from three rounds
# between 0.70 and 1.26 within minutes (docs/benchmarks.md).
run SQLiteStoreBenchmark --sizes "$sizes" --runs 3        # W1–W6
run FetchRequestBenchmark --sizes "$sizes" --runs 3       # W3, W4: the fixed cost of a request
run FaultingBenchmark --sizes "$sizes" --runs 3           # W11, W12
run BinaryStoreBenchmark --sizes "$sizes" --runs 3        # W7
# shellcheck disable=SC2086 # the sizes are separate arguments
run XMLStoreBenchmark --runs 3 $positional    # W8
# shellcheck disable=SC2086
run PipeCSVStoreBenchmark --runs 3 $positional    # W9
# shellcheck disable=SC2086
run InMemoryStoreBenchmark $positional                    # W10, InMemory insert+save
run ConcurrentReadersBenchmark --size 100000 --runs 9     # W13
two="$(echo "$sizes" | cut -d, -f1-2)"
run TypedModelBenchmark --persons "${two%%,*}" --runs 3   # @Model ÷ by name (issue 33)
if url="$(bash scripts/postgres-scratch.sh start 2>&1)"; then
    run PostgreSQLStoreBenchmark --url "$url" --sizes "$two" --runs 3   # W1–W6 on PostgreSQL
    bash scripts/postgres-scratch.sh stop
else
    echo "PostgreSQLStoreBenchmark: skipped (no throwaway server: $url)" | tee "$out/PostgreSQLStoreBenchmark.txt"
    bash scripts/postgres-scratch.sh stop || true
fi
echo ""
echo "== summary (compared with ${earlier:-no earlier run})"
bash scripts/bench-summary.sh "$out" "$earlier"
echo "results in $out"
