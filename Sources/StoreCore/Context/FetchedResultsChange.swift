/// What changed in a ``FetchedResultsController``'s sections between two updates, in the order
/// a table or list view applies it (Core Data's controller delegate callbacks, as one value):
///
/// 1. remove the objects at ``deletedObjects`` and at the `from` of ``movedObjects`` (old
///    index paths);
/// 2. remove the sections at ``deletedSections`` (old indices);
/// 3. insert empty sections at ``insertedSections`` (new indices, ascending);
/// 4. insert the objects at ``insertedObjects`` and the moved objects at their `to` (new index
///    paths, ascending).
///
/// ``updatedObjects`` (new index paths) are objects that stayed in place but changed.
/// ``apply(to:inserting:)`` does exactly this, so applying a change to the previous sections
/// gives the new ones.
public struct FetchedResultsChange: Sendable, Hashable {
    /// A position: a section and an item in it.
    public struct IndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The section.
        public let section: Int
        /// The item in the section.
        public let item: Int

        /// Creates an index path.
        public init(section: Int, item: Int) {
            self.section = section
            self.item = item
        }

        /// Section first, then item.
        public static func < (lhs: IndexPath, rhs: IndexPath) -> Bool { (lhs.section, lhs.item) < (rhs.section, rhs.item) }

        /// "[section, item]".
        public var description: String { "[\(section), \(item)]" }
    }

    /// An object that moved.
    public struct Move: Sendable, Hashable {
        /// Where it was (old sections).
        public let from: IndexPath
        /// Where it is (new sections).
        public let to: IndexPath

        /// Creates a move.
        public init(from: IndexPath, to: IndexPath) {
            self.from = from
            self.to = to
        }
    }

    /// Old indices of sections that went away.
    public var deletedSections: [Int] = []
    /// New indices of sections that appeared.
    public var insertedSections: [Int] = []
    /// Old index paths of objects that left the results.
    public var deletedObjects: [IndexPath] = []
    /// New index paths of objects that entered the results.
    public var insertedObjects: [IndexPath] = []
    /// Objects that changed place.
    public var movedObjects: [Move] = []
    /// New index paths of objects that stayed in place and changed.
    public var updatedObjects: [IndexPath] = []

    /// An empty change.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletedObjects.isEmpty && insertedObjects.isEmpty
            && movedObjects.isEmpty && updatedObjects.isEmpty
    }

    /// `sections` with this change applied in the order above; `inserting` gives the element for
    /// each inserted index path (moved elements are carried over).
    public func apply<Element>(to sections: [[Element]], inserting: (IndexPath) -> Element) -> [[Element]] {
        var result = sections
        var moved: [IndexPath: Element] = [:]
        for move in movedObjects { moved[move.to] = sections[move.from.section][move.from.item] }
        let removals = (deletedObjects + movedObjects.map(\.from)).sorted(by: >)
        for path in removals { result[path.section].remove(at: path.item) }
        for section in deletedSections.sorted(by: >) { result.remove(at: section) }
        for section in insertedSections.sorted() { result.insert([], at: section) }
        let additions = (insertedObjects + movedObjects.map(\.to)).sorted()
        for path in additions { result[path.section].insert(moved[path] ?? inserting(path), at: path.item) }
        return result
    }

    /// The change from `old` to `new` sections (named, elements identified by `id`), with
    /// `changed` telling which staying elements changed: the fewest moves that keep the order of
    /// everything else (a longest increasing subsequence per section).
    static func between<ID: Hashable>(
        old: [(name: String, ids: [ID])], new: [(name: String, ids: [ID])], changed: (ID) -> Bool
    ) -> FetchedResultsChange {
        var change = FetchedResultsChange()
        // Sections: those in both, in an order both agree on, stay; the others go or come.
        var oldSectionIndex: [String: Int] = [:]
        for (index, section) in old.enumerated() where oldSectionIndex[section.name] == nil { oldSectionIndex[section.name] = index }
        let common = new.enumerated().compactMap { index, section in oldSectionIndex[section.name].map { (new: index, old: $0) } }
        let keptSections = Set(longestIncreasing(common.map(\.old)).map { common[$0].new })
        var keptOld: [Int: Int] = [:]  // new section index → old section index
        for pair in common where keptSections.contains(pair.new) { keptOld[pair.new] = pair.old }
        let keptOldSet = Set(keptOld.values)
        change.deletedSections = old.indices.filter { !keptOldSet.contains($0) }
        change.insertedSections = new.indices.filter { keptOld[$0] == nil }

        var oldPath: [ID: IndexPath] = [:]
        for (section, content) in old.enumerated() {
            for (item, id) in content.ids.enumerated() { oldPath[id] = IndexPath(section: section, item: item) }
        }
        var inNew: Set<ID> = []
        for (section, content) in new.enumerated() {
            // The objects that stay: of those that were in the same (kept) section, the longest
            // run whose old order is their new order.
            var stayers: Set<Int> = []
            if let oldSection = keptOld[section] {
                let candidates = content.ids.enumerated().compactMap { item, id -> (item: Int, old: Int)? in
                    guard let path = oldPath[id], path.section == oldSection else { return nil }
                    return (item, path.item)
                }
                stayers = Set(longestIncreasing(candidates.map(\.old)).map { candidates[$0].item })
            }
            for (item, id) in content.ids.enumerated() {
                inNew.insert(id)
                let path = IndexPath(section: section, item: item)
                if stayers.contains(item) {
                    if changed(id) { change.updatedObjects.append(path) }
                } else if let from = oldPath[id] {
                    change.movedObjects.append(Move(from: from, to: path))
                } else {
                    change.insertedObjects.append(path)
                }
            }
        }
        for (section, content) in old.enumerated() {
            for (item, id) in content.ids.enumerated() where !inNew.contains(id) {
                change.deletedObjects.append(IndexPath(section: section, item: item))
            }
        }
        return change
    }

    /// The positions in `values` of a longest strictly increasing subsequence.
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // positions of the smallest tail of each length
        var previous = Array(repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            result.append(position)
            position = previous[position]
        }
        return result.reversed()
    }
}
