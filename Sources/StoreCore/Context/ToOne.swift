/// A typed to-one relationship property on a ``ManagedObject`` subclass; setting it updates the
/// inverse like ``ManagedObject/setObject(_:forKey:)``. Errors (an object of another context)
/// surface at the next save, as for ``Field``.
@propertyWrapper
public struct ToOne<Destination: ManagedObject> {
    /// The relationship name in the model.
    public let key: String

    /// A typed to-one relationship named `key`.
    public init(_ key: String) { self.key = key }

    /// Reads and writes through the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Destination? {
        get { object.object(forKey: object[keyPath: storageKeyPath].key) as? Destination }
        set {
            let key = object[keyPath: storageKeyPath].key
            object.deferringErrors { try object.setObject(newValue, forKey: key) }
        }
    }

    /// Not available: the property is read through its enclosing ``ManagedObject``.
    @available(*, unavailable, message: "@ToOne is only available on ManagedObject subclasses")
    public var wrappedValue: Destination? {
        // Unreachable: the attribute makes every direct use a compile-time error.
        get { fatalError("@ToOne is only available on ManagedObject subclasses") }
        set {}
    }
}
