import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

extension PostgreSQLClusterTests {
    /// Application instances on hosts of their own (`scripts/postgres-cluster.sh app-start`:
    /// network namespaces joined to the servers' by veth links), each a `conflict-saver listen`
    /// process: notifications of this process's saves reach every instance across the links,
    /// and an instance cut off from the primary (`partition`, its link set down) while saves
    /// are committed catches up from the persistent history once healed — the token, not the
    /// notification, is the source of truth.
    @Suite(
        .enabled(if: PostgreSQLClusterAccess.isAvailable, PostgreSQLClusterAccess.skipReason),
        .enabled(if: PostgreSQLClusterAccess.isNamespaced, PostgreSQLClusterAccess.partitionSkipReason))
    struct PostgreSQLPartitionTests {
        /// A child process's output lines as they come, read by a thread of their own.
        final class Lines: Sendable {
            private let lines = Locked<[String]>([])
            private let condition = NSCondition()

            init(_ pipe: Pipe) {
                let handle = pipe.fileHandleForReading
                Thread.detachNewThread { [self] in
                    var pending = Data()
                    while true {
                        let chunk = handle.availableData
                        if chunk.isEmpty { break }
                        pending.append(chunk)
                        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                            pending.removeSubrange(pending.startIndex...end)
                            condition.lock()
                            lines.withLock { $0.append(line) }
                            condition.broadcast()
                            condition.unlock()
                        }
                    }
                }
            }

            var all: [String] { lines.withLock { $0 } }

            /// The transaction numbers of the `change` lines so far.
            var transactions: [Int64] {
                all.filter { $0.hasPrefix("change ") }.flatMap { $0.split(separator: " ").dropFirst().compactMap { Int64($0) } }
            }

            /// Waits until `condition` holds of the lines (at most `seconds`); false when not.
            func wait(seconds: Double = 60, until predicate: (Lines) -> Bool) -> Bool {
                let deadline = Date(timeIntervalSinceNow: seconds)
                condition.lock()
                defer { condition.unlock() }
                while !predicate(self) {
                    guard condition.wait(until: deadline) else { return predicate(self) }
                }
                return true
            }
        }

