/// The model type of the fetches a ``DataStoreAdapter`` makes for entities without a
/// `@Model` class (a model built with the builder or read from an `.xcdatamodeld`): a
/// `FetchDescriptor` needs a class. The data store answers such a fetch with the snapshots it
/// holds; the adapter keeps those of the model's entities.
final class DataStoreEntityPlaceholder: PersistentModel {
    static let persistentEntitySchema = ModelEntitySchema(className: "DataStoreEntityPlaceholder", properties: [])

    static func persistentPropertyName(for keyPath: AnyKeyPath) -> String? { nil }

    let persistentBackingData: ModelBackingData

    init(backingData: ModelBackingData) { persistentBackingData = backingData }

    private var link = _ModelInstanceLink()

    func _persistentLink(to object: ManagedObject, slots: [Int], context: ManagedObjectContext?) {
        link.attach(object, slots: slots, context: context, instance: self)
    }
}
