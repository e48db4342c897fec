@_exported import Observation
@_exported import PersistentStores

// The macros of `@Model` classes. Their implementations are in the PersistentModelsMacros
// compiler plugin; docs/swift-models.md shows what each derives.

/// Makes a class a persistent model (SwiftData's `@Model`): its stored properties become the
/// attributes and relationships of an entity named after the class, and read and write the
/// object's values in its context once it is inserted. The class is `Observable`: reads and
/// writes of its persisted properties are seen by `withObservationTracking`.
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.unique) var name: String
///     var start: Date
///     var budget: Decimal?
///     @Relationship(deleteRule: .cascade, inverse: \Stay.trip) var stays: [Stay] = []
///     init(name: String, start: Date) { self.name = name; self.start = start }
/// }
/// ```
@attached(
    member, names: named(_$backingData), named(_$backingDataStorage), named(_$observationRegistrar), named(persistentBackingData),
    named(persistentEntitySchema), named(init(backingData:)), named(persistentPropertyName(for:)), named(_$instanceLink),
    named(_persistentLink(to:slots:context:)), named(init(_persistentObject:schema:slots:context:)))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "PersistentModelsMacros", type: "ModelMacro")

/// Put on each persisted property by `@Model`; not written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(`_$`), prefixed(`_$keyPath_`))
public macro _PersistedProperty(_ index: Int) = #externalMacro(module: "PersistentModelsMacros", type: "PersistedPropertyMacro")

/// Options of a `@Model` attribute: `@Attribute(.unique)`, `@Attribute(originalName: "old")`
/// (the renaming identifier lightweight migration uses), `hashModifier:` (the version hash
/// modifier).
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil, hashModifier: String? = nil) =
    #externalMacro(module: "PersistentModelsMacros", type: "PropertyMarkerMacro")

/// Options of a `@Model` relationship: its delete rule, its inverse (a key path to the
/// property of the destination class), counts, `originalName:` and `hashModifier:`.
@attached(peer)
public macro Relationship(
    deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
    originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "PersistentModelsMacros", type: "PropertyMarkerMacro")

/// A stored property of a `@Model` class that is not persisted (it needs an initial value).
@attached(peer)
public macro Transient() = #externalMacro(module: "PersistentModelsMacros", type: "PropertyMarkerMacro")

/// Makes an actor a model actor (SwiftData's `@ModelActor`): it gets `modelContainer`, a
/// `modelContext` of its own isolated to the actor, `init(modelContainer:)`, and the
/// ``ModelActor`` conformance, so background work on models runs on the actor.
///
/// ```swift
/// @ModelActor actor TripImporter {
///     func importTrips(named names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0, start: .now) }
///         trips.forEach { modelContext.insert($0) }
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
/// let ids = try await TripImporter(modelContainer: container).importTrips(named: ["Oslo"])
/// ```
@attached(member, names: named(modelContainer), named(modelContext), named(init(modelContainer:)))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "PersistentModelsMacros", type: "ModelActorMacro")

/// Uniqueness constraints of a `@Model` class beyond `@Attribute(.unique)`: each array of key
/// paths is one constraint over those properties together (a save that would store two objects
/// with equal values for all of them fails with 133021, or merges by the context's merge
/// policy). Written inside the class:
///
/// ```swift
/// @Model final class Trip {
///     #Unique<Trip>([\.name, \.start], [\.code])
///     var name: String
///     var start: Date
///     var code: String
///     init(name: String, start: Date, code: String) { self.name = name; self.start = start; self.code = code }
/// }
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "PersistentModelsMacros", type: "SchemaDirectiveMacro")

/// Fetch indexes of a `@Model` class: each array of key paths is one index over those
/// properties, in order (a hint stores use to answer fetches faster; SQLite and PostgreSQL
/// create it). Written inside the class: `#Index<Trip>([\.name], [\.start, \.name])`.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "PersistentModelsMacros", type: "SchemaDirectiveMacro")
