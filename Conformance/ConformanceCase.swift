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
    /// Whether the case is about store files (their bytes, empty files, files of another type,
    /// file permissions): it is skipped for store types whose stores are not files (run with
    /// ``ConformanceSuite/runs(storeType:cases:storeURLs:)``'s `storeURLs`, such as a server's).
    public let filesOnly: Bool
    /// The body.
    public let body: @Sendable (ConformanceEnvironment) throws -> Void
    /// The protocol methods most likely at fault when the case fails, when the case names them
    /// itself; otherwise they follow from the ``area`` (see ``suspects(incremental:)``).
    public let faultHint: String?

    /// Creates a case.
    public init(
        _ name: String, behaviour: Int, area: Area, requires: StoreCapabilities = [], runsAfterReopen: Bool = false,
        filesOnly: Bool = false, faultHint: String? = nil, body: @escaping @Sendable (ConformanceEnvironment) throws -> Void
    ) {
        self.faultHint = faultHint
        self.filesOnly = filesOnly
        self.name = name
        self.behaviour = behaviour
        self.area = area
        self.requires = requires
        self.runsAfterReopen = runsAfterReopen
        self.body = body
    }

    /// The name.
    public var id: String { name }

    /// The protocol methods a failure most likely points at, for an incremental store
    /// (`IncrementalStore`) or an atomic one (`AtomicStore`).
    public func suspects(incremental: Bool) -> String {
        if let faultHint { return faultHint }
        let (open, save, fetch, fill) =
            incremental
            ? ("loadMetadata()", "execute(.save)", "execute(.fetch)", "newValues(forObjectWith:)")
            : ("load()", "save()", "load() (the framework answers fetches from the cache nodes)", "load()")
        switch area {
        case .lifecycle: return "init(model:configurationName:url:options:), \(open)"
        case .metadata: return "\(open), \(save), metadata(forStoreAt:options:), setMetadata(_:forStoreAt:options:)"
        case .objectIDs: return incremental ? "obtainPermanentIDs(for:), \(fill)" : "newReferenceObject(for:), \(open)"
        case .crud, .validation, .deleteRules: return "\(save), \(fetch)"
        case .relationships:
            return incremental ? "newValue(forRelationship:forObjectWith:), \(save)" : "\(save) (relationships), \(open)"
        case .fetch, .predicates, .sorting, .resultTypes: return fetch
        case .batch: return "execute(.batchUpdate/.batchDelete/.batchInsert)"
        case .faults: return incremental ? "\(fill), newValue(forRelationship:forObjectWith:)" : open
        case .contexts: return "\(save) (row versions), \(fill)"
        case .stores, .concurrency: return "\(save), \(fetch)"
        case .migration: return "\(open) (metadata: NSStoreModelVersionHashes)"
        case .crashSafety: return "\(save) (write through AtomicFileWriter)"
        case .badInput: return "\(open) (check the file before reading it), \(save)"
        }
    }
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
