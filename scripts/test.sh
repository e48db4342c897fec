#!/usr/bin/env bash
# The README's test command: builds everything once (debug) and runs the whole test suite.
# The extra checks CI adds after it (Thread Sanitizer, the fuzz regression inputs, DocC) are in
# scripts/ci-checks.sh; `.ci/run` runs both.
#
# The PostgreSQL cluster tests (PostgreSQLClusterTests: read replicas, failover, partitions) need
# a primary with a hot standby: where the machine allows (root or the postgres user, PostgreSQL
# installed) this starts one with scripts/postgres-cluster.sh before the tests — as root on
# network namespaces, each server a host of its own, else on loopback ports — and stops it after;
# it says which, or why not (those tests then report skipped, saying why). With
# PERSISTENTSTORES_POSTGRES_PRIMARY_URL and PERSISTENTSTORES_POSTGRES_STANDBY_URL already set,
# the tests use that cluster instead.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cluster-environment.sh
bash scripts/ensure-deps.sh --tests
swift build --build-tests
if [[ -n "${PERSISTENTSTORES_POSTGRES_PRIMARY_URL:-}" ]]; then
    echo "cluster tests: on the cluster given in PERSISTENTSTORES_POSTGRES_PRIMARY_URL and PERSISTENTSTORES_POSTGRES_STANDBY_URL"
elif [[ "$(id -u)" -ne 0 && "$(id -un)" != postgres ]]; then
    echo "cluster tests: skipped (starting a cluster needs root or the postgres user)"
elif ! command -v pg_config >/dev/null && ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
    echo "cluster tests: skipped (no PostgreSQL server binaries)"
else
    bash scripts/postgres-cluster.sh stop
    if cluster="$(bash scripts/postgres-cluster.sh start 2>&1)"; then
        trap 'bash scripts/postgres-cluster.sh stop' EXIT
        export_cluster_environment "$cluster"
        echo "cluster tests: network $PERSISTENTSTORES_POSTGRES_CLUSTER_NETWORK, primary $PERSISTENTSTORES_POSTGRES_PRIMARY_URL, standby $PERSISTENTSTORES_POSTGRES_STANDBY_URL"
    else
        echo "cluster tests: skipped (scripts/postgres-cluster.sh start failed: $cluster)"
        bash scripts/postgres-cluster.sh stop
    fi
fi
swift test --skip-build
