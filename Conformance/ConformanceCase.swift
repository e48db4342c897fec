import StoreCore

/// One behaviour the suite proves, as data: a name, the catalogue item it covers, its area,
/// the store capabilities it needs, whether it runs in both variants, and its body.
///
/// The body throws ``ConformanceFailure`` (through the `expect` helpers of
/// ``ConformanceEnvironment``) or any other error to fail.
public struct ConformanceCase: Sendable, Identifiable, CustomStringConvertible {
    /// The area of the catalogue a case belongs to.
    public enum Area: String, Sendable, CaseIterable {
        case lifecycle, metadata, objectIDs, crud, relationships, deleteRules, validation, fetch
        case predicates, sorting, resultTypes, batch, faults, contexts, stores, concurrency
        case migration, crashSafety, badInput
    }

    /// A unique name, e.g. "11 insert and count".
    public let name: String
    /// The item number in `specs/behaviours.md` (0 for cases outside the catalogue).
    public let behaviour: Int
    /// The area.
    public let area: Area
    /// Capabilities the store type must declare; otherwise the case is skipped.
    public let requires: StoreCapabilities
    /// Whether the case also runs in the ``ConformanceEnvironment/Variant/afterReopen`` variant.
    public let runsAfterReopen: Bool
    /// The body.
    public let body: @Sendable (ConformanceEnvironment) throws -> Void

    /// Creates a case.
    public init(
        _ name: String, behaviour: Int, area: Area, requires: StoreCapabilities = [], runsAfterReopen: Bool = false,
        body: @escaping @Sendable (ConformanceEnvironment) throws -> Void
    ) {
        self.name = name
        self.behaviour = behaviour
        self.area = area
        self.requires = requires
        self.runsAfterReopen = runsAfterReopen
        self.body = body
    }

    /// The name.
    public var id: String { name }
    /// "#<behaviour> <name>".
    public var description: String { name }
}

/// A failed expectation inside a case; the message names what differed.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// What differed.
    public let message: String
    /// Creates a failure.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
