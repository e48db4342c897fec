#!/usr/bin/env bash
# The checks CI runs after the test command (scripts/test.sh), each in builds of its own:
# - the concurrency stress case (behaviour #63) and the concurrent-readers suites (SQLite's and
#   PostgreSQL's read pools) again under Thread Sanitizer, in their own build folder;
# - every fuzz harness of Fuzz/ once over its seeds and regression inputs (no fuzzing;
#   docs/reliability.md);
# - the DocC documentation of this package's modules, treating DocC warnings (such as broken
#   symbol links) as errors;
# - the tests of the example service (Examples/LeagueService, its own package: Hummingbird and
#   SwiftNIO are built there only), which start the server and make real HTTP requests, on
#   SQLite and on a throwaway PostgreSQL server (scripts/postgres-scratch.sh);
# (The PostgreSQL cluster tests — read replicas, failover, partitions — run in the test command,
# scripts/test.sh, which starts the cluster where the machine allows; they are not run again here.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh --tests
swift test --sanitize=thread --scratch-path .build-tsan --filter "ConcurrencyStress|ConcurrentReaders|PostgreSQLConcurrentReads"
bash scripts/fuzz.sh --regressions
# This package's own modules only: the dependencies' catalogs are theirs to keep.
documented=(StoreCore InMemoryStore SQLiteStore AtomicBinaryStore XMLStore PipeCSVStore PostgreSQLStore PersistentStores PersistentModels
    Conformance ModelConformance StoreConfiguration JSONFileStore DirectoryStore PersistenceService)
targets=()
for target in "${documented[@]}"; do targets+=(--target "$target"); done
# The DocC plugin is a dependency only with PERSISTENTSTORES_DOCC set (Package.swift).
PERSISTENTSTORES_DOCC=1 swift package --disable-sandbox generate-documentation --warnings-as-errors "${targets[@]}"
# The example's tests run on SQLite, and on PostgreSQL with a throwaway server.
PERSISTENTSTORES_POSTGRES_URL="$(bash scripts/postgres-scratch.sh start)"
trap 'bash scripts/postgres-scratch.sh stop' EXIT
PERSISTENTSTORES_POSTGRES_URL="$PERSISTENTSTORES_POSTGRES_URL" swift test --package-path Examples/LeagueService
