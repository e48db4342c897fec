import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import PipeCSVStore

/// A file of blank lines once asked for about 56 bytes per line (50 MB of newlines: 2.8 GB);
/// the reader's line table now holds the lines with data plus the first and the last.
@Suite("Blank lines")
struct BlankLineMemoryTests {
    @Test func aMillionBlankLinesMakeATableOfTwoLines() {
        let bytes = [UInt8](repeating: PipeCSVEscaping.newline, count: 1_000_000)
        let reader = PipeCSVReader(
            url: URL(fileURLWithPath: "/blank.pipe"), model: Models.league, configurationName: nil, lenient: false,
            bytes: bytes)
        let lines = reader.lines
        #expect(lines.count == 2)
        #expect(lines.first?.number == 1)
        #expect(lines.last?.number == 1_000_000, "the last line keeps its number for the frame's errors")
    }

    /// Blank lines between records still load as before, and the records keep their line numbers.
    @Test func blankLinesBetweenRecordsAreSkippedAndNumbersKept() throws {
        let text = "\n\nTeam|t1|name=Crew\n\n\n\nTeam|t2|name=Blue\n\n"
        let reader = PipeCSVReader(
            url: URL(fileURLWithPath: "/blank.pipe"), model: Models.league, configurationName: nil, lenient: false,
            bytes: Array(text.utf8))
        let lines = reader.lines
        #expect(lines.map(\.number) == [1, 3, 7, 8])
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Blank.pipe")
            try Data(text.utf8).write(to: url)
            let store = try PipeStore(model: Models.league, url: url)
            #expect(try store.nodes("Team").count == 2)
        }
    }
}
