#!/usr/bin/env bash
# Runs the demo: the League scenario on the default store, printing teams and players before and
# after a cascade delete. Extra arguments go to `storectl demo` (see `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
swift run storectl demo "$@"
