#!/usr/bin/env bash
# A throwaway PostgreSQL primary with a hot standby (streaming replication) for the tests of read
# replicas, failover and partitions, and for manual runs:
#
#   bash scripts/postgres-cluster.sh start     # prints the network line and the primary's and the standby's URIs
#   bash scripts/postgres-cluster.sh status    # each server's role and the standby's replay LSN
#   bash scripts/postgres-cluster.sh promote   # promotes the standby (after stopping the primary)
#   bash scripts/postgres-cluster.sh stop-primary  # stops the primary at once (no shutdown checkpoint)
#   bash scripts/postgres-cluster.sh kill-primary  # kill -9 of the primary's postmaster and its processes
#   bash scripts/postgres-cluster.sh stop      # stops both, removes their folder, namespaces and links
#   bash scripts/postgres-cluster.sh network   # `namespaces` or `loopback: <why>`
#   bash scripts/postgres-cluster.sh app-start NAME     # a further host for an application instance; prints its address
#   bash scripts/postgres-cluster.sh app-exec NAME CMD… # runs CMD on that host (ip netns exec)
#   bash scripts/postgres-cluster.sh partition primary|standby|app-NAME  # cuts that host's link
#   bash scripts/postgres-cluster.sh heal primary|standby|app-NAME       # restores it
#
# `start` prints three lines: `network namespaces` (or `network loopback: <why>`), then
# `primary <URI>` and `standby <URI>`. It is idempotent: servers already running are left as they
# are and their URIs printed again. `stop` is idempotent too and always removes everything
# `start` and `app-start` made.
#
# Network. As root, with `ip netns` working (and PERSISTENTSTORES_CLUSTER_NETWORK not
# `loopback`), each server runs in a network namespace of its own (`psc-primary`,
# `psc-standby`), joined by a veth pair to a bridge (`psc-br`, 10.77.0.1/24) in the namespace
# the script runs in: the primary is 10.77.0.2, the standby 10.77.0.3, and the standby streams
# from the primary over those links. Processes of the calling namespace (the tests) reach both
# through the bridge. `app-start NAME` adds a namespace `psc-NAME` (10.77.0.10 and up) for an
# application instance run in it with `app-exec NAME …`. `partition X` sets the bridge's end
# of X's veth down (`ip link set … down`): X reaches nothing and nothing reaches X (connections
# stay open on both sides, their packets lost, until TCP or the servers give up); `heal X` sets
# it up again. Otherwise (not root, no `ip`, namespaces refused, or
# PERSISTENTSTORES_CLUSTER_NETWORK=loopback) the servers listen on 127.0.0.1, the partition
# commands and `app-start` fail saying why, and `app-exec` runs CMD as it is.
#
# With PERSISTENTSTORES_CLUSTER_SYNCHRONOUS=1 at start, the primary commits synchronously: a
# COMMIT returns once the standby has written the commit (synchronous_standby_names='*'), so a
# save acknowledged before the primary dies is on the standby.
#
# scripts/test.sh starts it (where the machine allows) for the cluster tests of
# Tests/PostgreSQLStoreTests (PostgreSQLClusterTests: replicas, failover, partitions);
# scripts/failover-kills.sh uses it for repeated kills of the primary.
# The primary listens on port ${PERSISTENTSTORES_CLUSTER_PORT:-55432}, the standby on the next
# port; the standby is a pg_basebackup of the primary (-R: it streams from it, read-only,
# hot_standby on). Both servers trust the cluster's connections and run with fsync=off: they
# hold nothing worth keeping. As root they run as the postgres user.
set -euo pipefail
# The servers outlive this script: they get none of the descriptors it inherited besides the
# standard ones (a test process's own sockets would otherwise stay open in them, and it would
# wait for them).
for fd in $(ls /proc/$$/fd); do
    if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
done
folder=/tmp/persistentstores-cluster-pg
port=${PERSISTENTSTORES_CLUSTER_PORT:-55432}
standby_port=$((port + 1))
bin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
as_server=()
if [[ "$(id -u)" -eq 0 ]]; then as_server=(runuser -u postgres --); fi
bridge=psc-br
subnet=10.77.0
primary_address=$subnet.2
standby_address=$subnet.3

