import Foundation
import StoreCore
import Testing

/// Derived attributes in models: read from Xcode's model files, kept in the JSON form, parsed
/// when the model is made (a bad expression is refused naming the attribute).
@Suite struct DerivedAttributeModelTests {
    @Test func readFromAnXcodeModelAndKeptInJSON() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("derived-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = folder.appendingPathComponent("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Writer" representedClassName="Writer" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="searchName" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(name)"/>
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: bundle.appendingPathComponent("contents"))
        let model = try ObjectModel(contentsOf: bundle)
        #expect(model.attribute("searchName", of: "Writer")?.derivationExpression == "canonical:(name)")
        #expect(model.attribute("name", of: "Writer")?.derivationExpression == nil)
        let json = folder.appendingPathComponent("Library.json")
        try model.writeJSON(to: json)
        #expect(try ObjectModel(contentsOf: json).attribute("searchName", of: "Writer")?.derivationExpression == "canonical:(name)")
    }

    @Test func expressionsParse() throws {
        let canonical = try AttributeDerivation("canonical:(name)", entity: "E", attribute: "a")
        #expect(canonical.function == .canonical)
        #expect(canonical.expression == .keyPath("name"))
        #expect(try AttributeDerivation("books.@count", entity: "E", attribute: "a").function == .identity)
        #expect(try AttributeDerivation("now()", entity: "E", attribute: "a").expression == .now)
        #expect(throws: StoreError.self) { try AttributeDerivation("1 + 2", entity: "E", attribute: "a") }
        #expect(throws: StoreError.self) { try AttributeDerivation("lowercase:(now())", entity: "E", attribute: "a") }
    }
}
