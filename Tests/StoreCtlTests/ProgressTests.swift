import Foundation
import PersistentStores
import Testing
@testable import storectl

/// Progress on standard error: plain counters when it is not a terminal, a bar redrawn in place
/// when it is, nothing when quiet.
@Suite struct ProgressTests {
    private func report(total: Int, terminal: Bool, quiet: Bool = false) -> String {
        let captured = Console.Captured()
        let console = Console(
            writeOut: { _ in }, writeErr: { text in captured.err.withLock { $0 += text } }, errorIsTerminal: terminal)
        Console.$current.withValue(console) {
            var progress = Progress("Reading", total: total, quiet: quiet)
            for done in 1...total { progress.update(done) }
        }
        return captured.standardError
    }

    @Test func plainCountersAtMostEveryTenthWhenNotATerminal() {
        let text = report(total: 1000, terminal: false)
        let counters = lines(text)
        #expect(counters.count <= 12)
        #expect(counters.first == "Reading: 1/1000")
        #expect(counters.last == "Reading: 1000/1000")
        #expect(!text.contains("\r"))
    }

    @Test func aBarRedrawnInPlaceOnATerminal() {
        let text = report(total: 4, terminal: true)
        #expect(text.hasPrefix("\rReading [#######"))
        #expect(text.hasSuffix("\rReading [##############################] 4/4\n"))
        #expect(lines(text).count == 1)
    }

    @Test func nothingWhenQuiet() {
        #expect(report(total: 50, terminal: false, quiet: true).isEmpty)
        #expect(report(total: 50, terminal: true, quiet: true).isEmpty)
    }

    @Test func typesListsTheRegisteredTypesOnTheConsole() {
        let run = storectl("types")
        #expect(run.status == 0)
        for name in ["SQLite", "InMemory", "Binary", "XML", "PipeCSV"] {
            #expect(run.output.contains("\(name)\t"))
        }
    }
}
