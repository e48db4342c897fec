/// The result of ``ModelContext/fetch(_:batchSize:)`` (SwiftData's `FetchResultsCollection`):
/// the objects a descriptor matches, in its order, read from the store a batch at a time as
/// they are reached.
///
/// The fetch reads the matching identifiers only. An element's model instance is made when the
/// element is first reached and stands for a fault; the first property read from a fault reads
/// its whole batch with one fetch and turns the unchanged objects of the batch read before back
/// into faults, so going through the collection holds about one batch of objects in memory.
///
/// As a context's objects are, the collection belongs to the context's isolation domain; it
/// reads through the context, which must stay alive while it is used.
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    /// The matching objects, as the context's faults (filled a batch at a time).
    private let objects: [ManagedObject]
    /// How many objects one fetch reads.
    public let batchSize: Int

    /// The objects of `objects` whose model class is `Element` (a batched fetch's objects are
    /// faults: the entity comes from the ID, nothing is read).
    init(objects: [ManagedObject], batchSize: Int) {
        let entityName = Element.persistentEntitySchema.entityName
        self.objects = objects.filter { object in
            object.layout.entityName == entityName && (object.modelInstance == nil || object.modelInstance is Element)
        }
        self.batchSize = batchSize
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The position after the last object: the number of matching objects.
    public var endIndex: Int { objects.count }

    /// The model instance of the object at `position` (a fault until one of its properties is read).
    public subscript(position: Int) -> Element {
        let object = objects[position]
        if let model = ModelBackingData.model(for: object, as: Element.self) { return model }
        // Unreachable: `init` keeps only the objects of `Element`'s entity whose model instance,
        // if any, is an `Element`, and for those `model(for:as:)` returns that instance or a new one.
        preconditionFailure("\(object.objectID) is not an object of \(Element.persistentEntitySchema.className)")
    }
}
