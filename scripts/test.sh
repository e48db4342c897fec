#!/usr/bin/env bash
# The README's test command: builds everything once (debug) and runs the whole test suite.
# The extra checks CI adds after it (Thread Sanitizer, the fuzz regression inputs, DocC) are in
# scripts/ci-checks.sh; `.ci/run` runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh --tests
swift build --build-tests
swift test --skip-build
