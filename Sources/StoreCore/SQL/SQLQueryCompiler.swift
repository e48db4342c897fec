import Foundation

/// Compiles predicates, sort keys and dictionary columns of a fetch into SQL over Core Data's
/// layout (``SQLSchema``), for every SQL store of the framework: the SQLite store and the
/// PostgreSQL store share it. Values are always bound (numbered parameters `?1`, `?2`, … so the
/// text order never matters); identifiers come from the schema only.
///
/// - To-one key paths (`team.name`) become `LEFT JOIN`s on the fetched table.
/// - Key paths through a to-many relationship (`posts.title`) become correlated subqueries:
///   `EXISTS` for `ANY` (and for a key path without modifier), `NOT EXISTS … NOT` for `ALL`,
///   `NOT EXISTS` for `NONE`; collection operators (`@count`, `@sum`, `@avg`, `@min`, `@max`)
///   and `SUBQUERY(…)` become scalar subqueries with the aggregate.
/// - `[c]`, `[d]`, `LIKE`, `MATCHES`, `ENDSWITH`, `CONTAINS` call the `ps_…` functions each
///   store defines on its connections (the SQLite store's `SQLiteFunctions`); `BEGINSWITH` without options is a range on the column, so an index
///   serves it.
/// - Comparisons keep the evaluator's two-valued logic: a comparison with nil is false, and
///   `NOT` turns SQL's unknown into true (`NOT COALESCE(…, 0)`).
///
/// Anything it cannot translate is an error; nothing falls back to loading the table.
package final class SQLQueryCompiler {
    /// Where the joins of a row source go: the fetch's `FROM`, or a subquery's.
    package final class Joins {
        /// `FROM` items and joins, in order (the first item of a subquery is its base table).
        package var clauses: [String] = []
        /// Aliases already joined, by the SQL of the key they join on.
        package var joined: [String: String] = [:]
    }

    /// An object in SQL: its primary key, its entity number when it can vary, and where joins
    /// from it go.
    package struct ObjectRef {
        /// SQL of the object's `Z_PK` (a foreign-key column, or `alias.Z_PK`).
        package let key: String
        /// SQL of the object's `Z_ENT`, when the declared entity has sub-entities.
        package let entityNumber: String?
        /// The declared entity.
        package let entity: String
        /// Where a join to the object's row goes.
        package let joins: Joins
        /// The alias of the object's row, when it is already in a `FROM`.
        package var alias: String?
    }

    /// The rows of a to-many key path: a subquery's `FROM` and its conditions.
    package final class Collection {
        package let joins = Joins()
        package var conditions: [String] = []
        /// The condition of no conditions.
        private let alwaysTrue: String

        init(dialect: SQLDialect) { alwaysTrue = dialect.alwaysTrue }

        package func from() -> String { joins.clauses.joined(separator: " ") }
        package func whereClause() -> String { conditions.isEmpty ? alwaysTrue : conditions.joined(separator: " AND ") }
    }

    /// A compiled expression.
    package indirect enum Value {
        /// An attribute column.
        case column(String, AttributeType)
        /// A computed scalar (arithmetic, aggregate); its type when known.
        case computed(String, AttributeType?)
        /// An object.
        case object(ObjectRef)
        /// A constant, bound when its counterpart's type is known.
        case constant(StoreValue)
        /// A literal collection (`{1, 2}`, an array argument).
        case list([Value])
        /// The elements of a to-many key path: `element` inside `collection`'s subquery.
        case collection(Collection, element: Value)
    }

    /// What a constant is compared with.
    package enum Domain {
        case attribute(AttributeType)
        case number
        case object(String)
        case unknown
    }

    package let schema: SQLSchema
    /// The engine the SQL is for.
    package let dialect: SQLDialect
    package let model: ObjectModel
    package let storeIdentifier: String
    package let now: Date
    /// The parameters, in `?n` order.
    package private(set) var parameters: [StoreValue] = []
    /// The joins of the fetched table `t0`.
    package let rootJoins = Joins()
    /// The fetched rows.
    package let root: ObjectRef
    private var aliasCount = 0
    private var selfObject: ObjectRef
    private var variables: [String: Value] = [:]

    package init(
        schema: SQLSchema, model: ObjectModel, storeIdentifier: String, entity: SQLEntityMapping, now: Date = Date(),
        dialect: SQLDialect = .sqlite
    ) {
        self.schema = schema
        self.dialect = dialect
        self.model = model
        self.storeIdentifier = storeIdentifier
        self.now = now
        root = ObjectRef(
            key: "t0.Z_PK", entityNumber: (schema.entities[entity.root]?.numbersWithDescendants.count ?? 1) > 1 ? "t0.Z_ENT" : nil,
            entity: entity.name, joins: rootJoins, alias: "t0")
        selfObject = root
    }

    /// A new numbered parameter for `value`.
    package func parameter(_ value: StoreValue) -> String {
        parameters.append(value)
        return dialect.placeholder(parameters.count, for: value)
    }

    private func newAlias(_ prefix: String) -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

    private static func q(_ identifier: String) -> String { SQLSchema.sql(identifier) }

    /// A condition that always holds, in this dialect.
    private var yes: String { dialect.alwaysTrue }
    /// A condition that never holds, in this dialect.
    private var no: String { dialect.alwaysFalse }

    private func unsupported(_ what: String) -> StoreError {
        StoreError(.coreData, "The \(dialect.storeName) store cannot compile \(what)")
    }

    // MARK: Predicates

    /// The SQL condition of a predicate (true rows only; unknown counts as false).
    package func condition(_ predicate: FetchPredicate) throws -> String {
        switch predicate {
        case .truePredicate: return yes
        case .falsePredicate: return no
        case .and(let parts):
            if parts.isEmpty { return yes }
            return "(" + (try parts.map(condition).joined(separator: " AND ")) + ")"
        case .or(let parts):
            if parts.isEmpty { return no }
            return "(" + (try parts.map(condition).joined(separator: " OR ")) + ")"
        case .not(let inner):
            return "(NOT \(dialect.orFalse(try condition(inner))))"
        case .comparison(let comparison):
            return try condition(comparison)
        }
    }

    private func isConstant(_ expression: FetchExpression) -> Bool {
        switch expression {
        case .constant, .now: return true
        case .collection(let items): return items.allSatisfy(isConstant)
        case .arithmetic(_, let lhs, let rhs): return isConstant(lhs) && isConstant(rhs)
        case .variable(let name): return variables[name] == nil
        case .evaluatedObject, .keyPath, .subquery: return false
        }
    }

    private func condition(_ c: ComparisonPredicate) throws -> String {
        let first = parameters.count
        let sql = try comparisonCondition(c)
        return parameters.count > first ? droppingUnusedParameters(from: first, in: sql) : sql
    }

    /// `sql` without the parameters bound from `first` on that it does not use, the later ones
    /// renumbered. A comparison may compile an operand and then answer without it (`age / 4 <=
    /// NaN` never holds: the `4` was bound for nothing); SQLite ignores such a parameter, but
    /// PostgreSQL refuses a statement given more parameters than its text uses. The parameters
    /// from `first` on were bound while compiling `sql`, so no other SQL refers to them.
    /// Quoted identifiers and string literals are skipped.
    private func droppingUnusedParameters(from first: Int, in sql: String) -> String {
        let marker = dialect.kind == .postgreSQL ? UInt8(ascii: "$") : UInt8(ascii: "?")
        let bytes = Array(sql.utf8)
        var placeholders: [(digits: Range<Int>, number: Int)] = []
        var used = Set<Int>()
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                // A doubled quote inside ends this run and starts the next: the same skip.
                index += 1
                while index < bytes.count && bytes[index] != byte { index += 1 }
                index += 1
            } else if byte == marker {
                var end = index + 1
                var number = 0
                while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 {
                    number = number &* 10 &+ Int(bytes[end] &- UInt8(ascii: "0"))
                    end += 1
                }
                if end > index + 1, number > first {
                    placeholders.append((index + 1..<end, number))
                    used.insert(number)
                }
                index = end
            } else {
                index += 1
            }
        }
        guard used.count < parameters.count - first else { return sql }
        var renumbered: [Int: Int] = [:]
        var kept: [StoreValue] = []
        for number in (first + 1)...parameters.count where used.contains(number) {
            kept.append(parameters[number - 1])
            renumbered[number] = first + kept.count
        }
        parameters.replaceSubrange(first..., with: kept)
        var rewritten: [UInt8] = []
        rewritten.reserveCapacity(bytes.count)
        var copied = 0
        for placeholder in placeholders {
            guard let number = renumbered[placeholder.number], number != placeholder.number else { continue }
            rewritten += bytes[copied..<placeholder.digits.lowerBound]
            rewritten += Array(String(number).utf8)
            copied = placeholder.digits.upperBound
        }
        rewritten += bytes[copied...]
        return String(decoding: rewritten, as: UTF8.self)
    }

    private func comparisonCondition(_ c: ComparisonPredicate) throws -> String {
        if isConstant(c.lhs) && isConstant(c.rhs) {
            // Nothing from the row: the evaluator decides once (and reports its errors).
            let evaluator = PredicateEvaluator(now: now)
            return try evaluator.evaluate(.comparison(c), with: [String: StoreValue]()) ? yes : no
        }
        let lhs = try value(c.lhs)
        let rhs = try value(c.rhs)
        if case .list(let items) = lhs, c.op != .contains {
            // A literal collection on the left (`{1, age} == nil`): each member compared on its
            // own, as the evaluator does — ANY without a modifier. (`CONTAINS` tests membership
            // of the whole list, below.) A collection of rows on the right keeps its own rules.
            if case .collection = rhs {
            } else {
                let tests = try items.map { dialect.orFalse(try compare($0, c.op, rhs, c)) }
                switch c.modifier {
                case .direct, .any: return tests.isEmpty ? no : "(" + tests.joined(separator: " OR ") + ")"
                case .all: return tests.isEmpty ? yes : "(" + tests.joined(separator: " AND ") + ")"
                case .none: return tests.isEmpty ? yes : "(NOT (" + tests.joined(separator: " OR ") + "))"
                }
            }
        }
        if case .collection(let collection, let element) = lhs {
            if c.op == .contains && c.modifier == .direct, case .object = element {
                // `users CONTAINS %@`: membership.
                return "EXISTS (SELECT 1 FROM \(collection.from()) WHERE \(collection.whereClause()) AND \(try compare(element, .equalTo, rhs, c)))"
            }
            let test = try compare(element, c.op, rhs, c)
            switch c.modifier {
            case .direct, .any:
                return "EXISTS (SELECT 1 FROM \(collection.from()) WHERE \(collection.whereClause()) AND \(test))"
            case .all:
                return "(NOT EXISTS (SELECT 1 FROM \(collection.from()) WHERE \(collection.whereClause()) AND NOT \(dialect.orFalse(test))))"
            case .none:
                return "(NOT EXISTS (SELECT 1 FROM \(collection.from()) WHERE \(collection.whereClause()) AND \(test)))"
            }
        }
        if case .collection(let collection, let element) = rhs {
            guard c.op == .in || c.op == .equalTo || c.op == .notEqualTo else { return c.op == .notEqualTo ? yes : no }
            if c.op == .in {
                // `%@ IN tags`: membership.
                let test = try compare(lhs, .equalTo, element, c)
                return "EXISTS (SELECT 1 FROM \(collection.from()) WHERE \(collection.whereClause()) AND \(test))"
            }
            // A single value never equals a collection.
            return c.op == .notEqualTo ? yes : no
        }
        let test = try compare(lhs, c.op, rhs, c)
        if c.modifier == .direct { return test }
        // With a modifier, a single value is a collection of one, and nil a collection of none:
        // `ANY admin != 3` holds for no object without `admin` (found by differential fuzzing:
        // SQL compared nil with 3 and matched them), `ALL` and `NONE` hold for every such object.
        let value: String
        switch lhs {
        case .object(let ref): value = ref.key
        case .constant(.null): return c.modifier == .any ? no : yes
        default:
            guard let sql = Self.sql(of: lhs) else {
                return c.modifier == .any ? test : c.modifier == .all ? dialect.orFalse(test) : "(NOT \(dialect.orFalse(test)))"
            }
            value = sql
        }
        switch c.modifier {
        case .direct, .any: return "(\(value) IS NOT NULL AND \(dialect.orFalse(test)))"
        case .all: return "(\(value) IS NULL OR \(dialect.orFalse(test)))"
        case .none: return "(\(value) IS NULL OR NOT \(dialect.orFalse(test)))"
        }
    }

    // MARK: Comparisons of single values

    /// An ordering against a NaN constant (`age / 4 <= 0/0`: `0/0` folds to NaN), answered as
    /// the evaluator answers it: its order of numbers puts NaN before every other number
    /// (`StoreValue.compare`), and nil or a value that is not a number is unordered. Bound, NaN
    /// would be its stored form (a BLOB of its bits), which SQL orders after every number. Nil
    /// when no side is a NaN constant. (A NaN stored in a column is not told apart here.)
    private func nanOrdering(_ lhs: Value, _ op: ComparisonPredicate.Operator, _ rhs: Value, _ c: ComparisonPredicate) throws -> String? {
        func isNaN(_ value: Value) -> Bool {
            if case .constant(.double(let d)) = value { return d.isNaN }
            return false
        }
        /// Whether `value` holds a number (what the evaluator orders after NaN).
        func present(_ value: Value) -> String {
            let domain = domain(of: value)
            guard case .attribute = domain, Self.kind(of: domain) == .number, let sql = Self.sql(of: value) else { return no }
            return "(\(sql) IS NOT NULL)"
        }
        switch op {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let below = op == .lessThan || op == .lessThanOrEqualTo
            if isNaN(rhs) { return below ? no : present(lhs) }  // x > NaN for every number x
            if isNaN(lhs) { return below ? present(rhs) : no }  // NaN < x for every number x
            return nil
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2 else { return nil }
            if isNaN(lhs) || isNaN(bounds[1]) { return no }
            // Every number is at least NaN: only the upper bound remains.
            if isNaN(bounds[0]) {
                return "(\(present(lhs)) AND \(dialect.orFalse(try compare(lhs, .lessThanOrEqualTo, bounds[1], c))))"
            }
            return nil
        default:
            return nil
        }
    }

    private func domain(of value: Value) -> Domain {
        switch value {
        case .column(_, let type): return .attribute(type)
        case .computed(_, let type): return type.map(Domain.attribute) ?? .number
        case .object(let ref): return .object(ref.entity)
        case .constant(let constant):
            switch constant {
            case .int, .double, .decimal, .bool: return .number
            case .string: return .attribute(.string)
            case .date: return .attribute(.date)
            case .data: return .attribute(.binaryData)
            case .uuid: return .attribute(.uuid)
            case .uri: return .attribute(.uri)
            case .objectID(let id): return .object(id.entityName)
            case .null: return .unknown
            }
        case .list, .collection: return .unknown
        }
    }

    /// The kinds of values the evaluator compares with each other: numbers (booleans among
    /// them), strings, dates, data, UUIDs, URIs, object IDs. Nil for a domain not known here.
    private enum ValueKind { case number, string, date, data, uuid, uri, objectID }

    private static func kind(of domain: Domain) -> ValueKind? {
        switch domain {
        case .number: return .number
        case .attribute(let type):
            switch type {
            case .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean: return .number
            case .string: return .string
            case .date: return .date
            case .binaryData, .transformable: return .data
            case .uuid: return .uuid
            case .uri: return .uri
            case .objectID: return .objectID
            }
        case .object, .unknown: return nil
        }
    }

    /// Whether `a` and `b` are both columns or computed values, of different kinds.
    private func differInKind(_ a: Value, _ b: Value) -> Bool {
        guard Self.sql(of: a) != nil, Self.sql(of: b) != nil, let aKind = Self.kind(of: domain(of: a)),
            let bKind = Self.kind(of: domain(of: b))
        else { return false }
        return aKind != bKind
    }

    /// The SQL of a column or a computed value, as it is stored (no folding, no conversion).
    private static func sql(of value: Value) -> String? {
        switch value {
        case .column(let sql, _), .computed(let sql, _): return sql
        default: return nil
        }
    }

    private static func isString(_ domain: Domain) -> Bool {
        if case .attribute(.string) = domain { return true }
        return false
    }

    /// The constant as the counterpart stores it, bound; nil when it can never compare equal
    /// or ordered with it (a string against a number, an object of another store …).
    private func bind(_ constant: StoreValue, for domain: Domain, options: ComparisonPredicate.Options = []) -> String? {
        func number(_ value: StoreValue) -> StoreValue? {
            switch value {
            // -0.0 compares as 0, as in memory; bound as it is, it would be its stored form (a
            // BLOB of its bits, so stored values keep their sign), equal to no number (found by
            // differential fuzzing: `-----age --age =- .0`).
            case .double(let d) where d == 0: return .double(0)
            case .int, .double: return value
            case .bool(let b): return .int(b ? 1 : 0)
            case .decimal(let d):
                let n = NSDecimalNumber(decimal: d)
                return Decimal(n.int64Value) == d ? .int(n.int64Value) : .double(n.doubleValue)
            default: return nil
            }
        }
        switch domain {
        case .attribute(let type):
            switch type {
            case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean:
                return number(constant).map(parameter)
            case .string:
                guard case .string(let text) = constant else { return nil }
                return parameter(.string(options.fold(text)))
            case .date:
                guard case .date(let date) = constant else { return nil }
                return parameter(.double(date.timeIntervalSinceReferenceDate))
            case .binaryData, .transformable:
                guard case .data = constant else { return nil }
                return parameter(constant)
            case .uuid:
                guard case .uuid = constant else { return nil }
                return parameter(constant)
            case .uri:
                guard case .uri(let url) = constant else { return nil }
                return parameter(.string(url.absoluteString))
            case .objectID:
                guard case .objectID(let id) = constant else { return nil }
                return parameter(.string(id.uriRepresentation.absoluteString))
            }
        case .number:
            if case .date(let date) = constant { return parameter(.double(date.timeIntervalSinceReferenceDate)) }
            return number(constant).map(parameter)
        case .object:
            return nil  // objects are compared through compareObject
        case .unknown:
            switch constant {
            case .date(let date): return parameter(.double(date.timeIntervalSinceReferenceDate))
            case .bool(let b): return parameter(.int(b ? 1 : 0))
            case .string(let text): return parameter(.string(options.fold(text)))
            default: return number(constant).map(parameter) ?? parameter(constant)
            }
        }
    }

    /// The SQL of a single value as an operand; constants are bound for `domain`.
    private func operand(_ value: Value, for domain: Domain, options: ComparisonPredicate.Options) throws -> String? {
        switch value {
        case .column(let sql, let type):
            return type == .string && options.folds ? "ps_fold(\(sql), \(options.rawValue & 3))" : dialect.number(sql, type: type)
        case .computed(let sql, let type):
            return type == .string && options.folds ? "ps_fold(\(sql), \(options.rawValue & 3))" : sql
        case .object(let ref): return ref.key
        case .constant(let constant): return bind(constant, for: domain, options: options)
        case .list, .collection: throw unsupported("a collection where a single value is needed")
        }
    }

    /// `lhs op rhs` for single values (rhs may be a list for IN and BETWEEN).
    private func compare(_ lhs: Value, _ op: ComparisonPredicate.Operator, _ rhs: Value, _ c: ComparisonPredicate) throws -> String {
        let options = c.options
        // Objects compare by key (and entity when it can vary).
        if case .object = lhs { return try compareObject(lhs, op, rhs) }
        if case .object = rhs, op != .in { return try compareObject(rhs, op, lhs) }
        // nil constants. `IN` with nil on either side is an equality with nil, as in memory
        // (`age IN 88799/0`, a division by zero, holds for every object without an age: found
        // by differential fuzzing); `nil IN {…}` holds when a member is nil.
        if case .constant(.null) = rhs { return nullComparison(lhs, op == .in ? .equalTo : op) }
        if case .constant(.null) = lhs {
            switch op {
            case .equalTo, .notEqualTo: return nullComparison(rhs, op)
            case .in:
                guard case .list(let items) = rhs else { return nullComparison(rhs, .equalTo) }
                let tests = items.map { nullComparison($0, .equalTo) }
                return tests.isEmpty ? no : "(" + tests.joined(separator: " OR ") + ")"
            default: return no
            }
        }
        if let answer = try nanOrdering(lhs, op, rhs, c) { return answer }
        let lhsDomain = domain(of: lhs)
        let rhsDomain = domain(of: rhs)
        let folding = Self.isString(lhsDomain) && options.folds ? options : []
        switch op {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let stringFolding = Self.isString(lhsDomain) || Self.isString(rhsDomain) ? options : []
            guard let l = try operand(lhs, for: rhsDomain, options: stringFolding),
                let r = try operand(rhs, for: lhsDomain, options: stringFolding)
            else { return op == .notEqualTo ? yes : no }
            let constantSide: Bool = {
                if case .constant = lhs { return true }
                if case .constant = rhs { return true }
                return false
            }()
            if !constantSide, differInKind(lhs, rhs), let lhsSQL = Self.sql(of: lhs), let rhsSQL = Self.sql(of: rhs) {
                // Values of different kinds (a number and a string, a date and a number) are
                // never equal or ordered, as in memory, where SQL would order every number
                // before every string (`@count < name`, found by differential fuzzing); only
                // nil equals nil. (A constant of another kind is not bound at all, above.)
                let bothNil = "(\(lhsSQL) IS NULL AND \(rhsSQL) IS NULL)"
                switch op {
                case .equalTo: return bothNil
                case .notEqualTo: return "(NOT \(bothNil))"
                default: return no
                }
            }
            switch op {
            case .equalTo: return constantSide ? "(\(l) = \(r))" : "(\(dialect.isNotDistinct(l, r)))"
            case .notEqualTo: return "(\(dialect.isDistinct(l, r)))"
            case .lessThan: return "(\(l) < \(r))"
            case .lessThanOrEqualTo: return "(\(l) <= \(r))"
            case .greaterThan: return "(\(l) > \(r))"
            default: return "(\(l) >= \(r))"
            }
        case .between:
            let bounds: [Value]
            switch rhs {
            case .list(let items): bounds = items
            default: bounds = []
            }
            guard bounds.count == 2 else {
                throw StoreError(.coreData, "BETWEEN needs exactly two bounds {low, high}, found \(c.rhs)")
            }
            guard let l = try operand(lhs, for: .unknown, options: folding) else { return no }
            var parts: [String] = []
            for (bound, symbol) in zip(bounds, [">=", "<="]) {
                if case .constant(.null) = bound { return no }
                if differInKind(lhs, bound) { return no }  // never ordered, as above
                if case .object = bound { return no }  // objects are never ordered
                guard let b = try operand(bound, for: lhsDomain, options: folding) else { return no }
                parts.append("\(l) \(symbol) \(b)")
            }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .in:
            switch rhs {
            case .list(let items):
                guard let l = try operand(lhs, for: .unknown, options: folding) else { return no }
                var members: [String] = []
                // Members that are not constants (`age IN {10, age}`) compare with `IS`, as `==`
                // does: nil equals nil, as in memory (found by differential fuzzing: SQL's
                // `NULL IN (…, NULL, …)` is NULL, so SQLite returned none of the objects
                // without an age while the InMemory store returned them all).
                var nullSafe: [String] = []
                var matchesNil = false
                let firstMember = parameters.count
                for item in items {
                    if case .constant(.null) = item {
                        matchesNil = true
                        continue
                    }
                    if case .object = item {
                        nullSafe.append(try compareObject(item, .equalTo, lhs))  // as `==` compares them
                        continue
                    }
                    if differInKind(lhs, item), let lhsSQL = Self.sql(of: lhs), let itemSQL = Self.sql(of: item) {
                        nullSafe.append("(\(lhsSQL) IS NULL AND \(itemSQL) IS NULL)")  // only nil equals nil, as above
                        continue
                    }
                    guard let sql = try operand(item, for: lhsDomain, options: folding) else { continue }
                    if case .constant = item { members.append(sql) } else { nullSafe.append(dialect.isNotDistinct(l, sql)) }
                }
                var tests: [String] = []
                if !members.isEmpty { tests.append(membership(l, members, parametersFrom: firstMember)) }
                if matchesNil { tests.append("\(l) IS NULL") }
                tests += nullSafe
                return tests.isEmpty ? no : "(" + tests.joined(separator: " OR ") + ")"
            case .constant(.string), .column(_, .string), .computed(_, .string):
                // `name IN 'text'`: a substring test.
                return try stringTest("ps_contains", subject: rhs, pattern: lhs, options: options)
            default:
                return try compare(lhs, .equalTo, rhs, c)
            }
        case .contains:
            if case .list(let items) = lhs {
                return try compare(rhs, .in, .list(items), c)
            }
            return try stringTest("ps_contains", subject: lhs, pattern: rhs, options: options)
        case .beginsWith:
            if case .constant(.string(let prefix)) = rhs, case .column(let column, .string) = lhs {
                return prefixRange(column, prefix: prefix, options: options)
            }
            return try stringTest("ps_beginswith", subject: lhs, pattern: rhs, options: options)
        case .endsWith:
            return try stringTest("ps_endswith", subject: lhs, pattern: rhs, options: options)
        case .like:
            return try stringTest("ps_like", subject: lhs, pattern: rhs, options: options)
        case .matches:
            guard let subject = try stringOperand(lhs, fold: []), let pattern = try stringOperand(rhs, fold: []) else { return no }
            if case .constant(.string(let text)) = rhs {
                _ = try PatternMatcher.regularExpression(text, options: options)  // reports a bad pattern now
            }
            return "ps_matches(\(subject), \(pattern), \(options.rawValue & 3))"
        }
    }

    /// A string operand folded by `fold`; nil for a constant that is not a string.
    private func stringOperand(_ value: Value, fold: ComparisonPredicate.Options) throws -> String? {
        switch value {
        case .constant(.string(let text)): return parameter(.string(fold.fold(text)))
        case .constant: return nil
        default: return try operand(value, for: .attribute(.string), options: fold)
        }
    }

    private func stringTest(_ function: String, subject: Value, pattern: Value, options: ComparisonPredicate.Options) throws -> String {
        let fold = options.folds ? options : []
        guard let s = try stringOperand(subject, fold: fold), let p = try stringOperand(pattern, fold: fold) else { return no }
        return "\(function)(\(s), \(p))"
    }

    /// `BEGINSWITH` on a column as a range (`column >= prefix AND column < prefix⁺`), which an
    /// index on the column serves; with `[c]`/`[d]` both sides are folded first.
    private func prefixRange(_ column: String, prefix: String, options: ComparisonPredicate.Options) -> String {
        let fold = options.folds ? options : []
        let subject = fold.isEmpty ? column : "ps_fold(\(column), \(fold.rawValue & 3))"
        let folded = fold.fold(prefix)
        if folded.isEmpty { return "(\(subject) IS NOT NULL AND \(dialect.isText(subject)))" }
        guard let upper = Self.successor(ofPrefix: folded) else {
            return "ps_beginswith(\(subject), \(parameter(.string(folded))))"
        }
        return "(\(subject) >= \(parameter(.string(folded))) AND \(subject) < \(parameter(.string(upper))))"
    }

    /// The smallest string greater than every string that starts with `prefix`: its last
    /// scalar incremented (nil when it is the last scalar there is).
    package static func successor(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return nil }
        var next = last.value + 1
        if next == 0xD800 { next = 0xE000 }
        guard let scalar = Unicode.Scalar(next) else { return nil }
        scalars.append(scalar)
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    private func nullComparison(_ value: Value, _ op: ComparisonPredicate.Operator) -> String {
        let sql: String
        switch value {
        case .column(let s, _), .computed(let s, _): sql = s
        case .object(let ref): sql = ref.key
        case .constant(let constant):
            let isNull = constant.isNull
            switch op {
            case .equalTo: return isNull ? yes : no
            case .notEqualTo: return isNull ? no : yes
            default: return no
            }
        case .list, .collection: return op == .notEqualTo ? yes : no
        }
        switch op {
        case .equalTo: return "(\(sql) IS NULL)"
        case .notEqualTo: return "(\(sql) IS NOT NULL)"
        default: return no
        }
    }

    /// Comparisons where one side is an object: by primary key and entity.
    private func compareObject(_ objectValue: Value, _ op: ComparisonPredicate.Operator, _ other: Value) throws -> String {
        guard case .object(let ref) = objectValue else { return no }
        switch op {
        case .equalTo, .notEqualTo:
            let equal: String
            switch other {
            case .constant(.null):
                return op == .equalTo ? "(\(ref.key) IS NULL)" : "(\(ref.key) IS NOT NULL)"
            case .constant(let constant):
                equal = objectEquals(ref, constant)
            case .object(let otherRef) where model.rootEntityName(of: ref.entity) != model.rootEntityName(of: otherRef.entity):
                // Objects of different entity trees (`team == SELF`) are never equal, though their
                // keys may be: only nil equals nil (found by reading the previous finding's code).
                equal = "(\(ref.key) IS NULL AND \(otherRef.key) IS NULL)"
            case .object(let otherRef):
                var parts = [dialect.isNotDistinct(ref.key, otherRef.key)]
                if let a = ref.entityNumber, let b = otherRef.entityNumber { parts.append(dialect.isNotDistinct(a, b)) }
                equal = "(" + parts.joined(separator: " AND ") + ")"
            case .column(_, .objectID), .computed(_, .objectID?):
                // An object ID attribute holds the ID's URI; a relationship, a primary key.
                throw unsupported("a comparison of the relationship to \(ref.entity) with an object ID attribute")
            case .column(let sql, _), .computed(let sql, _):
                // An object and a value of another kind (`age == team`) are never equal; only
                // nil equals nil, as in memory (found by differential fuzzing: `---age=team`
                // matched no object without an age and a team).
                equal = "(\(ref.key) IS NULL AND \(sql) IS NULL)"
            case .list, .collection:
                equal = no
            }
            return op == .equalTo ? equal : "(NOT \(dialect.orFalse(equal)))"
        case .in:
            guard case .list(let items) = other else { return try compareObject(objectValue, .equalTo, other) }
            // Keys grouped by entity number, so any number of IDs compiles to one membership
            // test per entity (an OR per ID would exceed SQLite's expression depth at 1,000).
            var keysByEntity: [(number: Int?, keys: [Int64])] = []
            var matchesNil = false
            var memberTests: [String] = []
            for item in items {
                guard case .constant(let constant) = item else {
                    // A key path among the members (`team IN {age}`) compares as `==` does.
                    memberTests.append(try compareObject(objectValue, .equalTo, item))
                    continue
                }
                if constant.isNull {
                    matchesNil = true
                    continue
                }
                guard let (number, key) = objectKey(ref, constant) else { continue }
                if let index = keysByEntity.firstIndex(where: { $0.number == number }) {
                    keysByEntity[index].keys.append(key)
                } else {
                    keysByEntity.append((number, [key]))
                }
            }
            var tests: [String] = []
            for (number, keys) in keysByEntity {
                let first = parameters.count
                let members = keys.map { parameter(.int($0)) }
                let test = membership(ref.key, members, parametersFrom: first)
                if let number, let entityNumber = ref.entityNumber {
                    tests.append("(\(entityNumber) = \(number) AND \(test))")
                } else {
                    tests.append(test)
                }
            }
            if matchesNil { tests.append("\(ref.key) IS NULL") }
            tests += memberTests
            return tests.isEmpty ? no : "(" + tests.joined(separator: " OR ") + ")"
        default:
            return no
        }
    }

    /// The primary key an object-ID constant names, and its entity number when the object's
    /// entity can vary (nil when it cannot); nil when the ID cannot be an object of `ref`.
    private func objectKey(_ ref: ObjectRef, _ constant: StoreValue) -> (Int?, Int64)? {
        guard case .objectID(let id) = constant, id.storeIdentifier == storeIdentifier, case .int(let key)? = id.referenceObject,
            let number = schema.entityNumbers[id.entityName],
            model.rootEntityName(of: id.entityName) == model.rootEntityName(of: ref.entity)
        else { return nil }
        if ref.entityNumber != nil { return (number, key) }
        return id.entityName == ref.entity || model.isEntity(id.entityName, kindOf: ref.entity) ? (nil, key) : nil
    }

    /// `sql IN (…)` for members just bound (the parameters from `first` on, one per member, or
    /// any SQL). Past a few hundred plain integer or text parameters the list becomes one JSON
    /// array parameter read with `json_each`, so any number of values fits SQLite's limits on
    /// parameters (32,766) and statement size.
    private func membership(_ sql: String, _ members: [String], parametersFrom first: Int) -> String {
        let largeList = 256
        let bound = Array(parameters[first...])
        let plain =
            members.count > largeList && bound.count == members.count
            && members.enumerated().allSatisfy { $0.element == dialect.placeholder(first + $0.offset + 1, for: bound[$0.offset]) }
        if plain {
            switch dialect.kind {
            case .sqlite:
                if let json = Self.jsonArray(bound) {
                    parameters.removeSubrange(first...)
                    return "\(sql) IN (SELECT value FROM json_each(\(parameter(.string(json)))))"
                }
            case .postgreSQL:
                // One array parameter: `= ANY($n::bigint[])` (or `text[]`).
                if let (array, type) = Self.postgreSQLArray(bound) {
                    parameters.removeSubrange(first...)
                    return "\(sql) = ANY(\(parameter(.string(array)))::\(type)[])"
                }
            }
        }
        return "\(sql) IN (\(members.joined(separator: ", ")))"
    }

    /// A PostgreSQL array literal of integers (`{1,2}`, type `bigint`) or of texts
    /// (`{"a","b"}`, type `text`); nil when the values are of mixed or other kinds.
    static func postgreSQLArray(_ values: [StoreValue]) -> (String, String)? {
        var literal = "{"
        var type: String?
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            switch value {
            case .int(let number) where type != "text":
                type = "bigint"
                literal += String(number)
            case .string(let text) where type != "bigint":
                type = "text"
                literal += "\""
                for scalar in text.unicodeScalars {
                    switch scalar {
                    case "\"": literal += "\\\""
                    case "\\": literal += "\\\\"
                    case "\0": return nil
                    default: literal.unicodeScalars.append(scalar)
                    }
                }
                literal += "\""
            default: return nil
            }
        }
        guard let type else { return nil }
        return (literal + "}", type)
    }

    /// A JSON array of integers and texts; nil when a value is of another kind (or text holds
    /// a NUL, which SQLite's JSON text cannot carry).
    package static func jsonArray(_ values: [StoreValue]) -> String? {
        var json = "["
        json.reserveCapacity(values.count * 8)
        for (index, value) in values.enumerated() {
            if index > 0 { json += "," }
            switch value {
            case .int(let number): json += String(number)
            case .string(let text):
                json += "\""
                for scalar in text.unicodeScalars {
                    switch scalar {
                    case "\"": json += "\\\""
                    case "\\": json += "\\\\"
                    case "\0": return nil
                    default:
                        if scalar.value < 0x20 {
                            json += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                        } else {
                            json.unicodeScalars.append(scalar)
                        }
                    }
                }
                json += "\""
            default: return nil
            }
        }
        return json + "]"
    }

    /// Whether the object is the one an object-ID constant names.
    private func objectEquals(_ ref: ObjectRef, _ constant: StoreValue) -> String {
        guard case .objectID(let id) = constant, id.storeIdentifier == storeIdentifier, case .int(let key)? = id.referenceObject,
            let number = schema.entityNumbers[id.entityName],
            model.rootEntityName(of: id.entityName) == model.rootEntityName(of: ref.entity)
        else { return no }
        if let entityNumber = ref.entityNumber {
            return "(\(ref.key) = \(parameter(.int(key))) AND \(entityNumber) = \(number))"
        }
        return id.entityName == ref.entity || model.isEntity(id.entityName, kindOf: ref.entity)
            ? "(\(ref.key) = \(parameter(.int(key))))" : no
    }

    // MARK: Expressions

    /// The compiled form of an expression on the current object.
    package func value(_ expression: FetchExpression) throws -> Value {
        switch expression {
        case .constant(let constant): return .constant(constant)
        case .now: return .constant(.date(now))
        case .collection(let items): return .list(try items.map(value))
        case .evaluatedObject: return .object(selfObject)
        case .variable(let name):
            guard let bound = variables[name] else {
                throw StoreError(
                    .coreData,
                    "The predicate variable $\(name) has no value; give it with withSubstitutionVariables([\"\(name)\": …])")
            }
            return bound
        case .keyPath(let base, let components):
            return try follow(components[...], from: try value(base), collection: nil)
        case .subquery(let collectionExpression, let variable, let predicate):
            guard case .collection(let collection, let element) = try value(collectionExpression) else {
                throw unsupported("SUBQUERY over \(collectionExpression), which is not a to-many key path")
            }
            let savedSelf = selfObject
            let savedVariables = variables
            defer {
                selfObject = savedSelf
                variables = savedVariables
            }
            variables[variable] = element
            if case .object(let ref) = element { selfObject = ref }
            collection.conditions.append(try condition(predicate))
            return .collection(collection, element: element)
        case .arithmetic(let op, let lhsExpression, let rhsExpression):
            if isConstant(lhsExpression) && isConstant(rhsExpression) {
                let evaluator = PredicateEvaluator(now: now)
                return .constant(try evaluator.value(of: expression, with: [String: StoreValue]()))
            }
            let lhs = try value(lhsExpression)
            let rhs = try value(rhsExpression)
            let lhsDomain = domain(of: lhs)
            let rhsDomain = domain(of: rhs)
            func isDate(_ d: Domain) -> Bool {
                if case .attribute(.date) = d { return true }
                return false
            }
            // Dates are seconds in SQL: the number domain binds date constants as seconds and
            // numbers (a date plus or minus seconds) as they are.
            guard let l = try operand(lhs, for: .number, options: []),
                let r = try operand(rhs, for: .number, options: [])
            else { return .constant(.null) }
            let type: AttributeType?
            switch (isDate(lhsDomain), isDate(rhsDomain), op) {
            case (true, true, .subtract): type = .double
            case (true, false, .add), (true, false, .subtract), (false, true, .add): type = .date
            default: type = nil
            }
            // A division by zero is nil, as in the evaluator: NULLIF makes it NULL in every
            // dialect (SQLite's is NULL already; PostgreSQL's would be an error). So is a NaN
            // result (`age * 1e999` for an age of 0), which only floating-point operands give.
            if op == .divide {
                return .computed(dialect.notANumberAsNull("(CAST(\(l) AS \(dialect.doubleType)) / NULLIF(\(r), 0))"), .double)
            }
            func isFloatingPoint(_ value: Value, _ domain: Domain) -> Bool {
                if case .constant(.double) = value { return true }
                if case .attribute(let type) = domain { return type == .double || type == .float }
                return false
            }
            let sql = "(\(l) \(op.rawValue) \(r))"
            if type == nil, isFloatingPoint(lhs, lhsDomain) || isFloatingPoint(rhs, rhsDomain) {
                return .computed(dialect.notANumberAsNull(sql), .double)
            }
            // A number, not a date: compared with a date it never holds, as in the evaluator
            // (`age + 1 < now()`; only date arithmetic binds dates as seconds).
            return .computed(sql, type ?? .integer64)
        }
    }

    /// The row alias of an object, joining its table into `ref.joins` when needed.
    private func alias(of ref: ObjectRef) throws -> String {
        if let alias = ref.alias { return alias }
        if let joined = ref.joins.joined[ref.key] { return joined }
        guard let mapping = schema.entities[ref.entity] else {
            throw unsupported("a key path through entity \(ref.entity), which this store does not hold")
        }
        let alias = newAlias("t")
        ref.joins.clauses.append("LEFT JOIN \(Self.q(mapping.table)) \(alias) ON \(alias).Z_PK = \(ref.key)")
        ref.joins.joined[ref.key] = alias
        return alias
    }

    /// Follows key-path components: to-one hops join, to-many hops open (or extend) a
    /// collection subquery, collection operators aggregate over it.
    private func follow(
        _ components: ArraySlice<FetchExpression.KeyPathComponent>, from start: Value, collection: Collection?
    ) throws -> Value {
        var current = start
        var collection = collection
        var index = components.startIndex
        while index < components.endIndex {
            let component = components[index]
            index += 1
            switch component {
            case .collectionOperator(let op):
                if case .collection(let inner, let element) = current {
                    current = element
                    collection = inner
                }
                let rest = components[index...]
                let element = rest.isEmpty ? current : try follow(rest, from: current, collection: nil)
                return try aggregate(op, element: element, collection: collection)
            case .key(let key):
                if case .list(let items) = current {
                    // A key path on a literal collection applies to each member, as in the
                    // evaluator: `{10, age}.title` is two nils, so `age IN {10, age}.title`
                    // holds for every object without an age (found by differential fuzzing).
                    let rest = components[(index - 1)...]
                    return .list(try items.map { try follow(rest, from: $0, collection: nil) })
                }
                if case .collection(let inner, let element) = current {
                    current = element
                    collection = inner
                }
                guard case .object(let ref) = current else {
                    // A key after an attribute reads nil, as in the evaluator.
                    current = .constant(.null)
                    continue
                }
                if let attribute = model.attribute(key, of: ref.entity) {
                    guard let mapping = schema.entities[ref.entity],
                        let column = mapping.attributes.first(where: { $0.name == key })
                    else {
                        current = .constant(.null)  // transient: never stored
                        _ = attribute
                        continue
                    }
                    current = .column("\(try alias(of: ref)).\(Self.q(column.column))", column.type)
                    continue
                }
                guard let relationship = model.relationship(key, of: ref.entity), let mapping = schema.entities[ref.entity],
                    let storage = mapping.relationships[key], let destination = schema.entities[relationship.destinationEntityName]
                else {
                    throw unsupported("the key \(key) of entity \(ref.entity)")
                }
                let source = try alias(of: ref)
                let destinationVaries = destination.numbersWithDescendants.count > 1
                switch storage {
                case .toOne(let column, let entityColumn):
                    current = .object(
                        ObjectRef(
                            key: "\(source).\(Self.q(column))", entityNumber: entityColumn.map { "\(source).\(Self.q($0))" },
                            entity: destination.name, joins: ref.joins, alias: nil))
                case .toManyThroughInverse(let table, let column, _), .toManyWithoutInverse(let table, let column, _):
                    let target = newAlias("d")
                    let opened = collection ?? Collection(dialect: dialect)
                    if collection == nil {
                        opened.joins.clauses.append("\(Self.q(table)) \(target)")
                        opened.conditions.append("\(target).\(Self.q(column)) = \(source).Z_PK")
                    } else {
                        opened.joins.clauses.append("JOIN \(Self.q(table)) \(target) ON \(target).\(Self.q(column)) = \(source).Z_PK")
                    }
                    collection = opened
                    current = .object(
                        ObjectRef(
                            key: "\(target).Z_PK", entityNumber: destinationVaries ? "\(target).Z_ENT" : nil, entity: destination.name,
                            joins: opened.joins, alias: target))
                case .manyToMany(let table, let sourceColumn, let destinationColumn, _):
                    let link = newAlias("j")
                    let target = newAlias("d")
                    let opened = collection ?? Collection(dialect: dialect)
                    let join = "JOIN \(Self.q(destination.table)) \(target) ON \(target).Z_PK = \(link).\(Self.q(destinationColumn))"
                    if collection == nil {
                        opened.joins.clauses.append("\(Self.q(table)) \(link) \(join)")
                        opened.conditions.append("\(link).\(Self.q(sourceColumn)) = \(source).Z_PK")
                    } else {
                        opened.joins.clauses.append(
                            "JOIN \(Self.q(table)) \(link) ON \(link).\(Self.q(sourceColumn)) = \(source).Z_PK \(join)")
                    }
                    collection = opened
                    current = .object(
                        ObjectRef(
                            key: "\(target).Z_PK", entityNumber: destinationVaries ? "\(target).Z_ENT" : nil, entity: destination.name,
                            joins: opened.joins, alias: target))
                }
            }
        }
        if let collection { return .collection(collection, element: current) }
        return current
    }

    /// A collection operator over the elements of `collection` (or over a single value).
    private func aggregate(_ op: FetchExpression.CollectionOperator, element: Value, collection: Collection?) throws -> Value {
        let elementSQL: String
        var type: AttributeType?
        switch element {
        case .column(let sql, let t):
            elementSQL = dialect.number(sql, type: t)
            type = t
        case .computed(let sql, let t):
            elementSQL = sql
            type = t
        case .object(let ref): elementSQL = ref.key
        case .constant(.null): elementSQL = "NULL"
        case .constant(let constant): elementSQL = bind(constant, for: .unknown) ?? "NULL"
        case .list, .collection: throw unsupported("a collection operator over a nested collection")
        }
        let function: String
        switch op {
        case .count:
            function = "COUNT(\(elementSQL))"
            type = .integer64
        case .sum: function = "COALESCE(SUM(\(elementSQL)), 0)"
        case .avg:
            function = "AVG(\(elementSQL))"
            type = .double
        case .min: function = "MIN(\(elementSQL))"
        case .max: function = "MAX(\(elementSQL))"
        }
        if type == .boolean || type == .integer16 || type == .integer32 { type = op == .avg ? .double : .integer64 }
        guard let collection else {
            // A single value is a collection of one (none for nil).
            switch op {
            case .count: return .computed("(CASE WHEN \(elementSQL) IS NULL THEN 0 ELSE 1 END)", .integer64)
            case .sum: return .computed("COALESCE(\(elementSQL), 0)", type)
            case .avg: return .computed("CAST(\(elementSQL) AS \(dialect.doubleType))", .double)
            case .min, .max: return .computed(elementSQL, type)
            }
        }
        return .computed("(SELECT \(function) FROM \(collection.from()) WHERE \(collection.whereClause()))", type)
    }
}

