import Testing

/// The tests on a PostgreSQL primary with a hot standby (`scripts/postgres-cluster.sh`, see
/// `PostgreSQLClusterAccess`): read replicas, failover and partitions, nested here so that they
/// run one at a time — the failover tests start the cluster afresh and kill its primary, the
/// replica tests pause the standby's replay, the partition tests cut hosts off, and each would
/// disturb the others. Without a cluster they are skipped, saying why.
@Suite(.serialized) struct PostgreSQLClusterTests {}
