/// The results of a fetch request, in sections, kept up to date with its context (Core Data's
/// `NSFetchedResultsController`): after every change the context processes — its own edits,
/// saves, merges of other contexts' saves — the controller fetches again and reports what
/// changed as one ``FetchedResultsChange`` (sections and objects inserted, deleted, moved and
/// updated), in the order a list view applies it.
///
/// ```swift
/// var request = FetchRequest(entityName: "Player")
/// request.sortKeys = [SortKey("team.name"), SortKey("name")]
/// let controller = try FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "team.name")
/// controller.onChange = { change in table.apply(change) }
/// try controller.performFetch()
/// let first = controller.sections.first?.objects
/// ```
///
/// The request must have sort keys (the order of the results), and with a section key path its
/// first sort key must sort by that key path, as in Core Data. The controller belongs to its
/// context's isolation domain.
public final class FetchedResultsController {
    /// One section: the objects whose section key path has one value.
    public struct Section {
        /// The section key path's value as text ("" for nil; everything in one section "" when
        /// there is no section key path).
        public let name: String
        /// The objects, in the request's order.
        public let objects: [ManagedObject]
    }

    /// The request whose results are kept.
    public let fetchRequest: FetchRequest
    /// The context the results come from.
    public let context: ManagedObjectContext
    /// The key path that groups the results into sections; nil for one section.
    public let sectionNameKeyPath: String?
    /// The sections, after ``performFetch()``.
    public private(set) var sections: [Section] = []
    /// Called with each non-empty change, after ``sections`` has its new value.
    public var onChange: ((FetchedResultsChange) -> Void)?

    private var observer: ObserverToken?
    private var isRefreshing = false
    /// The entities whose objects the request can return.
    private lazy var matchingEntities: Set<String> = Set(fetchRequest.matchingEntityNames(in: context.coordinator.model))
    /// Whether the predicate, a sort key or the section key path reads through a relationship
    /// (then a change to another entity can move or filter the results).
    private lazy var readsRelationships: Bool = {
        let model = context.coordinator.model
        let paths = fetchRequest.sortKeys.map(\.keyPath) + (sectionNameKeyPath.map { [$0] } ?? [])
        if paths.contains(where: { $0.contains(".") }) { return true }
        guard let predicate = fetchRequest.predicate else { return false }
        let format = predicate.predicateFormat
        return model.relationships(of: fetchRequest.entityName).contains { format.contains($0.name) } || format.contains("SUBQUERY")
    }()

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    ///
    /// - Throws: 134060 when the request has no sort keys, or when `sectionNameKeyPath` is not
    ///   the key path of its first sort key.
    public init(fetchRequest: FetchRequest, context: ManagedObjectContext, sectionNameKeyPath: String? = nil) throws {
        guard !fetchRequest.sortKeys.isEmpty else {
            throw StoreError(
                .coreData, "A fetched results controller needs a request with sort keys (\(fetchRequest.entityName) has none)",
                entityName: fetchRequest.entityName)
        }
        if let sectionNameKeyPath, fetchRequest.sortKeys.first?.keyPath != sectionNameKeyPath {
            throw StoreError(
                .coreData,
                "The section key path \(sectionNameKeyPath) must be the first sort key of the request (it is \(fetchRequest.sortKeys[0].keyPath))",
                entityName: fetchRequest.entityName, propertyName: sectionNameKeyPath)
        }
        var request = fetchRequest
        request.resultType = .managedObjects
        self.fetchRequest = request
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit {
        if let observer { context.removeObserver(observer) }
    }

    /// Fetches the results and starts following the context's changes.
    public func performFetch() throws {
        sections = try fetchSections()
        if observer == nil {
            observer = context.addObserver { [weak self] event in self?.contextDidChange(event) }
        }
    }

    /// Every object, section after section.
    public var fetchedObjects: [ManagedObject] { sections.flatMap(\.objects) }

    /// The object at an index path.
    public func object(at indexPath: FetchedResultsChange.IndexPath) -> ManagedObject {
        sections[indexPath.section].objects[indexPath.item]
    }

    /// Where an object is; nil when it is not in the results.
    public func indexPath(for object: ManagedObject) -> FetchedResultsChange.IndexPath? {
        for (section, content) in sections.enumerated() {
            if let item = content.objects.firstIndex(where: { $0 === object }) { return .init(section: section, item: item) }
        }
        return nil
    }

    private func fetchSections() throws -> [Section] {
        let objects = try context.fetch(fetchRequest)
        guard let sectionNameKeyPath else { return objects.isEmpty ? [] : [Section(name: "", objects: objects)] }
        let evaluator = PredicateEvaluator()
        var result: [Section] = []
        for object in objects {
            let name = Self.text(try evaluator.value(of: .keyPath(sectionNameKeyPath), with: object))
            if result.last?.name == name {
                result[result.count - 1] = Section(name: name, objects: result[result.count - 1].objects + [object])
            } else {
                result.append(Section(name: name, objects: [object]))
            }
        }
        return result
    }

    private static func text(_ value: StoreValue) -> String {
        switch value {
        case .null: return ""
        case .string(let string): return string
        default: return "\(value)"
        }
    }

    private func contextDidChange(_ event: ContextEvent) {
        let changedIDs: Set<ObjectID>
        switch event {
        case .objectsDidChange(let changes), .didSave(let changes):
            changedIDs = changes.updatedObjectIDs.union(changes.insertedObjectIDs)
        case .willSave:
            return
        }
        guard !isRefreshing else { return }
        // Changes to other entities cannot change the results (a key path through a
        // relationship may: requests that sort or section by one are always refreshed).
        let entities = matchingEntities
        if !readsRelationships, !changedIDs.contains(where: { entities.contains($0.entityName) }) {
            let deleted: Set<ObjectID>
            switch event {
            case .objectsDidChange(let changes), .didSave(let changes): deleted = changes.deletedObjectIDs
            case .willSave: deleted = []
            }
            if !deleted.contains(where: { entities.contains($0.entityName) }) { return }
        }
        isRefreshing = true
        defer { isRefreshing = false }
        guard let new = try? fetchSections() else { return }
        let old = sections
        var changedObjects: Set<ObjectIdentifier> = []
        for section in new {
            for object in section.objects where changedIDs.contains(object.objectID) { changedObjects.insert(ObjectIdentifier(object)) }
        }
        let change = FetchedResultsChange.between(
            old: old.map { ($0.name, $0.objects.map(ObjectIdentifier.init)) },
            new: new.map { ($0.name, $0.objects.map(ObjectIdentifier.init)) },
            changed: { changedObjects.contains($0) })
        sections = new
        if !change.isEmpty { onChange?(change) }
    }
}