extension SQLQueryCompiler {
    /// The `ORDER BY` terms of a sort key: the key path's value (folded for case- or
    /// diacritic-insensitive comparisons), nil first ascending as in memory. An object sorts as
    /// its URI does (entity name, then `p<key>` as text).
    package func orderTerms(for key: SortKey) throws -> [String] {
        let direction = dialect.direction(ascending: key.ascending)
        switch try value(key.expression) {
        case .column(let sql, .string), .computed(let sql, .some(.string)):
            switch key.comparison {
            case .binary: return ["\(sql) \(direction)"]
            case .caseInsensitive: return ["ps_fold(\(sql), 1) \(direction)"]
            case .caseDiacriticInsensitive, .localizedCaseInsensitive: return ["ps_fold(\(sql), 3) \(direction)"]
            case .localized: return ["ps_fold(\(sql), 3) \(direction)", "\(sql) \(direction)"]
            }
        case .column(let sql, _), .computed(let sql, _):
            return ["\(sql) \(direction)"]
        case .object(let ref):
            let name: String
            if let number = ref.entityNumber {
                let cases = schema.entityNumbers.filter { model.isEntity($0.key, kindOf: ref.entity) }.sorted { $0.value < $1.value }
                    .map { "WHEN \($0.value) THEN \(parameter(.string($0.key)))" }
                name = "CASE \(number) \(cases.joined(separator: " ")) END"
            } else {
                name = parameter(.string(ref.entity))
            }
            return ["(CASE WHEN \(ref.key) IS NULL THEN NULL ELSE \(name) || '/p' || \(dialect.text(ref.key)) END) \(direction)"]
        case .constant:
            return []
        case .list, .collection:
            throw StoreError(.coreData, "The sort key \(key.keyPath) passes through a to-many relationship")
        }
    }
}

