import StoreCore

/// A fetch request compiled to SQL: the statement's text, the values bound to its `?1`, `?2`,
/// … and the reader of its rows. ``SQLiteStore`` keeps the recent ones by request, so a request
/// run again is bound and stepped without compiling (the connection keeps the prepared
/// statement by its text).
///
/// The key is the whole request, constants included: the SQL the compiler writes depends on
/// some constants' values (an `IN` of more than 256 values reads a JSON array, a comparison of
/// two constants is decided at compile time, a nil compares with `IS NULL`), so requests that
/// differ in a constant are compiled apart.
struct SQLiteCompiledFetch {
    /// The statement's text.
    let sql: String
    /// The values of its numbered parameters, in order.
    let parameters: [StoreValue]
    /// The reader of a fetch of objects; nil for IDs and counts.
    let reader: SQLiteRowReader?
    /// The fetched entity (prefetching starts from it).
    let mapping: SQLEntityMapping
    /// The store identifier the compiled form was made with (object IDs and readers use it).
    let storeIdentifier: String
}

extension SQLiteCompiledFetch {
    /// The key of a compiled fetch: the request, with its string constants compared by their
    /// bytes. Swift compares strings by canonical equivalence (`"é"` precomposed equals `"e"`
    /// with a combining accent), SQLite by bytes, so two requests Swift finds equal may select
    /// different rows; they must not share their bound parameters.
    struct Key: Hashable {
        let request: FetchRequest

        static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.request == rhs.request else { return false }
            switch (lhs.request.predicate, rhs.request.predicate) {
            case (let p?, let q?): return identical(p, q)
            default: return true
            }
        }

        func hash(into hasher: inout Hasher) { hasher.combine(request) }

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
}
