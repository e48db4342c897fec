# Sourced by scripts/test.sh and scripts/failover-kills.sh: exports the variables the cluster
# tests read from what `scripts/postgres-cluster.sh start` printed ("primary URI", "standby
# URI", "network …" lines).
export_cluster_environment() {
    PERSISTENTSTORES_POSTGRES_PRIMARY_URL="$(awk '$1 == "primary" { print $2 }' <<<"$1")"
    PERSISTENTSTORES_POSTGRES_STANDBY_URL="$(awk '$1 == "standby" { print $2 }' <<<"$1")"
    PERSISTENTSTORES_POSTGRES_CLUSTER_NETWORK="$(sed -n 's/^network //p' <<<"$1")"
    PERSISTENTSTORES_POSTGRES_CLUSTER_SCRIPT="$PWD/scripts/postgres-cluster.sh"
    export PERSISTENTSTORES_POSTGRES_PRIMARY_URL PERSISTENTSTORES_POSTGRES_STANDBY_URL
    export PERSISTENTSTORES_POSTGRES_CLUSTER_NETWORK PERSISTENTSTORES_POSTGRES_CLUSTER_SCRIPT
}
