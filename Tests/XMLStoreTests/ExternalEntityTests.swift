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
/// expanding anything. libxml2's external-entity loader is replaced for the duration of each
/// test by one that counts requests and refuses them, so any attempt to load is seen; the files
/// named by the document are also made so that loading them would break the load.
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

    @Test func aDocumentDeclaringExternalEntitiesLoadsWithoutFetchingThem() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Hostile.xml")
            try write(
                try Self.hostileDocument(in: directory, objects: """
                        <object type="TEAM" id="z1">
                            <attribute name="name" type="string">Crew &amp; friends</attribute>
                        </object>
                    """), to: url)
            var names: [StoreValue?] = []
            let loads = try Self.countingLoads {
                let stack = try XMLStack(model: Models.league, url: url)
                names = try stack.nodes("Team").map { $0.attributes["name"] }
                #expect(try XMLStore.metadata(forStoreAt: url, options: [:])[MetadataKey.storeUUID] == "2B6C7F0E-1D2A-4E55-8B1C-9A0F3E4D5C6B")
                // Saving writes Core Data's own document type, without the internal subset.
                let id = try stack.newIDs("Player")[0]
                try stack.save(inserted: [StoreNode(objectID: id, attributes: ["firstName": "Terry"], version: 0)])
            }
            #expect(loads == 0, "libxml2 tried to load \(loads) external resource(s)")
            #expect(names == ["Crew & friends"])
            let saved = text(of: url)
            #expect(saved.contains("<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n"))
            #expect(!saved.contains("ENTITY"))
            #expect(!saved.contains("TOP-SECRET"))
        }
    }

    @Test(arguments: ["&xxe;", "&remote;", "before &xxe; after"])
    func anExternalEntityInAValueIsAnErrorAndNeverExpanded(_ value: String) throws {
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
            let loads = Self.countingLoads {
                error = storeError { _ = try XMLStack(model: Models.league, url: url) }
            }
            #expect(loads == 0, "libxml2 tried to load \(loads) external resource(s)")
            let failure = try #require(error)
            #expect(failure.code == .persistentStoreOpen)
            #expect(failure.message.contains("\(url.path), line 16:"), "\(failure.message)")
            #expect(failure.message.contains("entity reference"), "\(failure.message)")
            #expect(!failure.message.contains("TOP-SECRET"))
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

    @Test func nestedInternalEntitiesAreNotExpanded() throws {
        // "Billion laughs": ten levels of ten references each would expand to 10^10 copies.
        var declarations = "<!ENTITY lol0 \"lol\">\n"
        for level in 1...10 {
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
        }
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE database [
            \(declarations)]>
            <database>
                <object type="TEAM" id="z1">
                    <attribute name="name" type="string">&lol10;</attribute>
                </object>
            </database>

            """
        let (error, _) = try loadError(document)
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("entity reference") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("line 17:") == true, "\(error?.message ?? "")")
    }
}
