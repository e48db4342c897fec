import StoreCore

extension ConformanceCatalogue {
    /// Inserts an object with attribute values.
    @discardableResult
    static func insert(_ context: ManagedObjectContext, _ entity: String, _ values: [String: StoreValue] = [:]) throws -> ManagedObject {
        let object = try context.insert(entityName: entity)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        return object
    }

    /// The first object of an entity whose attribute has a value.
    static func first(_ stack: ConformanceStack, _ entity: String, where key: String, is value: StoreValue) throws -> ManagedObject {
        guard let object = try stack.fetch(entity).first(where: { $0.value(forKey: key) == value }) else {
            throw ConformanceFailure("no \(entity) with \(key) == \(value)")
        }
        return object
    }

    /// A string attribute of each object, sorted.
    static func names(_ objects: [ManagedObject], _ key: String = "name") -> [String] {
        objects.compactMap { $0.value(forKey: key, as: String.self) }.sorted()
    }
}
