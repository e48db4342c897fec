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
# Harnesses: fuzz-binary fuzz-xml fuzz-pipecsv fuzz-predicate fuzz-predicate-diff fuzz-model
# fuzz-sqlite fuzz-modelcache
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
harnesses=(fuzz-binary fuzz-xml fuzz-pipecsv fuzz-predicate fuzz-predicate-diff fuzz-model fuzz-sqlite fuzz-modelcache)
# libFuzzer and AddressSanitizer report a failing input; Swift's own backtracer, which would
# run first on a trap, only gets in their way.
export SWIFT_BACKTRACE=enable=no
# Leaks that are not this project's (see the file).
export LSAN_OPTIONS="suppressions=$PWD/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

usage() {
    echo "usage: $0 <harness> <seconds> [libFuzzer flags…] | $0 --regressions" >&2
    echo "harnesses: ${harnesses[*]}" >&2
    exit 64
}

# Regression runs use the debug build (quick to build); fuzzing runs an optimized build with
# debug information, several times faster per input. Both have the fuzzer and address
# sanitizers (LeakSanitizer included).
debug_flags=(-c debug -Xswiftc -sanitize=fuzzer,address)
fuzz_flags=(-c release -Xswiftc -g -Xswiftc -sanitize=fuzzer,address)

# Flags every run shares: 10 s per input at most, 2 GiB of memory.
common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048)

# The longest input of each harness: store files and models up to 256 KiB; predicates up to
# 4 KiB (longer ones only repeat what the parser's limits already cover, and cost time per input).
harness_flags() {
    case "$1" in
        fuzz-predicate | fuzz-predicate-diff) echo "-max_len=4096" ;;
        *) echo "-max_len=262144" ;;
    esac
}

# Flags of one harness. The differential harness keeps stores for the whole run; LeakSanitizer
# takes some of their objects for leaks (pointers inside Swift enum payloads carry tag bits it
# does not follow), and libFuzzer's leak check reports everything it takes for a leak, so leaks
# are left to the other harnesses, which run the same code per input.
harness_env() {
    case "$1" in
        fuzz-predicate-diff) echo "ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;;
    esac
}

[[ $# -ge 1 ]] || usage
if [[ "$1" == "--regressions" ]]; then
    bash ../scripts/clean-stale-modules.sh Fuzz debug
    swift build "${debug_flags[@]}"
    bash ../scripts/clean-stale-modules.sh --stamp Fuzz debug
    bin="$(swift build "${debug_flags[@]}" --show-bin-path)"
    for harness in "${harnesses[@]}"; do
        mkdir -p "Regressions/$harness"
        echo "== $harness: $(ls "Corpus/$harness" | wc -l) seeds, $(ls "Regressions/$harness" | wc -l) regression inputs"
        status=0
        output="$(env $(harness_env "$harness") "$bin/$harness" "${common[@]}" $(harness_flags "$harness") -runs=0 \
            -artifact_prefix="$(mktemp -d)/" "Corpus/$harness" "Regressions/$harness" 2>&1)" || status=$?
        grep -E "INITED|Done" <<<"$output" || true
        if [[ $status -ne 0 ]]; then
            tail -n 60 <<<"$output"
            echo "$harness failed on a seed or regression input (status $status)" >&2
            exit "$status"
        fi
    done
    exit 0
fi

# Flags of a fuzzing run (not of the regression runs, which check leaks after every input).
# libFuzzer runs LeakSanitizer's scan of the whole heap after every input that ends with more
# allocations than frees; in the predicate and PipeCSV harnesses most inputs do (Foundation's own
# leaks for some regular expressions and for property lists that do not parse, see
# lsan-suppressions.txt), and in every harness the scan dominates the time of the inputs that
# trigger it (measured: 21 against 195 predicate inputs a second; 382 against 3,203 Binary
# inputs). Fuzzing runs skip the per-input scan; LeakSanitizer still checks the whole process
# when a run ends, and the regression runs check every input (docs/reliability.md).
fuzz_run_flags() {
    echo "-detect_leaks=0"
}

[[ $# -ge 2 ]] || usage
harness="$1"
seconds="$2"
shift 2
[[ " ${harnesses[*]} " == *" $harness "* ]] || usage
bash ../scripts/clean-stale-modules.sh Fuzz release
swift build "${fuzz_flags[@]}" --product "$harness"
bash ../scripts/clean-stale-modules.sh --stamp Fuzz release
bin="$(swift build "${fuzz_flags[@]}" --show-bin-path)"
mkdir -p ".build/corpus/$harness" ".build/findings/$harness" "Regressions/$harness"
exec env $(harness_env "$harness") "$bin/$harness" "${common[@]}" $(harness_flags "$harness") $(fuzz_run_flags "$harness") \
    -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=".build/findings/$harness/" "$@" \
    ".build/corpus/$harness" "Corpus/$harness" "Regressions/$harness"
