import Foundation
import StoreCore
import Testing

@Suite("NodeTable")
struct NodeTableTests {
    static func id(_ store: String, _ reference: ReferenceObject, entity: String = "Team") -> ObjectID {
        ObjectID(storeIdentifier: store, entityName: entity, reference: reference)
    }

    @Test func idsThatShareAReferenceObjectStayApart() {
        var table = NodeTable()
        let a = Self.id("A", .int(1))
        let b = Self.id("B", .int(1))  // same reference object, another store
        let c = Self.id("A", .int(1), entity: "Player")  // same reference object, another entity
        let t = ObjectID.temporary(entityName: "Team")
        for (id, name) in [(a, "a"), (b, "b"), (c, "c"), (t, "t")] {
            table.upsert(StoreNode(objectID: id, attributes: ["name": .string(name)]))
        }
        #expect(table.count == 4)
        #expect(table.node(for: a)?.attributes["name"] == "a")
        #expect(table.node(for: b)?.attributes["name"] == "b")
        #expect(table.node(for: c)?.attributes["name"] == "c")
        #expect(table.node(for: t)?.attributes["name"] == "t")
        #expect(table.node(for: Self.id("C", .int(1))) == nil)
        // Replacing keeps the position and the count.
        table.upsert(StoreNode(objectID: b, attributes: ["name": "b2"]))
        #expect(table.count == 4)
        #expect(table.nodes.map { $0.attributes["name"] } == ["a", "b2", "c", "t"])
        // Removing the first holder of the reference object leaves the others findable.
        #expect(table.remove(a)?.attributes["name"] == "a")
        #expect(!table.contains(a))
        #expect(table.node(for: b)?.attributes["name"] == "b2")
        table.upsert(StoreNode(objectID: b, attributes: ["name": "b3"]))
        #expect(table.count == 3)
        #expect(table.nodes.map { $0.attributes["name"] } == ["b3", "c", "t"])
        #expect(table.modify(c) { $0.attributes["name"] = "c2" })
        #expect(table.node(for: c)?.attributes["name"] == "c2")
        #expect(table.remove(t) != nil)
        #expect(table.remove(t) == nil)
        #expect(table.count == 2)
    }

    @Test func manyRemovalsCompactAndKeepEveryNodeFindable() {
        var table = NodeTable()
        let ids = (0..<500).map { Self.id($0 % 2 == 0 ? "A" : "B", .int(Int64($0 / 2))) }
        for id in ids { table.upsert(StoreNode(objectID: id)) }
        #expect(table.count == 500)
        for id in ids.prefix(400) { table.remove(id) }
        #expect(table.count == 100)
        for id in ids.suffix(100) { #expect(table.contains(id)) }
        for id in ids.prefix(400) { #expect(!table.contains(id)) }
        #expect(table.nodes.map(\.objectID) == Array(ids.suffix(100)))
    }
}
