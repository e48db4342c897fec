/// The objects registered in a context, found by their IDs: the context's uniquing table, an
/// ``ObjectIDTable`` of the objects themselves.
///
/// An object carries its ID, so a bucket is the object's reference and a 4-byte tag (12 bytes,
/// where a `[ObjectID: ManagedObject]`'s is 32: the ID again, and the reference), and the table
/// fills to seven eighths (the dictionary to three quarters: 100,000 objects took 262,144 of its
/// buckets, 84 bytes an object; here 131,072, 16).
///
/// An object is found by its current ``ManagedObject/objectID``: an object's ID must not change
/// while it is in the table (the context takes it out under its old ID and puts it back under
/// its new one, as it re-keyed the dictionary). A context is used from one isolation domain at
/// a time.
typealias ObjectRegistry = ObjectIDTable<ManagedObject>

extension ManagedObject: ObjectIDTableElement {
    /// The object's ID.
    var tableKey: ObjectID { objectID }
}
