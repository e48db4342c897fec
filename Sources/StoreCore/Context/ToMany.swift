/// A typed to-many relationship property on a ``ManagedObject`` subclass; setting it replaces
/// the destinations and updates inverses like ``ManagedObject/setObjects(_:forKey:)``.
/// Register the destination's class with the coordinator so loaded objects have its type.
@propertyWrapper
public struct ToMany<Destination: ManagedObject> {
    /// The relationship name in the model.
    public let key: String

    /// A typed to-many relationship named `key`.
    public init(_ key: String) { self.key = key }

    /// Reads and writes through the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> [Destination] {
        get { object.objects(forKey: object[keyPath: storageKeyPath].key).compactMap { $0 as? Destination } }
        set {
            let key = object[keyPath: storageKeyPath].key
            object.deferringErrors { try object.setObjects(newValue, forKey: key) }
        }
    }

    /// Not available: the property is read through its enclosing ``ManagedObject``.
    @available(*, unavailable, message: "@ToMany is only available on ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        // Unreachable: the attribute makes every direct use a compile-time error.
        get { fatalError("@ToMany is only available on ManagedObject subclasses") }
        set {}
    }
}