        /// Starts `conflict-saver listen` on host `name` (made if need be), waiting for
        /// `transactions` transactions; returns the process, its lines and the host's address.
        static func listener(on name: String, url: URL, transactions: Int) throws -> (Process, Lines, address: String) {
            let worker = try #require(builtExecutable(named: "conflict-saver"), "the conflict-saver executable is built with the tests")
            let started = try PostgreSQLClusterAccess.run("app-start", name)
            let address = try #require(started.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) })
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [
                try #require(PostgreSQLClusterAccess.script), "app-exec", name, worker.path, "listen", url.absoluteString, String(transactions), "1",
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            let lines = Lines(output)
            try process.run()
            #expect(lines.wait { $0.all.contains("listening") }, "the instance on \(name) did not start: \(lines.all)")
            return (process, lines, address)
        }

        @Test func anInstanceCutOffFromThePrimaryCatchesUpFromTheHistoryOnceHealed() throws {
            let cluster = try PostgreSQLClusterAccess()
            print("cluster network: \(PostgreSQLClusterAccess.network)")
            let schema = PostgreSQLClusterAccess.freshSchema("pt")
            let url = try PostgreSQLClusterAccess.url(cluster.primary, [("schema", schema)])
            let writer = try PostgreSQLRemoteChangeTests.coordinator(url)
            let context = ManagedObjectContext(coordinator: writer)
            context.transactionAuthor = "writer"
            let counter = try context.insert(entityName: "Counter")
            try context.save()
            func increment() throws {
                guard case .int(let count) = counter.value(forKey: "count") else { throw StoreError(.coreData, "count is not an integer") }
                try counter.setValue(.int(count + 1), forKey: "count")
                try context.save()
            }

            // Two instances on hosts of their own. The one to be cut off notices a dead
            // connection within about 3 s (TCP keepalives), instead of the listener's 25 s.
            let quick = try PostgreSQLClusterAccess.url(
                url.absoluteString, [("keepalives_idle", "1"), ("keepalives_interval", "1"), ("keepalives_count", "2"), ("connect_timeout", "2")])
            let (peer, peerLines, _) = try Self.listener(on: "peer", url: url, transactions: 5)
            let (cut, cutLines, cutAddress) = try Self.listener(on: "cut", url: quick, transactions: 5)
            defer {
                _ = try? PostgreSQLClusterAccess.run("heal", "app-cut")
                for process in [peer, cut] where process.isRunning { process.terminate() }
            }

            // Notifications reach both across the links.
            try increment()
            try increment()
            #expect(peerLines.wait { $0.transactions.count == 2 }, "\(peerLines.all)")
            #expect(cutLines.wait { $0.transactions.count == 2 }, "\(cutLines.all)")

            // The cut instance's link goes down, and the primary ends its connections meanwhile
            // (as a restart or an idle timeout would): no notification can reach it, on any
            // connection, and its listener's connection is dead without a word.
            try PostgreSQLClusterAccess.run("partition", "app-cut")
            let ended = try PostgreSQLClusterAccess.admin(cluster.primary).execute(
                "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE client_addr = $1::inet) AS ended",
                [.text(cutAddress)])
            #expect((ended.int64(0, 0) ?? 0) >= 1, "the cut instance's connections were on the primary")
            for _ in 0..<3 { try increment() }
            #expect(peerLines.wait { $0.transactions.count == 5 }, "the connected instance hears of every save: \(peerLines.all)")
            #expect(cutLines.transactions.count == 2, "the cut instance heard nothing while cut off")

            // Healed: the cut instance connects again and reads what it missed from the history.
            try PostgreSQLClusterAccess.run("heal", "app-cut")
            #expect(cutLines.wait(seconds: 90) { $0.all.contains("received 5") }, "\(cutLines.all)")
            #expect(peerLines.wait { $0.all.contains("received 5") }, "\(peerLines.all)")
            let committed = try writer.history(after: nil).map(\.number).dropFirst()
            #expect(cutLines.transactions == Array(committed), "every save after it started, once, in commit order")
            #expect(peerLines.transactions == Array(committed))
            for store in writer.persistentStores { try writer.remove(store) }
        }

        /// A fetch and a save on an instance cut off from the primary fail in bounded time (the
        /// URI's `tcp_user_timeout` and keepalives; the store gives every connection defaults of
        /// its own, see `PostgreSQLConnectionURITests`), naming the server, instead of waiting
        /// for TCP to give up; once healed, the save made again is committed exactly once.
        @Test func aFetchAndASaveCutOffFromThePrimaryFailInBoundedTimeAndTheSaveIsMadeOnceHealed() throws {
            let cluster = try PostgreSQLClusterAccess()
            let schema = PostgreSQLClusterAccess.freshSchema("pc")
            let url = try PostgreSQLClusterAccess.url(cluster.primary, [("schema", schema)])
            let writer = try PostgreSQLRemoteChangeTests.coordinator(url, options: [:])
            let context = ManagedObjectContext(coordinator: writer)
            let counter = try context.insert(entityName: "Counter")
            try context.save()
            let quick = try PostgreSQLClusterAccess.url(
                url.absoluteString,
                [("tcp_user_timeout", "2000"), ("keepalives_idle", "1"), ("keepalives_interval", "1"), ("keepalives_count", "2"), ("connect_timeout", "2")])

            let worker = try #require(builtExecutable(named: "conflict-saver"), "the conflict-saver executable is built with the tests")
            _ = try PostgreSQLClusterAccess.run("app-start", "cutoff")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [try #require(PostgreSQLClusterAccess.script), "app-exec", "cutoff", worker.path, "cutoff", quick.absoluteString, "10", "1"]
            let output = Pipe()
            let input = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = input
            let lines = Lines(output)
            try process.run()
            defer {
                _ = try? PostgreSQLClusterAccess.run("heal", "app-cutoff")
                if process.isRunning { process.terminate() }
            }
            #expect(lines.wait { $0.all.contains("ready") }, "the instance did not start: \(lines.all)")

            try PostgreSQLClusterAccess.run("partition", "app-cutoff")
            input.fileHandleForWriting.write(Data("go\n".utf8))
            #expect(lines.wait(seconds: 90) { $0.all.contains { $0.hasPrefix("save ") } }, "\(lines.all)")
            // Failed, each within the TCP timeout (2 s) and the reconnect timeout (3 s), with room.
            func outcome(_ step: String) -> (code: Int, seconds: Int)? {
                guard let line = lines.all.first(where: { $0.hasPrefix(step + " failed ") }) else { return nil }
                let fields = line.split(separator: " ")
                guard fields.count == 4, let code = Int(fields[2]), let seconds = Int(fields[3]) else { return nil }
                return (code, seconds)
            }
            let fetch = try #require(outcome("fetch"), "\(lines.all)")
            #expect(fetch.code == StoreError.Code.persistentStoreOperation.rawValue)
            #expect(fetch.seconds < 30)
            let save = try #require(outcome("save"), "\(lines.all)")
            #expect([StoreError.Code.persistentStoreSave.rawValue, StoreError.Code.persistentStoreIncompleteSave.rawValue].contains(save.code))
            #expect(save.seconds < 30)

            try PostgreSQLClusterAccess.run("heal", "app-cutoff")
            input.fileHandleForWriting.write(Data("healed\n".utf8))
            #expect(lines.wait(seconds: 90) { $0.all.contains("saved") }, "\(lines.all)")
            process.waitUntilExit()
            // Committed once: the count went from 0 to 1, not 2.
            context.refresh(counter, mergeChanges: false)
            #expect(counter.value(forKey: "count") == .int(1))
            for store in writer.persistentStores { try writer.remove(store) }
        }
    }
}
