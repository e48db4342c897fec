#!/usr/bin/env bash
# Compares builds of one benchmark program on a noisy machine: runs each binary in turn, round
# after round, and prints per binary the median (and the range) of every `summary` line the
# program printed, so each build's ratios come from runs made under the same load.
#
#   bash scripts/bench-interleaved.sh <rounds> "<program arguments>" <binary> <binary>...
#
# e.g. two builds of SQLiteStoreBenchmark (one per commit, each built with
# `swift build -c release --package-path Benchmarks` in its own clone):
#   bash scripts/bench-interleaved.sh 8 "--only w1 --sizes 10000,100000 --runs 3 --no-grdb" old/SQLiteStoreBenchmark new/SQLiteStoreBenchmark
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 <rounds> \"<program arguments>\" <binary>..." >&2; exit 64; }
rounds="$1"
arguments="$2"
shift 2
lines="$(mktemp)"
trap 'rm -f "$lines"' EXIT
for ((round = 1; round <= rounds; round++)); do
    for binary in "$@"; do
        # shellcheck disable=SC2086 # the arguments are words
        "$binary" $arguments 2>&1 | awk -F'\t' -v binary="$binary" '$1 == "summary" { print binary "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' >> "$lines"
    done
done
python3 - "$lines" <<'PYTHON'
import collections, statistics, sys
figures = collections.defaultdict(list)
for line in open(sys.argv[1]):
    binary, label, size, value, unit = line.rstrip("\n").split("\t")
    try:
        number = float(value)
    except ValueError:
        continue  # a line with no figure ("-")
    figures[(label, size, unit, binary)].append(number)
for (label, size, unit, binary), values in sorted(figures.items()):
    print(f"{label} | {size} | {binary} | median {statistics.median(values):.3f} {unit} | {min(values):.3f}–{max(values):.3f} | {len(values)} runs")
PYTHON
