import Foundation

/// The object count and value lengths of the nodes a load adds, against ``StoreLimits``: the
/// first excess is kept and thrown once the store's ``AtomicStore/load()`` returns.
struct LoadLimitCheck {
    /// An exceeded limit.
    struct Problem: CustomStringConvertible {
        let description: String
        let entityName: String?
    }

    private var count = 0
    private(set) var problem: Problem?

    mutating func add(_ node: borrowing StoreNode, limits: StoreLimits) {
        count += 1
        guard problem == nil else { return }
        if count > limits.maximumObjectCount {
            problem = Problem(
                description: "the file holds more than \(limits.maximumObjectCount) objects, the limit (raise it with the option \(StoreLimits.maximumObjectCountOption))",
                entityName: nil)
        } else if let (key, length) = limits.overlongValue(in: node) {
            problem = Problem(
                description: "\(node.entityName).\(key) holds a value of \(length) bytes, more than the limit of \(limits.maximumValueLength) bytes (raise it with the option \(StoreLimits.maximumValueLengthOption))",
                entityName: node.entityName)
        }
    }
}
