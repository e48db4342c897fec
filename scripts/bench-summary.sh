#!/usr/bin/env bash
# The summary of a benchmark run: every workload's figure with its target, from the `summary`
# lines the programs of Benchmarks/ print (BenchmarkSupport's `Summary`), compared with an
# earlier run's when one is given.
#
#   bash scripts/bench-summary.sh <results folder> [earlier results folder]
#
# Writes <results folder>/summary.tsv (workload, N, figure, unit, target, met) and
# <results folder>/summary.md (the Markdown table, also printed). With an earlier folder, each
# figure is shown beside the earlier one, and one that moved away from its target by more than
# 10 % (a cost up, a speed-up down) is marked `worse` and listed at the end. scripts/bench.sh
# runs it after the programs.
set -euo pipefail
folder="${1:?usage: bench-summary.sh <results folder> [earlier results folder]}"
earlier="${2:-}"
# The programs' outputs in the order they ran.
# shellcheck disable=SC2012 # the file names are the programs' names
grep -h $'^summary\t' $(ls -tr "$folder"/*.txt) 2>/dev/null | cut -f2- >"$folder/summary.tsv" || true
if [[ ! -s "$folder/summary.tsv" ]]; then
    echo "no summary lines in $folder/*.txt" >&2
    exit 1
fi
previous=/dev/null
if [[ -n "$earlier" ]]; then
    if [[ -f "$earlier/summary.tsv" ]]; then
        previous="$earlier/summary.tsv"
    else
        echo "no summary.tsv in $earlier: nothing to compare with" >&2
    fi
fi
awk -F '\t' -v compared="$([[ "$previous" != /dev/null ]] && echo 1 || echo 0)" '
    # The earlier run: figure by workload and size.
    compared && FILENAME == ARGV[1] { before[$1 "\t" $2] = $3; next }
    FNR == 1 {
        if (compared) {
            print "| workload | N | figure | target | met | earlier run | change |"
            print "|---|---:|---:|---|---|---:|---|"
        } else {
            print "| workload | N | figure | target | met |"
            print "|---|---:|---:|---|---|"
        }
    }
    {
        unit = ($4 == "x") ? "×" : " " $4
        figure = ($3 == "-") ? "–" : $3 unit
        target = ($5 == "-") ? "–" : $5 unit
        gsub("<=", "≤", target); gsub(">=", "≥", target)
        line = "| " $1 " | " $2 " | " figure " | " target " | " $6 " |"
        if (!compared) { print line; next }
        key = $1 "\t" $2
        if (!(key in before) || before[key] == "-" || $3 == "-") { print line " – | |"; next }
        was = before[key] + 0; now = $3 + 0
        change = (was == 0) ? "" : sprintf("%+.0f %%", (now / was - 1) * 100)
        # A speed-up (a target of at least) should not fall; every other figure is a cost.
        higherIsBetter = ($5 ~ /^>=/)
        worse = higherIsBetter ? (now < was / 1.1) : (now > was * 1.1)
        if (worse) { change = change " **worse**"; regressions[++count] = $1 " (N " $2 "): " was " → " now }
        print line " " was unit " | " change " |"
    }
    END {
        if (compared) {
            print ""
            if (count == 0) print "No figure moved away from its target by more than 10 % since the earlier run."
            else {
                print count " figure(s) moved away from the target by more than 10 % since the earlier run:"
                for (i = 1; i <= count; i++) print "- " regressions[i]
            }
        }
    }
' "$previous" "$folder/summary.tsv" | tee "$folder/summary.md"