# The network the cluster runs on: what `start` chose, else what it would choose now.
network() {
    if [[ -s "$folder/network" ]]; then
        cat "$folder/network"
    elif [[ "${PERSISTENTSTORES_CLUSTER_NETWORK:-auto}" == loopback ]]; then
        echo "loopback: PERSISTENTSTORES_CLUSTER_NETWORK=loopback"
    elif [[ "$(id -u)" -ne 0 ]]; then
        echo "loopback: network namespaces need root"
    elif ! command -v ip >/dev/null; then
        echo "loopback: no ip command (iproute2)"
    elif ! ip netns add psc-probe 2>/dev/null; then
        echo "loopback: ip netns add is refused here"
    else
        ip netns del psc-probe
        echo "namespaces"
    fi
}

# A host's namespace and the bridge's end of its veth.
namespace() { echo "psc-$1"; }
bridge_end() { echo "pscv-$1"; }

# Adds namespace psc-NAME with address ADDRESS, its veth's other end on the bridge.
add_host() {
    local name=$1 address=$2
    local space end
    space=$(namespace "$name")
    end=$(bridge_end "$name")
    ip netns add "$space"
    ip link add "$end" type veth peer name eth0 netns "$space"
    ip link set "$end" master "$bridge" up
    ip -n "$space" addr add "$address/24" dev eth0
    ip -n "$space" link set eth0 up
    ip -n "$space" link set lo up
}

# Removes every namespace, veth and the bridge this script made.
remove_network() {
    local space
    for space in $(ip netns list 2>/dev/null | awk '$1 ~ /^psc-/ { print $1 }'); do ip netns del "$space" 2>/dev/null || true; done
    for end in $(ip -o link show 2>/dev/null | awk -F': ' '$2 ~ /^pscv-/ { sub(/@.*/, "", $2); print $2 }'); do
        ip link del "$end" 2>/dev/null || true
    done
    ip link del "$bridge" 2>/dev/null || true
}

# Runs a server command on HOST (primary|standby): in its namespace when there are namespaces.
on_host() {
    local host=$1
    shift
    if [[ "$(cat "$folder/network")" == namespaces ]]; then
        ip netns exec "$(namespace "$host")" "${as_server[@]}" "$@"
    else
        "${as_server[@]}" "$@"
    fi
}

address() {
    if [[ "$(network)" == namespaces ]]; then
        if [[ $1 == primary ]]; then echo "$primary_address"; else echo "$standby_address"; fi
    else
        echo 127.0.0.1
    fi
}
uri() { echo "postgresql://postgres@$1:$2/postgres"; }
running() { [[ -f "$folder/$1/postmaster.pid" ]] && kill -0 "$(head -n 1 "$folder/$1/postmaster.pid")" 2>/dev/null; }

# The host names the partition commands take: primary, standby, app-NAME.
link_of() {
    case "$1" in
        primary | standby) bridge_end "$1" ;;
        app-*) bridge_end "${1#app-}" ;;
        *)
            echo "unknown host $1 (primary, standby or app-NAME)" >&2
            exit 64
            ;;
    esac
}
need_namespaces() {
    local current
    current=$(network)
    if [[ "$current" != namespaces ]]; then
        echo "$1 needs the cluster on network namespaces; it runs on $current" >&2
        exit 69
    fi
}

