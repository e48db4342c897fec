import Foundation
import StoreCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child process of the crash-safety cases: the whole `main.swift` of a small executable
/// that registers the store type under test.
///
/// ```swift
/// // Sources/my-store-crash-child/main.swift
/// import Conformance
/// import MyStore
///
/// StoreRegistry.shared.register(MyStore.self)
/// CrashSafetyChild.main()
/// ```
///
/// It understands three commands, each given a store type and a store (a path, or a URL for a
/// store that is not a file):
///
///     <child> run <store-type> <store> <lowest> <highest>
///     <child> verify <store-type> <store> <lowest> <highest>
///     <child> peek <store-type> <store>
///
/// `run` and `verify` open the store, check that it holds one whole generation `G` (see
/// ``CrashSafetyGenerations``) with `lowest <= G <= highest`, and print `loaded G`, or
/// `inconsistent: …` (exit status 2) or `error: …` (exit status 3). `run` then saves generation
/// `G + 1`, `G + 2`, … until it is killed, printing `saved g` as each save returns. `peek` opens
/// the store, fetches and closes it again, over and over until it is killed (as a backup script
/// or a second instance of a program would), printing `peeked` after the first time.
/// ``CrashSafetyHarness`` starts and kills them.
public enum CrashSafetyChild {
    /// The usage line.
    public static let usage =
        "usage: <child> run|verify <store-type> <store-path-or-url> <lowest> <highest> | peek <store-type> <store-path-or-url>"

    /// Whether `arguments` (the process's, without the program name) are a command of the child.
    public static func handles(_ arguments: [String]) -> Bool {
        if arguments.count == 3 && arguments[0] == "peek" { return true }
        guard arguments.count == 5, ["run", "verify"].contains(arguments[0]), let lowest = Int64(arguments[3]),
            let highest = Int64(arguments[4])
        else { return false }
        return lowest <= highest
    }

    /// Runs the command in the process's arguments with the store types of `registry`, and
    /// ends the process (see the type's description for the commands and exit statuses).
    public static func main(
        registry: StoreRegistry = .shared, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) -> Never {
        if handles(arguments), arguments[0] == "peek" { peek(registry: registry, storeType: arguments[1], url: storeURL(arguments[2])) }
        guard handles(arguments), let lowest = Int64(arguments[3]), let highest = Int64(arguments[4]) else {
            end(usage, status: 64)
        }
        let storeType = arguments[1]
        let url = storeURL(arguments[2])
        do {
            let model = try CrashSafetyGenerations.model()
            let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
            let store = try coordinator.addPersistentStore(type: storeType, at: url)
            let g = try CrashSafetyGenerations.verify(coordinator, store)
            guard (lowest...highest).contains(g) else {
                end("inconsistent: the store holds generation \(g), expected \(lowest)...\(highest)", status: 2)
            }
            say("loaded \(g)")
            if arguments[0] == "verify" { exit(0) }
            var next = g + 1
            while true {
                try CrashSafetyGenerations.save(next, coordinator, store)
                say("saved \(next)")
                next += 1
            }
        } catch let failure as ConformanceFailure {
            end("inconsistent: \(failure.message)", status: 2)
        } catch {
            end("error: \(error)", status: 3)
        }
    }

    private static func peek(registry: StoreRegistry, storeType: String, url: URL) -> Never {
        let model: ObjectModel
        do {
            model = try CrashSafetyGenerations.model()
        } catch {
            end("error: \(error)", status: 3)
        }
        var peeks = 0
        while true {
            // A peek that fails (the store is busy or being replaced) is simply tried again.
            let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
            if let store = try? coordinator.addPersistentStore(type: storeType, at: url) {
                _ = try? coordinator.execute(FetchRequest(entityName: "Item"))
                try? coordinator.remove(store)
                peeks += 1
                if peeks == 1 { say("peeked") }
            }
            usleep(2_000)  // pacing between peeks, so the saving process gets the processor too
        }
    }

    /// A path (starting with `/`) as a file URL, anything else as a URL.
    static func storeURL(_ text: String) -> URL {
        if !text.hasPrefix("/"), let url = URL(string: text), url.scheme != nil { return url }
        return URL(fileURLWithPath: text)
    }

    /// The form of `url` the child takes on its command line.
    static func argument(for url: URL) -> String { url.isFileURL ? url.path : url.absoluteString }

    /// Writes a line to standard output at once (unbuffered), so the parent sees every
    /// `saved g` printed before the kill.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func end(_ line: String, status: Int32) -> Never {
        say(line)
        exit(status)
    }
}
