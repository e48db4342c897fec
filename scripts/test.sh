#!/usr/bin/env bash
# Builds everything and runs the whole test suite, then runs the concurrency stress case
# (behaviour #63) again under Thread Sanitizer in its own build folder, then runs every fuzz
# harness of Fuzz/ once over its seeds and regression inputs (no fuzzing; docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
swift build --build-tests
swift test --skip-build
swift test --sanitize=thread --scratch-path .build-tsan --filter ConcurrencyStress
bash scripts/fuzz.sh --regressions