case "${1:-}" in
    start)
        mkdir -p "$folder"
        if [[ "$(id -u)" -eq 0 ]]; then chown postgres "$folder"; fi
        if [[ ! -s "$folder/network" ]]; then
            chosen=$(network)
            echo "$chosen" >"$folder/network"
        fi
        current=$(cat "$folder/network")
        if [[ "$current" == namespaces ]] && ! ip link show "$bridge" >/dev/null 2>&1; then
            remove_network
            ip link add "$bridge" type bridge
            ip addr add "$subnet.1/24" dev "$bridge"
            ip link set "$bridge" up
            add_host primary "$primary_address"
            add_host standby "$standby_address"
        fi
        primary_host=$(address primary)
        standby_host=$(address standby)
        settings="-c listen_addresses=$primary_host -k $folder -c fsync=off -c full_page_writes=off -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on"
        standby_settings="${settings/listen_addresses=$primary_host/listen_addresses=$standby_host}"
        if [[ "${PERSISTENTSTORES_CLUSTER_SYNCHRONOUS:-0}" == 1 ]]; then
            primary_settings="$settings -c synchronous_standby_names='*' -c synchronous_commit=on"
        else
            primary_settings="$settings"
        fi
        if [[ ! -d "$folder/primary" ]]; then
            "${as_server[@]}" "$bin/initdb" -D "$folder/primary" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
            # Connections and replication from the cluster's hosts (initdb's trust rules cover
            # local ones).
            {
                echo "host replication postgres 127.0.0.1/32 trust"
                echo "host all postgres $subnet.0/24 trust"
                echo "host replication postgres $subnet.0/24 trust"
            } | "${as_server[@]}" tee -a "$folder/primary/pg_hba.conf" >/dev/null
        fi
        if ! running primary; then
            on_host primary "$bin/pg_ctl" -D "$folder/primary" -l "$folder/primary.log" -w -o "-p $port $primary_settings" start >/dev/null
        fi
        if [[ ! -d "$folder/standby" ]]; then
            on_host standby "$bin/pg_basebackup" -h "$primary_host" -p "$port" -U postgres -D "$folder/standby" -R -X stream --no-sync >/dev/null
        fi
        if ! running standby; then
            on_host standby "$bin/pg_ctl" -D "$folder/standby" -l "$folder/standby.log" -w -o "-p $standby_port $standby_settings" start >/dev/null
        fi
        echo "network $current"
        echo "primary $(uri "$primary_host" "$port")"
        echo "standby $(uri "$standby_host" "$standby_port")"
        ;;
    status)
        for server in primary standby; do
            if [[ $server == primary ]]; then p=$port; else p=$standby_port; fi
            "$bin/psql" -h "$(address "$server")" -p "$p" -U postgres -d postgres -Atc \
                "SELECT '$p', CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END, pg_last_wal_replay_lsn()" 2>/dev/null ||
                echo "$p|down|"
        done
        ;;
    network)
        network
        ;;
    promote)
        "${as_server[@]}" "$bin/pg_ctl" -D "$folder/standby" -w promote >/dev/null
        echo "primary $(uri "$(address standby)" "$standby_port")"
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
    app-start)
        need_namespaces app-start
        name=${2:-}
        if [[ ! "$name" =~ ^[a-z0-9]{1,10}$ ]]; then
            echo "app-start NAME: NAME is 1 to 10 lowercase letters and digits" >&2
            exit 64
        fi
        if [[ ! -e "/run/netns/$(namespace "$name")" ]]; then
            # The next free address from .10 on.
            used=0
            if [[ -f "$folder/apps" ]]; then used=$(wc -l <"$folder/apps"); fi
            echo "$name" >>"$folder/apps"
            add_host "$name" "$subnet.$((10 + used))"
        fi
        line=$(grep -nx "$name" "$folder/apps" | head -n 1 | cut -d: -f1)
        echo "app $name $subnet.$((9 + line))"
        ;;
    app-exec)
        name=${2:-}
        shift 2
        if [[ "$(network)" == namespaces ]]; then
            exec ip netns exec "$(namespace "$name")" "$@"
        else
            exec "$@"
        fi
        ;;
    partition | heal)
        need_namespaces "$1"
        end=$(link_of "${2:-}")
        if [[ $1 == partition ]]; then ip link set "$end" down; else ip link set "$end" up; fi
        ;;
    stop)
        for server in standby primary; do
            if [[ -d "$folder/$server" ]]; then "${as_server[@]}" "$bin/pg_ctl" -D "$folder/$server" -m fast stop >/dev/null 2>&1 || true; fi
        done
        # A server whose host was cut off or killed may not stop when asked.
        for server in standby primary; do
            if [[ -f "$folder/$server/postmaster.pid" ]]; then
                postmaster=$(head -n 1 "$folder/$server/postmaster.pid")
                if kill -0 "$postmaster" 2>/dev/null; then kill -9 "$postmaster" $(pgrep -P "$postmaster" || true) 2>/dev/null || true; fi
            fi
        done
        if [[ "$(id -u)" -eq 0 ]] && command -v ip >/dev/null; then remove_network; fi
        rm -rf "$folder"
        ;;
    *)
        echo "usage: $0 start|status|network|promote|stop-primary|kill-primary|app-start NAME|app-exec NAME CMD…|partition HOST|heal HOST|stop" >&2
        exit 64
        ;;
esac
