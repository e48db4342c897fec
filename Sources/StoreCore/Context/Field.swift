/// A typed attribute property on a ``ManagedObject`` subclass.
///
/// ```swift
/// final class Player: ManagedObject {
///     @Field("firstName") var firstName: String?
///     @Field("age", default: 0) var age: Int64
///     @ToOne("team") var team: Team?
/// }
/// coordinator.register(Player.self)   // fetched Player rows come back as Player
/// ```
///
/// Reading converts the stored ``StoreValue`` (nil, or a value of another type, reads as the
/// default). Setting a value the attribute cannot hold (say an `Int` above `Int16.max` for an
/// Integer 16 attribute) cannot throw from a setter: the value is not stored and the next
/// ``ManagedObjectContext/save()`` fails with that 1550 error, so nothing is lost silently.
@propertyWrapper
public struct Field<Value: StoreValueConvertible> {
    /// The attribute name in the model.
    public let key: String
    /// What a nil (or unconvertible) value reads as.
    public let defaultValue: Value

    /// A typed attribute named `key`, reading nil as `defaultValue`.
    public init(_ key: String, default defaultValue: Value) {
        self.key = key
        self.defaultValue = defaultValue
    }

    /// Reads and writes through the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let field = object[keyPath: storageKeyPath]
            return Value(storeValue: object.value(forKey: field.key)) ?? field.defaultValue
        }
        set {
            object.setValueDeferringErrors(newValue.storeValue, forKey: object[keyPath: storageKeyPath].key)
        }
    }

    /// Not available: the property is read through its enclosing ``ManagedObject``.
    @available(*, unavailable, message: "@Field is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        // Unreachable: the attribute makes every direct use a compile-time error.
        get { fatalError("@Field is only available on ManagedObject subclasses") }
        set {}
    }
}

extension Field where Value: ExpressibleByNilLiteral {
    /// A typed optional attribute named `key`.
    public init(_ key: String) { self.init(key, default: nil) }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    /// The wrapped value's ``StoreValue``, or `.null`.
    public var storeValue: StoreValue { self?.storeValue ?? .null }
    /// `.null` is `nil`; otherwise the wrapped conversion.
    public init?(storeValue: StoreValue) {
        if storeValue.isNull {
            self = .none
        } else if let wrapped = Wrapped(storeValue: storeValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
