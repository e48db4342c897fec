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
# - the read-replica and failover tests of the PostgreSQL store on a primary with a hot standby
#   (scripts/postgres-cluster.sh, loopback ports; the failover tests start it afresh, stop or
#   kill its primary and promote its standby; without the cluster they report skipped).
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
# Read replicas and failover: the cluster's URIs in the environment, then its script.
bash scripts/postgres-cluster.sh stop
cluster="$(bash scripts/postgres-cluster.sh start)"
trap 'bash scripts/postgres-cluster.sh stop' EXIT
PERSISTENTSTORES_POSTGRES_PRIMARY_URL="$(awk '$1 == "primary" { print $2 }' <<<"$cluster")"
PERSISTENTSTORES_POSTGRES_STANDBY_URL="$(awk '$1 == "standby" { print $2 }' <<<"$cluster")"
export PERSISTENTSTORES_POSTGRES_PRIMARY_URL PERSISTENTSTORES_POSTGRES_STANDBY_URL
swift test --filter PostgreSQLReplicaTests
PERSISTENTSTORES_POSTGRES_CLUSTER_SCRIPT="$PWD/scripts/postgres-cluster.sh" swift test --filter PostgreSQLFailoverTests
bash scripts/postgres-cluster.sh stop
unset PERSISTENTSTORES_POSTGRES_PRIMARY_URL PERSISTENTSTORES_POSTGRES_STANDBY_URL
# The example's tests run on SQLite, and on PostgreSQL with a throwaway server.
PERSISTENTSTORES_POSTGRES_URL="$(bash scripts/postgres-scratch.sh start)"
trap 'bash scripts/postgres-scratch.sh stop' EXIT
PERSISTENTSTORES_POSTGRES_URL="$PERSISTENTSTORES_POSTGRES_URL" swift test --package-path Examples/LeagueService
