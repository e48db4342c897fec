import Foundation
import StoreCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh temporary folder, removed when the body returns.
private func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("AtomicFileWriterTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer {
        chmod(folder.path, 0o755)
        try? FileManager.default.removeItem(at: folder)
    }
    return try body(folder)
}

private struct Interrupted: Error {}

private func names(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
}

@Suite("AtomicFileWriter")
struct AtomicFileWriterTests {
    @Test func writesANewFileAndLeavesNoTemporaryFile() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("store.txt")
            try AtomicFileWriter.write(Data("hello".utf8), to: url)
            #expect(try Data(contentsOf: url) == Data("hello".utf8))
            #expect(try names(in: folder) == ["store.txt"])
        }
    }

    @Test func replacesAnExistingFileKeepingItsPermissions() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("store.txt")
            try Data("old".utf8).write(to: url)
            chmod(url.path, 0o640)
            try AtomicFileWriter.write(Data("new content".utf8), to: url)
            #expect(try Data(contentsOf: url) == Data("new content".utf8))
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(mode == 0o640)
        }
    }

    @Test func aThrowingWriterLeavesTheOldFileAndNoTemporaryFile() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("store.txt")
            try Data("old".utf8).write(to: url)
            #expect(throws: Interrupted.self) {
                try AtomicFileWriter.write(to: url) { output in
                    try output.write(Data(repeating: 0x41, count: 200_000))  // more than the buffer: reaches the disk
                    throw Interrupted()
                }
            }
            #expect(try Data(contentsOf: url) == Data("old".utf8))
            #expect(try names(in: folder) == ["store.txt"])
        }
    }

    @Test func streamsLargeOutputInPieces() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("big.bin")
            var expected = Data()
            try AtomicFileWriter.write(to: url) { output in
                for index in 0..<5000 {
                    let line = "line \(index) " + String(repeating: "x", count: index % 97) + "\n"
                    try output.write(line)
                    expected += Data(line.utf8)
                    try output.write(byte: UInt8(index % 256))
                    expected.append(UInt8(index % 256))
                }
                try output.write([UInt8](repeating: 7, count: 100_000))
                expected += Data(repeating: 7, count: 100_000)
                #expect(output.count == expected.count)
            }
            #expect(try Data(contentsOf: url) == expected)
        }
    }

    @Test func aFailedRenameKeepsTheDestinationAndRemovesTheTemporaryFile() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("occupied")
            try FileManager.default.createDirectory(at: url.appendingPathComponent("child"), withIntermediateDirectories: true)
            let error = try #require(throws: StoreError.self) { try AtomicFileWriter.write(Data("x".utf8), to: url) }
            #expect(error.code == .persistentStoreSave)
            #expect(error.message.contains("occupied"))
            #expect(try names(in: folder) == ["occupied"])
            #expect(try names(in: url) == ["child"])
        }
    }

    @Test func aMissingFolderIsAClearError() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("missing/store.txt")
            let error = try #require(throws: StoreError.self) { try AtomicFileWriter.write(Data("x".utf8), to: url) }
            #expect(error.code == .persistentStoreSave)
            #expect(error.fileURL?.lastPathComponent == "store.txt")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("missing").path))
        }
    }

    @Test(.enabled(if: geteuid() != 0, "permission checks do not apply to root"))
    func aReadOnlyFolderKeepsTheOldFile() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("store.txt")
            try Data("old".utf8).write(to: url)
            chmod(folder.path, 0o555)
            let error = try #require(throws: StoreError.self) { try AtomicFileWriter.write(Data("new".utf8), to: url) }
            #expect(error.code == .persistentStoreSave)
            #expect(try Data(contentsOf: url) == Data("old".utf8))
        }
    }

    @Test func leftoversOfInterruptedWritesAreRemovedByTheNextWrite() throws {
        try withFolder { folder in
            let url = folder.appendingPathComponent("store.txt")
            let writer = AtomicFileWriter(destination: url)
            for index in 0..<3 {
                try Data("partial \(index)".utf8).write(to: folder.appendingPathComponent(writer.temporaryFilePrefix + UUID().uuidString))
            }
            try Data("another file".utf8).write(to: folder.appendingPathComponent(".other.txt.tmp-1"))
            try writer.write(Data("complete".utf8))
            #expect(try names(in: folder) == [".other.txt.tmp-1", "store.txt"])
        }
    }

    @Test func aSymbolicLinkIsFollowed() throws {
        try withFolder { folder in
            let target = folder.appendingPathComponent("target.txt")
            let link = folder.appendingPathComponent("link.txt")
            try Data("old".utf8).write(to: target)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            try AtomicFileWriter.write(Data("new".utf8), to: link)
            #expect(try Data(contentsOf: target) == Data("new".utf8))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        }
    }
}
