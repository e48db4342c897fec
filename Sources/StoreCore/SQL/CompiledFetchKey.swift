/// The key of a compiled fetch (``SQLCompiledFetch``): the request, with its string constants
/// compared by their bytes. Swift compares strings by canonical equivalence (`"é"` precomposed
/// equals `"e"` with a combining accent), SQL engines by bytes (SQLite; PostgreSQL's `"C"`
/// collation), so two requests Swift finds equal may select different rows; they must not share
/// their bound parameters.
package struct CompiledFetchKey: Hashable {
    /// The request.
    package let request: FetchRequest

    /// The key of `request`.
    package init(request: FetchRequest) { self.request = request }

    /// Equal requests whose string constants are also equal byte for byte.
    package static func == (lhs: CompiledFetchKey, rhs: CompiledFetchKey) -> Bool {
        guard lhs.request == rhs.request else { return false }
        switch (lhs.request.predicate, rhs.request.predicate) {
        case (let p?, let q?): return identical(p, q)
        default: return true
        }
    }

    /// Hashes the request (byte-different constants that Swift finds equal hash alike and are
    /// told apart by `==`).
    package func hash(into hasher: inout Hasher) { hasher.combine(request) }

    /// Whether two predicates Swift finds equal also have byte-identical string constants.
    private static func identical(_ p: FetchPredicate, _ q: FetchPredicate) -> Bool {
        switch (p, q) {
        case (.comparison(let a), .comparison(let b)): return identical(a.lhs, b.lhs) && identical(a.rhs, b.rhs)
        case (.and(let a), .and(let b)), (.or(let a), .or(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
        case (.not(let a), .not(let b)): return identical(a, b)
        default: return true
        }
    }

    private static func identical(_ x: FetchExpression, _ y: FetchExpression) -> Bool {
        switch (x, y) {
        case (.constant(.string(let a)), .constant(.string(let b))): return a.utf8.elementsEqual(b.utf8)
        case (.collection(let a), .collection(let b)): return a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
        case (.keyPath(let a, _), .keyPath(let b, _)): return identical(a, b)
        case (.subquery(let ca, _, let pa), .subquery(let cb, _, let pb)): return identical(ca, cb) && identical(pa, pb)
        case (.arithmetic(_, let la, let ra), .arithmetic(_, let lb, let rb)): return identical(la, lb) && identical(ra, rb)
        default: return true
        }
    }
}
