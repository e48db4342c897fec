#!/usr/bin/env bash
# Kills the primary with kill -9 under synchronous commit N times (default 50), each time on a
# fresh cluster, and counts what happened to the saves:
#
#   bash scripts/failover-kills.sh [N]
#
# Each run is the test PostgreSQLFailoverTests/noAcknowledgedSaveIsLostWhenThePrimaryIsKilled…
# (Tests/PostgreSQLStoreTests) in a test process of its own: it starts the cluster afresh
# (scripts/postgres-cluster.sh, PERSISTENTSTORES_CLUSTER_SYNCHRONOUS=1; on network namespaces
# as root), saves one new row per save from a thread through a read-write multi-host URI, kills
# the primary's postmaster and its processes with kill -9 after 30 acknowledged saves, promotes
# the standby, saves 20 more on it, and compares on the promoted server. Per run it prints the
# saves acknowledged (and before the kill), the saves that failed and those that failed in
# doubt (134040, and how many of those were committed), the rows found, the rows found twice
# (duplicates) and the acknowledged saves not found (lost), and whether the test's checks held;
# then the totals. Each run's output is kept in a folder it names. Needs the tests built
# (swift build --build-tests; each run starts the test binary itself, or the one in
# PERSISTENTSTORES_TEST_BINARY, without SwiftPM) and what the cluster script needs (root or the
# postgres user, PostgreSQL installed). Exits 1 when a save was lost or doubled or a run's checks
# failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cluster-environment.sh
runs=${1:-50}
tests=${PERSISTENTSTORES_TEST_BINARY:-$(swift build --show-bin-path)/PersistentStoresPackageTests.xctest}
logs=$(mktemp -d /tmp/failover-kills.XXXXXX)
bash scripts/postgres-cluster.sh stop
cluster=$(bash scripts/postgres-cluster.sh start)
trap 'bash scripts/postgres-cluster.sh stop' EXIT
export_cluster_environment "$cluster"
echo "network $PERSISTENTSTORES_POSTGRES_CLUSTER_NETWORK; $runs runs; each run's output in $logs"
keys=(acknowledged before-kill failed in-doubt in-doubt-committed rows duplicates lost)
declare -A total
for key in "${keys[@]}"; do total[$key]=0; done
passed=0
printf '%4s %12s %11s %6s %8s %18s %5s %10s %4s %7s\n' run "${keys[@]}" checks
for ((run = 1; run <= runs; run++)); do
    log="$logs/run-$run.log"
    status=0
    "$tests" --testing-library swift-testing --filter 'noAcknowledgedSaveIsLostWhenThePrimaryIsKilledUnderSynchronousCommit' >"$log" 2>&1 || status=$?
    counts=$(grep -o 'acknowledged=.*' "$log" | head -n 1 || true)
    if [[ -z "$counts" ]] || ! grep -q 'Test run with 1 test.* passed' "$log"; then status=1; fi
    row=()
    for key in "${keys[@]}"; do
        value=$(grep -o "\\b$key=[0-9]*" <<<"$counts" | head -n 1 | cut -d= -f2)
        value=${value:--}
        row+=("$value")
        if [[ "$value" != - ]]; then total[$key]=$((total[$key] + value)); fi
    done
    if ((status == 0)); then
        result=passed
        passed=$((passed + 1))
    else
        result=FAILED
    fi
    printf '%4s %12s %11s %6s %8s %18s %5s %10s %4s %7s\n' "$run" "${row[@]}" "$result"
done
row=()
for key in "${keys[@]}"; do row+=("${total[$key]}"); done
printf '%4s %12s %11s %6s %8s %18s %5s %10s %4s %7s\n' all "${row[@]}" "$passed/$runs"
if ((passed != runs || total[lost] != 0 || total[duplicates] != 0)); then exit 1; fi
