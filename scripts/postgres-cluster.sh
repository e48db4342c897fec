#!/usr/bin/env bash
# A throwaway PostgreSQL primary with a hot standby (streaming replication), on loopback ports,
# for manual runs of replication and failover scenarios:
#
#   bash scripts/postgres-cluster.sh start     # prints the primary's and the standby's URIs
#   bash scripts/postgres-cluster.sh status    # each server's role and the standby's replay LSN
#   bash scripts/postgres-cluster.sh promote   # promotes the standby (after stopping the primary)
#   bash scripts/postgres-cluster.sh stop-primary  # stops the primary at once (no shutdown checkpoint)
#   bash scripts/postgres-cluster.sh kill-primary  # kill -9 of the primary's postmaster and its processes
#   bash scripts/postgres-cluster.sh stop      # stops both and removes their folder
#
# With PERSISTENTSTORES_CLUSTER_SYNCHRONOUS=1 at start, the primary commits synchronously: a
# COMMIT returns once the standby has written the commit (synchronous_standby_names='*'), so a
# save acknowledged before the primary dies is on the standby.
#
# The tests of read replicas and failover (Tests/PostgreSQLStoreTests/PostgreSQLReplicaTests
# and PostgreSQLFailoverTests) use it from scripts/ci-checks.sh.
# The primary listens on 127.0.0.1:${PERSISTENTSTORES_CLUSTER_PORT:-55432}, the standby on the
# next port; the standby is a pg_basebackup of the primary (-R: it streams from it, read-only,
# hot_standby on). Both servers trust local connections and run with fsync=off: they hold
# nothing worth keeping. Network namespaces are not used: the servers are separate processes
# on loopback ports. As root they run as the postgres user.
set -euo pipefail
# The servers outlive this script: they get none of the descriptors it inherited besides the
# standard ones (a test process's own sockets would otherwise stay open in them, and it would
# wait for them).
for fd in $(ls /proc/$$/fd); do
    if ((fd > 2)); then eval "exec $fd>&-"; fi
done
folder=/tmp/persistentstores-cluster-pg
port=${PERSISTENTSTORES_CLUSTER_PORT:-55432}
standby_port=$((port + 1))
bin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
as_server=()
if [[ "$(id -u)" -eq 0 ]]; then as_server=(runuser -u postgres --); fi
settings="-c listen_addresses=127.0.0.1 -k $folder -c fsync=off -c full_page_writes=off -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on"

if [[ "${PERSISTENTSTORES_CLUSTER_SYNCHRONOUS:-0}" == 1 ]]; then
    primary_settings="$settings -c synchronous_standby_names='*' -c synchronous_commit=on"
else
    primary_settings="$settings"
fi

uri() { echo "postgresql://postgres@127.0.0.1:$1/postgres"; }

case "${1:-}" in
    start)
        if [[ ! -d "$folder/primary" ]]; then
            mkdir -p "$folder"
            if [[ "$(id -u)" -eq 0 ]]; then chown postgres "$folder"; fi
            "${as_server[@]}" "$bin/initdb" -D "$folder/primary" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
            # Replication connections from loopback (initdb's trust rules cover local ones).
            echo "host replication postgres 127.0.0.1/32 trust" | "${as_server[@]}" tee -a "$folder/primary/pg_hba.conf" >/dev/null
        fi
        "${as_server[@]}" "$bin/pg_ctl" -D "$folder/primary" -l "$folder/primary.log" -w -o "-p $port $primary_settings" start >/dev/null
        if [[ ! -d "$folder/standby" ]]; then
            "${as_server[@]}" "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U postgres -D "$folder/standby" -R -X stream --no-sync >/dev/null
        fi
        "${as_server[@]}" "$bin/pg_ctl" -D "$folder/standby" -l "$folder/standby.log" -w -o "-p $standby_port $settings" start >/dev/null
        echo "primary $(uri "$port")"
        echo "standby $(uri "$standby_port")"
        ;;
    status)
        for p in "$port" "$standby_port"; do
            "$bin/psql" -h 127.0.0.1 -p "$p" -U postgres -d postgres -Atc \
                "SELECT '$p', CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END, pg_last_wal_replay_lsn()" 2>/dev/null ||
                echo "$p|down|"
        done
        ;;
    promote)
        "${as_server[@]}" "$bin/pg_ctl" -D "$folder/standby" -w promote >/dev/null
        echo "primary $(uri "$standby_port")"
        ;;
    stop-primary)
        "${as_server[@]}" "$bin/pg_ctl" -D "$folder/primary" -m immediate -w stop >/dev/null
        ;;
    kill-primary)
        # The postmaster first, then what it leaves (its children end when they notice).
        postmaster=$(head -n 1 "$folder/primary/postmaster.pid")
        children=$(pgrep -P "$postmaster" || true)
        kill -9 "$postmaster" $children
        ;;
    stop)
        for server in standby primary; do
            if [[ -d "$folder/$server" ]]; then "${as_server[@]}" "$bin/pg_ctl" -D "$folder/$server" -m fast stop >/dev/null 2>&1 || true; fi
        done
        rm -rf "$folder"
        ;;
    *)
        echo "usage: $0 start|status|promote|stop-primary|kill-primary|stop" >&2
        exit 64
        ;;
esac
