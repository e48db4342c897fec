import CLibXML2
import Foundation
import StoreCore
import StoreTestSupport
import Synchronization
import Testing
import XMLStore

/// How many times libxml2 asked for an external resource (DTD, entity, parameter entity) while
/// ``ExternalEntityTests`` watched.
let externalLoadRequests = Atomic<Int>(0)

/// Behaviour #61: XML with external entities and a DTD reference is read without fetching or
/// expanding anything. A document type that names an external DTD loads (Core Data writes one);
/// one that declares entities is refused before anything is expanded (a "billion laughs" chain
/// used in an attribute would otherwise exhaust memory). libxml2's external-entity loader is
/// replaced for the duration of each test by one that counts requests and refuses them, so any
/// attempt to load is seen; the files named by the document are also made so that loading them
/// would break the load.
@Suite("External entities and DTDs (#61)", .serialized)
struct ExternalEntityTests {
    /// A document whose DOCTYPE names a DTD file and declares external entities (a file, a URL,
    /// a parameter entity that is referenced), around `objects`.
    static func hostileDocument(in directory: URL, objects: String) throws -> String {
        let secret = directory.appendingPathComponent("secret.txt")
        try write("TOP-SECRET-CONTENT", to: secret)
        // Either of these, if read, would make the document fail (they are not well-formed).
        try write("<!ENTITY broken ", to: directory.appendingPathComponent("evil.dtd"))
        try write("<!ATTLIST oops ", to: directory.appendingPathComponent("evil-pe.dtd"))
        return """
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "\(directory.appendingPathComponent("evil.dtd").absoluteString)" [
              <!ENTITY xxe SYSTEM "\(secret.absoluteString)">
              <!ENTITY remote SYSTEM "http://127.0.0.1:9/remote.txt">
              <!ENTITY % pe SYSTEM "\(directory.appendingPathComponent("evil-pe.dtd").absoluteString)">
              %pe;
            ]>
            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>2B6C7F0E-1D2A-4E55-8B1C-9A0F3E4D5C6B</UUID>
                    <nextObjectID>3</nextObjectID>
                    <metadata></metadata>
                </databaseInfo>
            \(objects)
            </database>

            """
    }

    /// Runs `body` with the counting loader installed, and returns how many loads it saw.
    static func countingLoads(_ body: () throws -> Void) rethrows -> Int {
        let previous = xmlGetExternalEntityLoader()
        externalLoadRequests.store(0, ordering: .sequentiallyConsistent)
        xmlSetExternalEntityLoader { _, _, _ in
            externalLoadRequests.add(1, ordering: .sequentiallyConsistent)
            return nil
        }
        defer { xmlSetExternalEntityLoader(previous) }
        try body()
        return externalLoadRequests.load(ordering: .sequentiallyConsistent)
    }

