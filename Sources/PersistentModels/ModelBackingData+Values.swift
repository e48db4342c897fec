// The accessors of properties whose type the macro cannot map from its syntax alone (`Status`,
// `Status?`, `[Tag]`): the compiler picks the overload by the type's conformances, as it picks
// the schema (`ModelPropertySchema.value(...)`). Plain attribute types keep the accessors of
// ModelBackingData.swift, which do no more than before.
//
// A stored value that does not decode (a raw value no case has, JSON the type cannot read)
// never traps: an optional property reads as nil, a non-optional one as its fallback (the
// property's initial value, else the type's first case), and the context keeps a StoreError
// (1550, naming the entity, the property and the stored value) that its next save throws.
// The stored value itself is left as it is until the property is set.

extension ModelBackingData {
    // MARK: Stored forms

    /// The value at `index` decoded by `decode`: the Swift value set before insertion, or the
    /// managed object's stored value decoded; nil when there is none or it does not decode
    /// (then the context keeps the error for its next save).
    func decodedValue<Value>(at index: Int, as type: Value.Type, decode: (StoreValue) throws -> Value?) -> Value? {
        guard let object = managedObject else {
            guard index < local.count, case .encoded(let value, _) = local[index] else { return nil }
            return value as? Value
        }
        let slot = slots[index]
        guard slot >= 0 else { return nil }
        let stored = object.attributeValue(atSlot: slot)
        if stored.isNull { return nil }
        var failure: (any Error)?
        do {
            if let value = try decode(stored) { return value }
        } catch {
            failure = error
        }
        let name = index < schema.properties.count ? schema.properties[index].name : "#\(index)"
        let shown = stored.description.count > 200 ? String(stored.description.prefix(200)) + "…" : stored.description
        object.deferringErrors {
            throw StoreError(
                .managedObjectValidation,
                "\(schema.className).\(name) holds \(shown), which is not a value of \(Value.self)"
                    + (failure.map { " (\($0))" } ?? "") + "; it reads as its fallback and is left as stored",
                objectIDs: [object.objectID], entityName: object.entity.name, propertyName: name)
        }
        return nil
    }

    /// Sets the value at `index` in its stored form (`encode`'s result; nil clears it).
    func setEncodedValue<Value>(_ value: Value?, at index: Int, encode: (Value) throws -> StoreValue) {
        let encoded: Result<StoreValue, StoreError>
        if let value {
            do {
                encoded = .success(try encode(value))
            } catch {
                let name = index < schema.properties.count ? schema.properties[index].name : "#\(index)"
                encoded = .failure(
                    StoreError(
                        .managedObjectValidation, "\(schema.className).\(name): \(Value.self) value cannot be encoded: \(error)",
                        entityName: schema.entityName, propertyName: name))
            }
        } else {
            encoded = .success(.null)
        }
        guard let object = managedObject else {
            setLocal(.encoded(value as Any, encoded), at: index)
            return
        }
        let slot = slots[index]
        object.deferringErrors {
            guard slot >= 0 else { throw missingProperty(at: index, of: object) }
            try object.setValue(try encoded.get(), atAttributeSlot: slot)
        }
    }

    // MARK: `X?`

    /// An optional property of a `RawRepresentable` type.
    public func value<Value: RawRepresentable>(at index: Int, as type: Value.Type) -> Value?
    where Value.RawValue: PersistentAttributeValue {
        decodedValue(at: index, as: Value.self) { ModelValueCoding.decodeRaw(Value.self, from: $0) }
    }

    /// An optional property of a `Codable` type.
    public func value<Value: Codable>(at index: Int, as type: Value.Type) -> Value? {
        decodedValue(at: index, as: Value.self) { try ModelValueCoding.decode(Value.self, from: $0) }
    }

    /// An optional property of a type both `RawRepresentable` and `Codable` (stored as its raw value).
    public func value<Value: RawRepresentable & Codable>(at index: Int, as type: Value.Type) -> Value?
    where Value.RawValue: PersistentAttributeValue {
        decodedValue(at: index, as: Value.self) { ModelValueCoding.decodeRaw(Value.self, from: $0) }
    }

    /// A to-one relationship (`Destination?`).
    public func value<Destination: PersistentModel>(at index: Int, as type: Destination.Type) -> Destination? {
        toOne(at: index, as: Destination.self)
    }

