#!/usr/bin/env bash
# The kill test of every store type that persists (SQLite, Binary, XML, PipeCSV), with more
# kills than the test command makes: a child process saves generation after generation while
# it is killed with SIGKILL at random moments, and after each kill the store must reopen with
# one complete generation (docs/reliability.md).
#
#   bash scripts/kill-test.sh [kills-per-store-type]    (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
kills="${1:-60}"
bash scripts/ensure-deps.sh
swift build --build-tests
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
PERSISTENTSTORES_CRASH_KILLS="$kills" swift test --skip-build --filter 'CrashTests' >"$log" 2>&1 || status=$?
# One line per store type with its counts, then the verdict.
grep -E 'crash test:' "$log" || true
grep -E 'Test run with|✘' "$log" || true
exit "$status"
