import Foundation
import StoreCore

/// Evaluates a predicate against one object (a dictionary of common attribute types), ignoring
/// errors (a predicate naming keys the object lacks, or comparing types that do not compare,
/// fails cleanly): what must not happen is a crash or a hang.
enum PredicateProbe {
    static let object: [String: StoreValue] = [
        "name": "Ann", "age": .int(42), "score": .double(2.5), "active": .bool(true),
        "joined": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)), "tags": "a,b",
    ]

    static func evaluate(_ predicate: FetchPredicate) {
        _ = try? PredicateEvaluator(now: Date(timeIntervalSinceReferenceDate: 700_000_000)).evaluate(predicate, with: object)
    }
}
