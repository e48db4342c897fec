import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import AtomicBinaryStore

/// What loading `bytes` as a League store gives: the content, or the store error.
private func load(_ bytes: Data, in directory: URL, name: String = "Damaged.store") -> Result<[ObjectID: StoreNode], StoreError> {
    let url = directory.appendingPathComponent(name)
    do {
        try bytes.write(to: url)
        let store = try BinaryStore(model: Models.league, url: url)
        return .success(try store.everything())
    } catch let error as StoreError {
        return .failure(error)
    } catch {
        Issue.record("a load threw something other than a StoreError: \(error)")
        return .failure(StoreError(.coreData, "\(error)"))
    }
}

/// Behaviour #58 for the Binary store: every damaged variant of a small store file either loads
/// exactly the saved content or fails with a StoreError that names the file and a byte offset;
/// no variant crashes, and no changed byte goes unnoticed (every byte is under a CRC-32).
@Suite("Corruption")
struct CorruptionTests {
    static let compressions: [StoreOptions] = [[:], [AtomicBinaryStore.compressionOption: true]]

    @Test(arguments: compressions)
    func everyFlippedByteIsDetected(_ options: StoreOptions) throws {
        try withTemporaryDirectory { directory in
            let original = directory.appendingPathComponent("League.store")
            _ = try makeLeagueStore(at: original, options: options)
            let bytes = contents(of: original)
            #expect(bytes.count > BinaryFileHeader.size)
            var undetected: [Int] = []
            for flip: UInt8 in [0xFF, 0x01, 0x80] {
                for offset in bytes.indices {
                    var damaged = bytes
                    damaged[offset] ^= flip
                    switch load(damaged, in: directory) {
                    case .success: undetected.append(offset)
                    case .failure(let error):
                        #expect([StoreError.Code.persistentStoreOpen, .persistentStoreTypeMismatch].contains(error.code))
                        #expect(error.fileURL != nil)
                        #expect(error.message.contains("Damaged.store"))
                        if error.code == .persistentStoreOpen && !error.message.contains("byte ") {
                            Issue.record("no byte offset in: \(error.message)")
                        }
                    }
                }
            }
            #expect(undetected == [], "flips at these offsets loaded without an error")
        }
    }

    @Test(arguments: compressions)
    func everyTruncationIsDetected(_ options: StoreOptions) throws {
        try withTemporaryDirectory { directory in
            let original = directory.appendingPathComponent("League.store")
            let content = try makeLeagueStore(at: original, options: options)
            let bytes = contents(of: original)
            for length in 0...bytes.count {
                let result = load(bytes.prefix(length), in: directory)
                switch (length, result) {
                case (0, .success(let loaded)):
                    #expect(loaded.isEmpty, "an empty file is a new, empty store")
                case (bytes.count, .success(let loaded)):
                    #expect(loaded.count == content.count)
                    #expect(Set(loaded.values.map(\.attributes)) == Set(content.values.map(\.attributes)))
                case (_, .success):
                    Issue.record("a file cut to \(length) of \(bytes.count) bytes loaded")
                case (_, .failure(let error)):
                    #expect(error.code == .persistentStoreOpen, "\(error)")
                    #expect(error.message.contains("byte "), "\(error.message)")
                }
            }
            // Extra bytes at the end are detected too.
            guard case .failure(let error) = load(bytes + [0], in: directory) else {
                Issue.record("a file with an extra byte loaded")
                return
            }
            #expect(error.message.contains("extra bytes"))
        }
    }

    @Test func aFailedLoadLeavesTheFileUntouched() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            var bytes = contents(of: url)
            bytes[bytes.count - 3] ^= 0x10
            try bytes.write(to: url)
            let error = storeError { _ = try BinaryStore(model: Models.league, url: url) }
            #expect(error?.message.contains("checksum mismatch") == true)
            #expect(contents(of: url) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["League.store"])
        }
    }

    @Test func metadataOfADamagedFileIsAnError() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            let bytes = contents(of: url)
            for offset in stride(from: 0, to: BinaryFileHeader.size + 64, by: 1) {
                var damaged = bytes
                damaged[offset] ^= 0x04
                try damaged.write(to: url)
                storeError { _ = try AtomicBinaryStore.metadata(forStoreAt: url, options: [:]) }
            }
            try bytes.prefix(30).write(to: url)
            let error = storeError { _ = try AtomicBinaryStore.metadata(forStoreAt: url, options: [:]) }
            #expect(error?.message.contains("truncated") == true)
        }
    }
}
