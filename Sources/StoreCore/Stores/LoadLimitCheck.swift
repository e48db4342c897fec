import Foundation

/// The object count and value lengths of the nodes a load adds, against ``StoreLimits``: the
/// first excess is kept and thrown once the store's ``AtomicStore/load()`` returns. The built-in
/// stores' readers check both before they build anything; this catches custom stores that do not.
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
        if let excess = limits.objectCountExcess(count) {
            problem = Problem(description: excess, entityName: nil)
        } else if let (key, length) = limits.overlongValue(in: node),
            let excess = limits.valueLengthExcess(length, entityName: node.entityName, key: key)
        {
            problem = Problem(description: excess, entityName: node.entityName)
        }
    }
}