    /// The document of ``hostileDocument(in:objects:)`` without its internal subset: a
    /// document type naming an external DTD only, as Core Data writes it.
    static func externalDTDDocument(in directory: URL, objects: String) throws -> String {
        let full = try hostileDocument(in: directory, objects: objects)
        let start = try #require(full.range(of: " ["))
        let end = try #require(full.range(of: "]>\n"))
        return full.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ">\n")
    }

    /// Ten levels of ten references each: `&lol10;` expands to 10^10 copies of "lol".
    static let billionLaughsDeclarations: String = {
        var declarations = "<!ENTITY lol0 \"lol\">\n"
        for level in 1...10 {
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
        }
        return declarations
    }()

    @Test func aDocumentTypeNamingAnExternalDTDLoadsWithoutFetchingIt() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("External.xml")
            try write(
                try Self.externalDTDDocument(in: directory, objects: """
                        <object type="TEAM" id="z1">
                            <attribute name="name" type="string">Crew &amp; friends</attribute>
                        </object>
                    """), to: url)
            var names: [StoreValue?] = []
            let loads = try Self.countingLoads {
                let stack = try XMLStack(model: Models.league, url: url)
                names = try stack.nodes("Team").map { $0.attributes["name"] }
                #expect(try XMLStore.metadata(forStoreAt: url, options: [:])[MetadataKey.storeUUID] == "2B6C7F0E-1D2A-4E55-8B1C-9A0F3E4D5C6B")
                // Saving writes Core Data's own document type.
                let id = try stack.newIDs("Player")[0]
                try stack.save(inserted: [StoreNode(objectID: id, attributes: ["firstName": "Terry"], version: 0)])
            }
            #expect(loads == 0, "libxml2 tried to load \(loads) external resource(s)")
            #expect(names == ["Crew & friends"])
            let saved = text(of: url)
            #expect(saved.contains("<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n"))
            #expect(!saved.contains("evil.dtd"))
        }
    }

    @Test(arguments: ["&xxe;", "&remote;", "before &xxe; after", "no reference at all"])
    func aDocumentDeclaringExternalEntitiesIsRefusedWithoutFetchingThem(_ value: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Hostile.xml")
            try write(
                try Self.hostileDocument(in: directory, objects: """
                        <object type="TEAM" id="z1">
                            <attribute name="name" type="string">\(value)</attribute>
                        </object>
                    """), to: url)
            let before = contents(of: url)
            var error: StoreError?
            var metadataError: StoreError?
            let loads = Self.countingLoads {
                error = storeError { _ = try XMLStack(model: Models.league, url: url) }
                metadataError = storeError { _ = try XMLStore.metadata(forStoreAt: url, options: [:]) }
            }
            #expect(loads == 0, "libxml2 tried to load \(loads) external resource(s)")
            for failure in [error, metadataError] {
                let failure = try #require(failure)
                #expect(failure.code == .persistentStoreOpen)
                #expect(failure.message.contains("\(url.path), line 3:"), "\(failure.message)")
                #expect(failure.message.contains("declares the entity \"xxe\""), "\(failure.message)")
                #expect(!failure.message.contains("TOP-SECRET"))
            }
            #expect(contents(of: url) == before)
        }
    }

    @Test func anExternalEntityInAnAttributeValueIsRefused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Hostile.xml")
            try write(
                try Self.hostileDocument(in: directory, objects: """
                        <object type="TEAM" id="&xxe;">
                        </object>
                    """), to: url)
            var error: StoreError?
            let loads = Self.countingLoads {
                error = storeError { _ = try XMLStack(model: Models.league, url: url) }
            }
            #expect(loads == 0)
            #expect(error?.code == .persistentStoreOpen)
            #expect(error?.message.contains("TOP-SECRET") == false)
        }
    }

    @Test func nestedInternalEntitiesInContentAreRefused() throws {
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE database [
            \(Self.billionLaughsDeclarations)]>
            <database>
                <object type="TEAM" id="z1">
                    <attribute name="name" type="string">&lol10;</attribute>
                </object>
            </database>

            """
        let (error, url) = try loadError(document)
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("\(url.path), line 3: the document type declares the entity \"lol0\"") == true, "\(error?.message ?? "")")
    }

    /// Issue 14, defect 2: a 1 KB file whose entity chain is used in an attribute value made the
    /// load hang with memory growing (libxml2 expands entities in attribute values, and
    /// `XML_PARSE_HUGE` had switched its amplification limit off).
    @Test(arguments: ["id", "type", "name"])
    func aBillionLaughsChainInAnAttributeFailsFastAndCleanly(attribute: String) throws {
        let attributes = ["type": "\"TEAM\"", "id": "\"z1\"", "name": "\"name\""]
        func value(_ name: String) -> String { name == attribute ? "\"&lol10;\"" : attributes[name] ?? "\"\"" }
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE database [
            \(Self.billionLaughsDeclarations)]>
            <database>
                <object type=\(value("type")) id=\(value("id"))>
                    <attribute name=\(value("name")) type="string">Crew</attribute>
                </object>
            </database>

            """
        #expect(document.utf8.count < 2048)
        let clock = ContinuousClock()
        let start = clock.now
        let (error, url) = try loadError(document)
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(5), "the load took \(elapsed)")
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("\(url.path), line 3:") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("declares the entity \"lol0\"") == true, "\(error?.message ?? "")")
    }

    /// The check runs libxml2's own parser over the prolog, so a declaration in another encoding
    /// is found as well.
    @Test func aBillionLaughsChainInUTF16IsRefused() throws {
        let document = """
            <?xml version="1.0" encoding="UTF-16"?>
            <!-- a comment first -->
            <!DOCTYPE database [
            \(Self.billionLaughsDeclarations)]>
            <database><object type="TEAM" id="&lol10;"></object></database>

            """
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in document.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Wide.xml")
            try Data(bytes).write(to: url)
            let error = storeError { _ = try XMLStack(model: Models.league, url: url) }
            #expect(error?.code == .persistentStoreOpen)
            #expect(error?.message.contains("\(url.path), line 4:") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("declares the entity \"lol0\"") == true, "\(error?.message ?? "")")
        }
    }
}
