import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose standard output is read line by line; killed with SIGKILL by
/// ``kill()`` (never left running: whoever starts one kills it or waits for it).
///
/// ```swift
/// let child = try ChildProcess(executable, ["verify", "Mine", path, "0", "9"])
/// let line = child.nextLine()        // "loaded 7"
/// ```
public final class ChildProcess {
    /// The running process.
    public let process: Process
    private let lines: LineReader

    /// Starts `executable` with `arguments`; its standard error is discarded.
    public init(_ executable: URL, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        lines = LineReader(output.fileHandleForReading)
    }

    /// The next line of its standard output; nil once it ended.
    public func nextLine() -> String? { lines.next() }

    /// Waits until it ends by itself (its output read to the end) and returns its exit status.
    public func waitForExit() -> Int32 {
        while lines.next() != nil {}
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Kills it with SIGKILL (no clean exit: nothing it would do on the way out happens) and
    /// waits for it to end.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// An executable built beside the running test bundle (SwiftPM puts a package's
    /// executables and test bundles in one folder), or the path in the environment variable
    /// `environmentVariable` when it is set; nil when none is found.
    public static func builtExecutable(named name: String, environmentVariable: String? = nil) -> URL? {
        if let environmentVariable, let path = ProcessInfo.processInfo.environment[environmentVariable] {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for folder in candidates {
            for relative in [name, "../\(name)", "../../\(name)"] {
                let url = folder.appendingPathComponent(relative).standardizedFileURL
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }
}

/// Lines of a child's standard output, read as they arrive.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line; nil at end of output.
    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += chunk
        }
    }
}