    /// A to-one relationship to a class that is also `Codable`.
    public func value<Destination: PersistentModel & Codable>(at index: Int, as type: Destination.Type) -> Destination? {
        toOne(at: index, as: Destination.self)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func value<Value>(at index: Int, as type: Value.Type) -> Value? { nil }

    /// Sets a property of a `RawRepresentable` type (nil clears it).
    public func setValue<Value: RawRepresentable>(_ value: Value?, at index: Int, as type: Value.Type)
    where Value.RawValue: PersistentAttributeValue {
        setEncodedValue(value, at: index) { ModelValueCoding.encodeRaw($0) }
    }

    /// Sets a property of a `Codable` type (nil clears it).
    public func setValue<Value: Codable>(_ value: Value?, at index: Int, as type: Value.Type) {
        setEncodedValue(value, at: index) { try ModelValueCoding.encode($0) }
    }

    /// Sets a property of a type both `RawRepresentable` and `Codable` (stored as its raw value).
    public func setValue<Value: RawRepresentable & Codable>(_ value: Value?, at index: Int, as type: Value.Type)
    where Value.RawValue: PersistentAttributeValue {
        setEncodedValue(value, at: index) { ModelValueCoding.encodeRaw($0) }
    }

    /// Sets a to-one relationship.
    public func setValue<Destination: PersistentModel>(_ value: Destination?, at index: Int, as type: Destination.Type) {
        setToOne(value, at: index)
    }

    /// Sets a to-one relationship to a class that is also `Codable`.
    public func setValue<Destination: PersistentModel & Codable>(
        _ value: Destination?, at index: Int, as type: Destination.Type
    ) {
        setToOne(value, at: index)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func setValue<Value>(_ value: Value?, at index: Int, as type: Value.Type) {}

    // MARK: `X` with an initial value

    /// A non-optional property of a `RawRepresentable` type; `fallback` when it has no value
    /// or its stored value is no value of the type.
    public func requiredValue<Value: RawRepresentable>(
        at index: Int, as type: Value.Type, fallback: @autoclosure () -> Value
    ) -> Value where Value.RawValue: PersistentAttributeValue {
        value(at: index, as: Value.self) ?? fallback()
    }

    /// A non-optional property of a `Codable` type; `fallback` when it has no value or its
    /// stored value does not decode.
    public func requiredValue<Value: Codable>(at index: Int, as type: Value.Type, fallback: @autoclosure () -> Value) -> Value {
        value(at: index, as: Value.self) ?? fallback()
    }

    /// A non-optional property of a type both `RawRepresentable` and `Codable`.
    public func requiredValue<Value: RawRepresentable & Codable>(
        at index: Int, as type: Value.Type, fallback: @autoclosure () -> Value
    ) -> Value where Value.RawValue: PersistentAttributeValue {
        value(at: index, as: Value.self) ?? fallback()
    }

    /// A non-optional `@Model` class: not a property type (a to-one relationship is optional).
    @available(*, unavailable, message: "a to-one relationship of a @Model class is optional: declare the property as an optional")
    public func requiredValue<Destination: PersistentModel>(
        at index: Int, as type: Destination.Type, fallback: @autoclosure () -> Destination
    ) -> Destination { fallback() }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func requiredValue<Value>(at index: Int, as type: Value.Type, fallback: @autoclosure () -> Value) -> Value {
        fallback()
    }

    // MARK: `X` without an initial value

    /// A non-optional property of a `RawRepresentable`, `CaseIterable` type; its first case
    /// when it has no value or its stored value is no value of the type.
    public func requiredValue<Value: RawRepresentable & CaseIterable>(at index: Int, as type: Value.Type) -> Value
    where Value.RawValue: PersistentAttributeValue {
        value(at: index, as: Value.self) ?? Self.firstCase(of: Value.self)
    }

    /// A non-optional property of a `Codable`, `CaseIterable` type; its first case when it
    /// has no value or its stored value does not decode.
    public func requiredValue<Value: Codable & CaseIterable>(at index: Int, as type: Value.Type) -> Value {
        value(at: index, as: Value.self) ?? Self.firstCase(of: Value.self)
    }

    /// A non-optional property of a `RawRepresentable`, `Codable`, `CaseIterable` type.
    public func requiredValue<Value: RawRepresentable & Codable & CaseIterable>(at index: Int, as type: Value.Type) -> Value
    where Value.RawValue: PersistentAttributeValue {
        value(at: index, as: Value.self) ?? Self.firstCase(of: Value.self)
    }

    /// A non-optional property without an initial value whose type has no first case.
    @available(*, unavailable, message: "a non-optional enum or Codable property of a @Model class needs a value to read when its stored value cannot be decoded: give the property an initial value, make its type CaseIterable, or make the property optional")
    public func requiredValue<Value: RawRepresentable>(at index: Int, as type: Value.Type) -> Value {
        Self.unreachableValue(of: Value.self)
    }

    /// A non-optional property without an initial value whose type has no first case.
    @available(*, unavailable, message: "a non-optional enum or Codable property of a @Model class needs a value to read when its stored value cannot be decoded: give the property an initial value, make its type CaseIterable, or make the property optional")
    public func requiredValue<Value: Codable>(at index: Int, as type: Value.Type) -> Value {
        Self.unreachableValue(of: Value.self)
    }

    /// A non-optional property without an initial value whose type has no first case.
    @available(*, unavailable, message: "a non-optional enum or Codable property of a @Model class needs a value to read when its stored value cannot be decoded: give the property an initial value, make its type CaseIterable, or make the property optional")
    public func requiredValue<Value: RawRepresentable & Codable>(at index: Int, as type: Value.Type) -> Value {
        Self.unreachableValue(of: Value.self)
    }

    /// A non-optional `@Model` class: not a property type (a to-one relationship is optional).
    @available(*, unavailable, message: "a to-one relationship of a @Model class is optional: declare the property as an optional")
    public func requiredValue<Destination: PersistentModel>(at index: Int, as type: Destination.Type) -> Destination {
        value(at: index, as: Destination.self) ?? Self.unreachableValue(of: Destination.self)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func requiredValue<Value>(at index: Int, as type: Value.Type) -> Value {
        Self.unreachableValue(of: Value.self)
    }

    /// The first case of a `CaseIterable` type.
    private static func firstCase<Value: CaseIterable>(of type: Value.Type) -> Value {
        guard let first = Value.allCases.first else {
            // Only a CaseIterable type without cases gets here: such a type has no values, so no
            // object can have been given one and no accessor can return one. The generated
            // accessors call this only for a stored value that does not decode into the type.
            preconditionFailure("\(Value.self) has no cases, so a property of this type cannot hold a value")
        }
        return first
    }

    /// Unreachable: only the unavailable overloads (compile-time errors) call it.
    private static func unreachableValue<Value>(of type: Value.Type) -> Value {
        preconditionFailure("\(Value.self) is not a supported property type (a compile-time error)")
    }

    // MARK: `[X]` and `[X]?`

    /// An array of `Codable` values (empty when there is none or it does not decode).
    public func elements<Element: Codable>(at index: Int, as type: Element.Type) -> [Element] {
        value(at: index, as: [Element].self) ?? []
    }

    /// A to-many relationship.
    public func elements<Destination: PersistentModel>(at index: Int, as type: Destination.Type) -> [Destination] {
        toMany(at: index, as: Destination.self)
    }

    /// A to-many relationship to a class that is also `Codable`.
    public func elements<Destination: PersistentModel & Codable>(at index: Int, as type: Destination.Type) -> [Destination] {
        toMany(at: index, as: Destination.self)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func elements<Element>(at index: Int, as type: Element.Type) -> [Element] { [] }

    /// An optional array of `Codable` values (nil when there is none or it does not decode).
    public func optionalElements<Element: Codable>(at index: Int, as type: Element.Type) -> [Element]? {
        value(at: index, as: [Element].self)
    }

    /// A to-many relationship declared as an optional array (never nil).
    public func optionalElements<Destination: PersistentModel>(at index: Int, as type: Destination.Type) -> [Destination]? {
        toMany(at: index, as: Destination.self)
    }

    /// A to-many relationship to a `Codable` class declared as an optional array (never nil).
    public func optionalElements<Destination: PersistentModel & Codable>(
        at index: Int, as type: Destination.Type
    ) -> [Destination]? {
        toMany(at: index, as: Destination.self)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func optionalElements<Element>(at index: Int, as type: Element.Type) -> [Element]? { nil }

    /// Sets an array of `Codable` values (nil clears it).
    public func setElements<Element: Codable>(_ values: [Element]?, at index: Int, as type: Element.Type) {
        setValue(values, at: index, as: [Element].self)
    }

    /// Replaces a to-many relationship's destinations (nil empties it).
    public func setElements<Destination: PersistentModel>(_ values: [Destination]?, at index: Int, as type: Destination.Type) {
        setToMany(values ?? [], at: index)
    }

    /// Replaces a to-many relationship's destinations, of a class that is also `Codable`.
    public func setElements<Destination: PersistentModel & Codable>(
        _ values: [Destination]?, at index: Int, as type: Destination.Type
    ) {
        setToMany(values ?? [], at: index)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public func setElements<Element>(_ values: [Element]?, at index: Int, as type: Element.Type) {}
}
