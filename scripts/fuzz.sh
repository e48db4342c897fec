#!/usr/bin/env bash
# Runs the fuzz harnesses of Fuzz/ (docs/reliability.md).
#
#   bash scripts/fuzz.sh <harness> <seconds> [libFuzzer flags…]
#       fuzzes one harness for that long. New interesting inputs go to
#       Fuzz/.build/corpus/<harness> (kept between runs, not committed); a crash, leak, timeout
#       or broken property leaves its input in Fuzz/.build/findings/<harness>/ and the run stops
#       with a non-zero status. Copy such an input to Fuzz/Regressions/<harness>/ once fixed.
#   bash scripts/fuzz.sh --regressions
#       runs every harness once over its seeds (Fuzz/Corpus/<harness>) and regression inputs
#       (Fuzz/Regressions/<harness>) and nothing else: what the test command runs.
#
# Harnesses: fuzz-binary fuzz-xml fuzz-pipecsv fuzz-predicate fuzz-model fuzz-sqlite
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
harnesses=(fuzz-binary fuzz-xml fuzz-pipecsv fuzz-predicate fuzz-model fuzz-sqlite)

usage() {
    echo "usage: $0 <harness> <seconds> [libFuzzer flags…] | $0 --regressions" >&2
    echo "harnesses: ${harnesses[*]}" >&2
    exit 64
}

build() { swift build -c debug -Xswiftc -sanitize=fuzzer,address "$@"; }

# Flags every run shares: inputs up to 256 KiB, 10 s per input at most, 2 GiB of memory.
common=(-max_len=262144 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048)

[[ $# -ge 1 ]] || usage
if [[ "$1" == "--regressions" ]]; then
    build
    for harness in "${harnesses[@]}"; do
        mkdir -p "Regressions/$harness"
        echo "== $harness: $(ls "Corpus/$harness" | wc -l) seeds, $(ls "Regressions/$harness" | wc -l) regression inputs"
        ".build/debug/$harness" "${common[@]}" -runs=0 "Corpus/$harness" "Regressions/$harness" 2>&1 | grep -E "INITED|Done|ERROR|SUMMARY|property failed" || true
        # grep hides libFuzzer's status; run again silently to get it (fast: -runs=0).
        ".build/debug/$harness" "${common[@]}" -runs=0 "Corpus/$harness" "Regressions/$harness" >/dev/null 2>&1
    done
    exit 0
fi

[[ $# -ge 2 ]] || usage
harness="$1"
seconds="$2"
shift 2
[[ " ${harnesses[*]} " == *" $harness "* ]] || usage
build --product "$harness"
mkdir -p ".build/corpus/$harness" ".build/findings/$harness" "Regressions/$harness"
exec ".build/debug/$harness" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=".build/findings/$harness/" "$@" \
    ".build/corpus/$harness" "Corpus/$harness" "Regressions/$harness"
