import Foundation
@_spi(Fuzzing) import StoreCore
import StoreTestSupport
import Testing
import XMLStore

/// libxml2 reports some errors outside any parser (converting a document from its declared
/// encoding) and prints them on standard error unless a handler takes them. The stores and the
/// model reader take them: the error names the problem, and nothing reaches the caller's
/// terminal or logs. Serialized: each test points the process's standard error at a file for
/// a moment, and two doing so at once would leave it pointing at the other's file.
@Suite(.serialized) struct LibraryErrorTests {
    /// A document declared as ISO-2022-JP holding bytes that encoding does not have.
    static func misencoded(_ document: String) -> Data {
        var text = document
        if let end = text.range(of: "?>") { text.replaceSubrange(text.startIndex..<end.upperBound, with: "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?>") }
        var data = Data(text.utf8)
        if let root = data.firstRange(of: Data("<database".utf8)) ?? data.firstRange(of: Data("<model".utf8)) {
            data.insert(contentsOf: [0x1B, 0x24, 0x42, 0xFF, 0xFF], at: root.lowerBound)
        }
        return data
    }

    /// What `body` writes on standard error, which is redirected to a file meanwhile. (Other
    /// tests running at the same time may write there too; the checks look for libxml2's own
    /// words only.)
    static func standardErrorOutput(of body: () throws -> Void) throws -> String {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("stderr.txt")
            let file = open(url.path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
            try #require(file >= 0)
            let saved = dup(2)
            try #require(saved >= 0)
            fflush(nil)
            dup2(file, 2)
            defer {
                fflush(nil)
                dup2(saved, 2)
                close(saved)
                close(file)
            }
            try body()
            fflush(nil)
            return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
    }

    @Test func aDocumentNotInItsDeclaredEncodingIsAnErrorNamingItAndPrintsNothing() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Misencoded.xml")
            try Self.misencoded(storeDocument(validObjects)).write(to: url)
            var error: StoreError?
            let printed = try Self.standardErrorOutput {
                error = storeError { _ = try XMLStack(model: Models.league, url: url) }
            }
            #expect(error?.message.contains("input conversion failed") == true, "\(String(describing: error))")
            #expect(error?.message.contains(url.path) == true)
            #expect(!printed.contains("encoding error"), "\(printed)")
            #expect(!printed.contains("I/O error"), "\(printed)")
        }
    }

    @Test func bytesThatFailTheEncodingLibxml2DetectsAreAnErrorWithItsReasonAndPrintNothing() throws {
        // "<" in UCS-4 (libxml2 guesses the encoding from the first four bytes), then bytes that
        // are no UCS-4 character: libxml2 converts the first bytes while the reader is made,
        // before any read, and printed its error there.
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Six.xml")
            try Data([0x3C, 0x00, 0x00, 0x00, 0xE3, 0x00]).write(to: url)
            var loaded: StoreError?
            var metadata: StoreError?
            var model: StoreError?
            let printed = try Self.standardErrorOutput {
                loaded = storeError { _ = try XMLStack(model: Models.league, url: url) }
                metadata = storeError { _ = try XMLStore.metadata(forStoreAt: url, options: [:]) }
                model = storeError { _ = try ObjectModel.readXcodeModelContents(contents(of: url), file: url) }
            }
            for error in [loaded, metadata, model] {
                #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
                #expect(error?.message.contains("input conversion failed") == true, "\(String(describing: error))")
            }
            #expect(!printed.contains("encoding error"), "\(printed)")
            #expect(!printed.contains("I/O error"), "\(printed)")
        }
    }

    @Test func aModelNotInItsDeclaredEncodingIsAnErrorAndPrintsNothing() throws {
        let model = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
            </model>
            """
        var error: StoreError?
        let printed = try Self.standardErrorOutput {
            error = storeError { _ = try ObjectModel.readXcodeModelContents(Self.misencoded(model), file: URL(fileURLWithPath: "/m/contents")) }
        }
        #expect(error != nil)
        #expect(!printed.contains("encoding error"), "\(printed)")
        #expect(!printed.contains("I/O error"), "\(printed)")
    }
}