extension SQLQueryCompiler {
    /// The SQL of the value a batch update assigns to an attribute column of `type`, computed
    /// on the updated row `t0`: a constant is coerced to the type and bound as the column
    /// stores it; an expression must yield a value of the same kind (numbers for numeric
    /// types, dates for dates, strings for strings …) and is cast to an integer for integer
    /// and boolean columns.
    ///
    /// - Throws: 1550 for a constant of the wrong type; 134060 for an expression of another kind.
    package func assignment(_ expression: FetchExpression, to type: AttributeType, entity: String, property: String) throws -> String {
        let compiled = try value(expression)
        func mismatch(_ what: String) -> StoreError {
            StoreError(
                .coreData, "Batch update of \(entity).\(property): \(what) cannot be assigned to a \(type.rawValue) attribute",
                entityName: entity, propertyName: property)
        }
        let produced: AttributeType?
        switch compiled {
        case .constant(let constant):
            guard let coerced = type.coerce(constant), !(coerced.isNull && !constant.isNull) else {
                throw StoreError(
                    .managedObjectValidation,
                    "Batch update of \(entity).\(property): \(constant) is not a \(type.rawValue) value",
                    entityName: entity, propertyName: property)
            }
            return coerced.isNull ? "NULL" : parameter(coerced)
        case .column(_, let columnType): produced = columnType
        case .computed(_, let computedType): produced = computedType
        case .object, .list, .collection:
            throw mismatch("\(expression)")
        }
        guard Self.kind(of: produced) == Self.kind(of: type) else {
            throw mismatch("\(expression) (\(produced?.rawValue ?? "a number"))")
        }
        guard let sql = try operand(compiled, for: .attribute(type), options: []) else { return "NULL" }
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return dialect.integer(sql, for: type)
        default: return sql
        }
    }

    /// Which values may be assigned to each other: numbers, dates, strings, or one type alone.
    private static func kind(of type: AttributeType?) -> String {
        switch type {
        case nil, .integer16?, .integer32?, .integer64?, .decimal?, .double?, .float?, .boolean?: return "number"
        case .binaryData?, .transformable?: return "data"
        case let other?: return other.rawValue
        }
    }
}
