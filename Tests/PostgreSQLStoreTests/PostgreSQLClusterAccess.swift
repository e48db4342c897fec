import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// A PostgreSQL primary with a hot standby for the tests of read replicas, failover and
/// partitions, as `scripts/postgres-cluster.sh` starts it (scripts/test.sh does where the
/// machine allows, and exports its URIs): `PERSISTENTSTORES_POSTGRES_PRIMARY_URL` and
/// `PERSISTENTSTORES_POSTGRES_STANDBY_URL`; for the failover and partition tests, which stop,
/// kill, promote and cut off hosts, the script itself in `PERSISTENTSTORES_POSTGRES_CLUSTER_SCRIPT`;
/// and the network the script chose (`namespaces`, or `loopback: <why>`) in
/// `PERSISTENTSTORES_POSTGRES_CLUSTER_NETWORK`. Without them those tests are skipped, saying so.
struct PostgreSQLClusterAccess {
    let primary: String
    let standby: String

    static let environment = ProcessInfo.processInfo.environment
    /// Whether a cluster is given.
    static let isAvailable = !(environment["PERSISTENTSTORES_POSTGRES_PRIMARY_URL"] ?? "").isEmpty
        && !(environment["PERSISTENTSTORES_POSTGRES_STANDBY_URL"] ?? "").isEmpty
    /// Why the replica tests do not run.
    static let skipReason: Comment =
        "no primary and hot standby: set PERSISTENTSTORES_POSTGRES_PRIMARY_URL and PERSISTENTSTORES_POSTGRES_STANDBY_URL (scripts/postgres-cluster.sh start prints them; scripts/test.sh does this where the machine allows: root or the postgres user, PostgreSQL installed)"
    /// The cluster script, for tests that stop, kill and promote its servers.
    static let script = environment["PERSISTENTSTORES_POSTGRES_CLUSTER_SCRIPT"].flatMap { $0.isEmpty ? nil : $0 }
    /// Why the failover tests do not run.
    static let failoverSkipReason: Comment =
        "no cluster to fail over: set PERSISTENTSTORES_POSTGRES_CLUSTER_SCRIPT to scripts/postgres-cluster.sh (it is run as root or as the postgres user; scripts/test.sh does this)"

    /// The network the cluster runs on, as the script said: `namespaces` (each server a host
    /// of its own, reached over veth links) or `loopback: <why not namespaces>`.
    static let network = environment["PERSISTENTSTORES_POSTGRES_CLUSTER_NETWORK"].flatMap { $0.isEmpty ? nil : $0 } ?? "not given"
    /// Whether the servers are hosts of their own whose links the script can cut.
    static let isNamespaced = script != nil && network == "namespaces"
    /// Why the partition tests do not run.
    static let partitionSkipReason: Comment =
        "no cluster on network namespaces (network: \(network)): partitions need scripts/postgres-cluster.sh as root with ip netns (scripts/test.sh starts it so where the machine allows)"

    /// The cluster's URIs. With the script given, a cluster a failover test left behind (its
    /// primary stopped or killed, its standby promoted) is started afresh first.
    init() throws {
        primary = try #require(Self.environment["PERSISTENTSTORES_POSTGRES_PRIMARY_URL"])
        standby = try #require(Self.environment["PERSISTENTSTORES_POSTGRES_STANDBY_URL"])
        if Self.script != nil && !isHealthy { try Self.restore() }
    }

    /// Whether the primary takes writes and the standby is one.
    var isHealthy: Bool {
        func inRecovery(_ uri: String) -> Bool? {
            (try? Self.admin(uri).execute("SELECT pg_is_in_recovery()").text(0, 0)).map { $0 == "t" }
        }
        return inRecovery(primary) == false && inRecovery(standby) == true
    }

    /// A fresh schema name.
    static func freshSchema(_ label: String) -> String {
        "\(label)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
    }

    /// `uri` with `parameters` added to its query, read as libpq would (multi-host URIs too).
    static func url(_ uri: String, _ parameters: [(String, String)]) throws -> URL {
        var connection = try ConnectionURI(uri)
        for (name, value) in parameters { connection = connection.settingParameter(name, to: value) }
        return connection.url
    }

    /// The primary's and the standby's host:port lists joined into one multi-host URI asking
    /// for `attributes` (`read-write`, `prefer-standby`), with `schema`.
    func multiHostURL(_ attributes: String, schema: String) throws -> URL {
        let hosts = try [primary, standby].map { uri -> String in
            let parsed = try ConnectionURI(uri)
            return "\(parsed.hosts.first ?? ""):\(parsed.ports.first ?? "")"
        }
        let user = try ConnectionURI(primary).user ?? "postgres"
        let database = try ConnectionURI(primary).database ?? "postgres"
        return try Self.url(
            "postgresql://\(user)@\(hosts.joined(separator: ","))/\(database)", [("target_session_attrs", attributes), ("schema", schema)])
    }

    /// A connection to `uri` as its user (the cluster's administrator).
    static func admin(_ uri: String) throws -> PostgreSQLConnection {
        try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(text: uri))
    }

    /// Starts the cluster afresh as `start` leaves it (asynchronous commit), for the tests
    /// after one that failed its primary over.
    static func restore() throws {
        try run("stop")
        try run("start")
    }

    /// Runs the cluster script with `command` and `arguments` (and `environment`), failing the
    /// test when it fails; returns what it printed.
    @discardableResult
    static func run(_ command: String, _ arguments: String..., environment extra: [String: String] = [:]) throws -> String {
        let script = try #require(Self.script)
        // The output goes to a file: the servers the script starts would keep a pipe open.
        // posix_spawn and waitpid rather than Process: waiting for a Process while another
        // (a partition test's instance) runs never saw the first one end.
        return try withTemporaryDirectory { directory in
            let output = directory.appendingPathComponent("cluster.out")
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let environment = Self.environment.merging(extra) { $1 }.map { "\($0.key)=\($0.value)" }
            var argv = (["/bin/bash", script, command] + arguments).map { strdup($0) } + [nil]
            var envp = environment.map { strdup($0) } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, &argv, &envp)
            try #require(spawned == 0, "could not run \(script): error \(spawned)")
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            // Exited (not signalled) with status 0.
            #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "\(script) \(command) failed: \(printed)")
            return printed
        }
    }
}
