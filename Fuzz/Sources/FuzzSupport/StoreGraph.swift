import Foundation
import PersistentStores

/// A store's object graph in a form that compares exactly and does not depend on the store's
/// identifier: one line per object, keyed by entity and reference object, with every attribute
/// value (floating-point values and dates by bit pattern) and every relationship by the keys of
/// its destinations (unordered to-many sorted, ordered ones in order).
public struct StoreGraph: Equatable, CustomStringConvertible {
    /// The lines, sorted.
    public let lines: [String]

    /// The graph of `nodes` in `model`.
    public init(_ nodes: [StoreNode], model: ObjectModel) {
        func key(_ id: ObjectID) -> String { "\(id.entityName)#\(id.referenceObject?.description ?? "?")" }
        lines = nodes.map { node in
            var parts = [key(node.objectID)]
            for (name, value) in node.attributes.sorted(by: { $0.key < $1.key }) where !value.isNull {
                parts.append("\(name)=\(Self.canonical(value))")
            }
            for (name, destination) in node.toOne.sorted(by: { $0.key < $1.key }) {
                parts.append("\(name)->\(key(destination))")
            }
            for (name, destinations) in node.toMany.sorted(by: { $0.key < $1.key }) {
                var keys = destinations.map(key)
                if model.relationship(name, of: node.entityName)?.isOrdered != true { keys.sort() }
                parts.append("\(name)->[\(keys.joined(separator: ","))]")
            }
            return parts.joined(separator: " | ")
        }.sorted()
    }

    /// The graph of an atomic store's cache.
    public init(_ store: AtomicStore) {
        self.init(store.cacheNodes, model: store.model)
    }

    /// A value as text that tells apart every value a store must keep apart.
    static func canonical(_ value: StoreValue) -> String {
        switch value {
        case .double(let number): return number.isNaN ? "double(nan)" : "double(\(number.bitPattern))"
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            return seconds.isNaN ? "date(nan)" : "date(\(seconds.bitPattern))"
        case .data(let data): return "data(\(data.map { String($0, radix: 16) }.joined(separator: " ")))"
        case .string(let text): return "string(\(text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")))"
        default: return "\(value)"
        }
    }

    /// The lines, one per object.
    public var description: String { lines.joined(separator: "\n") }

    /// The first line that differs between two graphs, for messages.
    public func firstDifference(from other: StoreGraph) -> String {
        for (mine, theirs) in zip(lines, other.lines) where mine != theirs {
            return "\(mine)\n  became\n\(theirs)"
        }
        return "\(lines.count) objects became \(other.lines.count)"
    }
}
