import Foundation
import Testing

/// The PostgreSQL server the tests use: `PERSISTENTSTORES_POSTGRES_URL` when it is set, otherwise
/// a throwaway cluster started once per test process — `initdb` into a fresh temporary folder,
/// listening only on a Unix socket in that folder, `fsync=off` — and stopped (its folder
/// removed) when the test process ends, however it ends.
///
/// PostgreSQL refuses to run as root: as root, `initdb` and `pg_ctl` run as the `postgres` user
/// (`runuser -u postgres --`), which owns the folder. When the server cannot start, every test
/// that needs it fails with the reason; none is skipped.
public enum TestPostgreSQLServer {
    /// The server's base URI (`postgresql:///postgres?host=…&user=postgres`), or why there is none.
    public static let base: Result<String, ServerError> = start()

    /// Why the test server could not start.
    public struct ServerError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The base URI; records an issue (and throws) when the server could not start.
    public static func uri() throws -> String {
        switch base {
        case .success(let uri): return uri
        case .failure(let error):
            Issue.record("The PostgreSQL test server is not available: \(error)")
            throw error
        }
    }

    /// A URL of the test server for a store in a new PostgreSQL schema of its own (so tests
    /// never see each other's tables).
    public static func freshStoreURL(_ label: String = "t") throws -> URL {
        let schema = "\(label)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        let uri = try uri()
        let separator = uri.contains("?") ? "&" : "?"
        guard let url = URL(string: "\(uri)\(separator)schema=\(schema)") else {
            throw ServerError(description: "not a URL: \(uri)")
        }
        return url
    }

    private static func start() -> Result<String, ServerError> {
        if let url = ProcessInfo.processInfo.environment["PERSISTENTSTORES_POSTGRES_URL"], !url.isEmpty {
            return .success(url)
        }
        do {
            return .success(try startThrowawayCluster())
        } catch let error as ServerError {
            return .failure(error)
        } catch {
            return .failure(ServerError(description: "\(error)"))
        }
    }

    /// The folder of PostgreSQL's server programs (`initdb`, `pg_ctl`).
    private static func binDirectory() throws -> String {
        if let output = try? run(["/usr/bin/env", "pg_config", "--bindir"]).trimmingCharacters(in: .whitespacesAndNewlines),
            FileManager.default.isExecutableFile(atPath: output + "/initdb")
        {
            return output
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw ServerError(
            description: "PostgreSQL's initdb was not found (pg_config --bindir, /usr/lib/postgresql/*/bin): install postgresql (scripts/ensure-deps.sh does)")
    }

    private static func startThrowawayCluster() throws -> String {
        let bin = try binDirectory()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PersistentStoresPG-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot {
            // The server runs as `postgres`, which must own its folder.
            try FileManager.default.setAttributes([.ownerAccountName: "postgres", .posixPermissions: 0o700], ofItemAtPath: folder.path)
        }
        let prefix = asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        let data = folder.appendingPathComponent("data").path
        _ = try run(
            prefix + [
                "\(bin)/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
            ])
        let settings = [
            "-k \(folder.path)", "-c listen_addresses=''", "-c fsync=off", "-c synchronous_commit=off",
            "-c full_page_writes=off", "-c max_connections=200",
        ].joined(separator: " ")
        _ = try run(prefix + ["\(bin)/pg_ctl", "-D", data, "-l", folder.appendingPathComponent("server.log").path, "-o", settings, "-w", "start"])
        // A watcher outside this process stops the server and removes its folder when this
        // process ends, even when it crashes (`tail --pid` returns when the process is gone).
        let stop = (prefix + ["\(bin)/pg_ctl", "-D", data, "-m", "immediate", "stop"]).map { "'\($0)'" }.joined(separator: " ")
        _ = try spawn(["/bin/sh", "-c", "tail --pid=\(getpid()) -f /dev/null; \(stop); rm -rf '\(folder.path)'"], output: "/dev/null")
        return "postgresql:///postgres?host=\(folder.path)&user=postgres"
    }

    /// Runs a program and waits for it (only for it: `pg_ctl` leaves the server running),
    /// returning its output; throws with its output when it fails. The output goes through a
    /// file, not a pipe, which the server would inherit and keep open. Foundation's `Process`
    /// is not used: its `waitUntilExit()` did not return after `pg_ctl start` here.
    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("PersistentStoresPG-run-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try spawn(arguments, output: log.path)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            throw ServerError(description: "\(arguments.joined(separator: " ")) failed (wait status \(status)): \(text)")
        }
        return text
    }

    /// Starts a program with its standard input from /dev/null and its output appended to the
    /// file at `output`; returns its process ID.
    private static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard result == 0 else {
            throw ServerError(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }
}
