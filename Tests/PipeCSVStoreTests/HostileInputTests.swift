import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import PipeCSVStore

/// Small files that stand for enormous values, and a large file read without a second copy.
@Suite struct HostileInputTests {
    /// A data file whose header holds `plist` as its metadata, with no records.
    static func dataFile(withMetadata plist: Data, at url: URL) throws {
        let header = PipeCSVFileLayout.headerLine(metadataPropertyList: plist)
        var checksum = CRC32()
        checksum.update(header)
        try Data(header + PipeCSVFileLayout.trailerLine(records: 0, checksum: checksum)).write(to: url)
    }

    @Test func aHeaderOfSharedReferencesIsRefusedInSeconds() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Bomb.txt")
            try Self.dataFile(withMetadata: HostilePropertyList.sharedArrays(depth: 40), at: url)
            let loaded = storeError(within: 10) { _ = try PipeStore(model: Models.league, url: url) }
            #expect(loaded?.code == .persistentStoreOpen)
            #expect(loaded?.message.contains("\(url.path), line 1") == true, "\(String(describing: loaded))")
            #expect(loaded?.message.contains("expands to more than 100000 objects") == true)
            let metadata = storeError(within: 10) { _ = try PipeCSVStore.metadata(forStoreAt: url, options: [:]) }
            #expect(metadata?.code == .persistentStoreOpen)
            #expect(metadata?.message.contains(url.path) == true, "\(String(describing: metadata))")
        }
    }

    @Test func aMetadataFileOfSharedReferencesIsRefusedInSeconds() throws {
        try withTemporaryDirectory { directory in
            // The original format: records only, the metadata in League.plist beside them.
            let url = directory.appendingPathComponent("League.txt")
            try Data("Team|1|name=Blue\n".utf8).write(to: url)
            let metadataFile = PipeCSVStore.metadataURL(forStoreAt: url)
            try HostilePropertyList.sharedArrays(depth: 40).write(to: metadataFile)
            let loaded = storeError(within: 10) { _ = try PipeStore(model: Models.league, url: url) }
            #expect(loaded?.code == .persistentStoreOpen)
            #expect(loaded?.message.contains(metadataFile.path) == true, "\(String(describing: loaded))")
            #expect(loaded?.message.contains("expands to more than 100000 objects") == true)
        }
    }

    /// What `crash-saver load-within <extra> PipeCSV <url>` printed.
    static func loadWithin(extra: Int, url: URL, saver: URL) throws -> String {
        let child = try ChildProcess(saver, ["load-within", String(extra), "PipeCSV", url.path])
        var text = ""
        while let line = child.nextLine() { text += line + "\n" }
        let process = child.process
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? text + "(killed by signal \(process.terminationStatus))" : text
    }

    @Test(.enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
    func aLargeFileIsReadWithoutASecondCopyAndOneTooLargeForMemoryIsAnError() throws {
        let saver = try #require(CrashTestHarness.saver)
        try withTemporaryDirectory { directory in
            // 64 MiB: a header this reader refuses (read only once the whole file is), then one
            // long line.
            let url = directory.appendingPathComponent("Large.txt")
            let size = 64 << 20
            try #require(FileManager.default.createFile(atPath: url.path, contents: Data("#PipeCSV|format=99\n".utf8)))
            let handle = try FileHandle(forWritingTo: url)
            try handle.seekToEnd()
            let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            for _ in 0..<(size >> 20) { try handle.write(contentsOf: chunk) }
            try handle.close()

            // Memory for the file and a half: enough for one copy (reading it as Data, then
            // copying it into an array, took two, and Swift ended the process when the second
            // could not be allocated).
            let once = try Self.loadWithin(extra: size * 3 / 2, url: url, saver: saver)
            #expect(once.hasPrefix("error: 134080 \(url.path), line 1"), "\(once)")
            #expect(once.contains("format version 99"), "\(once)")

            // Memory for half of it: an error that says so, not the end of the process.
            let half = try Self.loadWithin(extra: size / 2, url: url, saver: saver)
            #expect(half.hasPrefix("error: 134080 Cannot read \(url.path)"), "\(half)")
            #expect(half.contains("do not fit in the memory"), "\(half)")
        }
    }
}
