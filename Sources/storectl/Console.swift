import Foundation
import Synchronization

/// Where a command writes: results on standard output, progress and errors on standard error.
/// Tests run commands in-process with a console that collects both.
final class Console: Sendable {
    /// The console of the running command (the process's streams unless a test set another).
    @TaskLocal static var current = Console.standard

    /// The process's standard output and error.
    static let standard = Console(
        writeOut: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeErr: { FileHandle.standardError.write(Data($0.utf8)) },
        errorIsTerminal: isatty(STDERR_FILENO) == 1)

    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void
    /// Whether standard error is a terminal (progress redraws one line instead of printing lines).
    let errorIsTerminal: Bool

    init(writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void, errorIsTerminal: Bool) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.errorIsTerminal = errorIsTerminal
    }

    /// A console that keeps what is written, for tests.
    static func capturing() -> (Console, Captured) {
        let captured = Captured()
        let console = Console(
            writeOut: { text in captured.out.withLock { $0 += text } },
            writeErr: { text in captured.err.withLock { $0 += text } },
            errorIsTerminal: false)
        return (console, captured)
    }

    /// What a capturing console was given.
    final class Captured: Sendable {
        let out = Mutex("")
        let err = Mutex("")
        var standardOutput: String { out.withLock { $0 } }
        var standardError: String { err.withLock { $0 } }
    }

    /// Writes one line of results.
    func print(_ line: String = "") { writeOut(line + "\n") }

    /// Writes results as is (a document that ends its own lines).
    func write(_ text: String) { writeOut(text) }

    /// Writes to standard error as is.
    func printError(_ text: String) { writeErr(text) }
}

/// Progress of a long operation on standard error: a line redrawn in place on a terminal,
/// plain counter lines otherwise (at most one per 10% and at the end), nothing when quiet.
struct Progress {
    let title: String
    let total: Int
    let quiet: Bool
    private var lastReported = -1
    private let console = Console.current

    init(_ title: String, total: Int, quiet: Bool) {
        self.title = title
        self.total = total
        self.quiet = quiet
    }

    mutating func update(_ done: Int) {
        guard !quiet, total > 0 else { return }
        if console.errorIsTerminal {
            let width = 30
            let filled = min(width, done * width / total)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            console.printError("\r\(title) [\(bar)] \(done)/\(total)" + (done >= total ? "\n" : ""))
        } else {
            let step = max(1, total / 10)
            guard done >= total || done / step > lastReported / step || lastReported < 0 else { return }
            console.printError("\(title): \(done)/\(total)\n")
        }
        lastReported = done
    }
}
