import Foundation

/// The one error type of PersistentStores.
///
/// `code` carries Core Data's numeric error codes (`NSValidationMultipleErrorsError` is
/// ``Code/validationMultipleErrors`` = 1560, `NSPersistentStoreInvalidTypeError` is
/// ``Code/persistentStoreInvalidType`` = 134000, and so on), so code written against Core Data's
/// codes keeps working. The message names what went wrong precisely: the entity, the property,
/// the offending value, the file and the position where one applies.
///
/// ```swift
/// do { try context.save() } catch let error as StoreError where error.code == .validationMultipleErrors {
///     for underlying in error.underlyingErrors { print(underlying.message) }
/// }
/// ```
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A Core Data error code. The raw value is Core Data's number.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// Core Data's numeric code.
        public let rawValue: Int
        /// Wraps a numeric code.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 1550: generic validation failure of a managed object (also: a value of the wrong type).
        public static let managedObjectValidation = Code(rawValue: 1550)
        /// 1551: a uniqueness constraint was violated.
        public static let managedObjectConstraintValidation = Code(rawValue: 1551)
        /// 1560: several validation errors; see ``StoreError/underlyingErrors``.
        public static let validationMultipleErrors = Code(rawValue: 1560)
        /// 1570: a required attribute or relationship has no value.
        public static let validationMissingMandatoryProperty = Code(rawValue: 1570)
        /// 1580: a to-many relationship has fewer objects than its minimum count.
        public static let validationRelationshipLacksMinimumCount = Code(rawValue: 1580)
        /// 1590: a to-many relationship has more objects than its maximum count.
        public static let validationRelationshipExceedsMaximumCount = Code(rawValue: 1590)
        /// 1600: a delete was denied by a relationship with the Deny rule.
        public static let validationRelationshipDeniedDelete = Code(rawValue: 1600)
        /// 1610: a number is larger than the attribute's maximum.
        public static let validationNumberTooLarge = Code(rawValue: 1610)
        /// 1620: a number is smaller than the attribute's minimum.
        public static let validationNumberTooSmall = Code(rawValue: 1620)
        /// 1630: a date is later than the attribute's maximum.
        public static let validationDateTooLate = Code(rawValue: 1630)
        /// 1640: a date is earlier than the attribute's minimum.
        public static let validationDateTooSoon = Code(rawValue: 1640)
        /// 1650: a date is invalid.
        public static let validationInvalidDate = Code(rawValue: 1650)
        /// 1660: a string is longer than the attribute's maximum length.
        public static let validationStringTooLong = Code(rawValue: 1660)
        /// 1670: a string is shorter than the attribute's minimum length.
        public static let validationStringTooShort = Code(rawValue: 1670)
        /// 1680: a string does not match the attribute's regular expression.
        public static let validationStringPatternMatching = Code(rawValue: 1680)
        /// 1690: a URI is invalid.
        public static let validationInvalidURI = Code(rawValue: 1690)
        /// 133000: the object referenced does not exist (deleted or unknown ID).
        public static let managedObjectReferentialIntegrity = Code(rawValue: 133000)
        /// 133010: an object was related to an object of another store or context.
        public static let managedObjectExternalRelationship = Code(rawValue: 133010)
        /// 133020: an optimistic-locking conflict at save.
        public static let managedObjectMerge = Code(rawValue: 133020)
        /// 133021: a save would break a uniqueness constraint; see ``StoreError/constraintConflicts``.
        public static let managedObjectConstraintMerge = Code(rawValue: 133021)
        /// 134000: the store type is not registered.
        public static let persistentStoreInvalidType = Code(rawValue: 134000)
        /// 134010: the file at the URL is not a store of the requested type.
        public static let persistentStoreTypeMismatch = Code(rawValue: 134010)
        /// 134020: the store's schema cannot hold the model.
        public static let persistentStoreIncompatibleSchema = Code(rawValue: 134020)
        /// 134030: a save failed.
        public static let persistentStoreSave = Code(rawValue: 134030)
        /// 134040: a save was incomplete.
        public static let persistentStoreIncompleteSave = Code(rawValue: 134040)
        /// 134050: a save found conflicts.
        public static let persistentStoreSaveConflicts = Code(rawValue: 134050)
        /// 134060: a general error (also used for invalid models).
        public static let coreData = Code(rawValue: 134060)
        /// 134070: a store operation failed (read-only store, store not added, …).
        public static let persistentStoreOperation = Code(rawValue: 134070)
        /// 134080: a store could not be opened (malformed or unreadable file).
        public static let persistentStoreOpen = Code(rawValue: 134080)
        /// 134090: a store operation timed out.
        public static let persistentStoreTimeout = Code(rawValue: 134090)
        /// 134091: the store does not support the request type.
        public static let persistentStoreUnsupportedRequestType = Code(rawValue: 134091)
        /// 134100: the model does not match the store's version hashes.
        public static let persistentStoreIncompatibleVersionHash = Code(rawValue: 134100)
        /// 134110: a migration failed.
        public static let migration = Code(rawValue: 134110)
        /// 134130: the source model of a migration is missing.
        public static let migrationMissingSourceModel = Code(rawValue: 134130)
        /// 134140: no mapping model for a migration.
        public static let migrationMissingMappingModel = Code(rawValue: 134140)
        /// 134180: an SQLite error; the message holds SQLite's message and code.
        public static let sqlite = Code(rawValue: 134180)
        /// 134190: a mapping model could not be inferred.
        public static let inferredMappingModel = Code(rawValue: 134190)

        /// The name of the code's constant, for messages.
        public var description: String { "\(rawValue)" }
    }

    /// Core Data's code.
    public var code: Code
    /// What went wrong, naming the entity / property / value / file / position involved.
    public var message: String
    /// The objects the error is about (validation errors, conflicts, referential errors).
    public var objectIDs: [ObjectID]
    /// Errors this one stands for (a 1560 lists each validation failure here).
    public var underlyingErrors: [StoreError]
    /// The file the error is about, when there is one.
    public var fileURL: URL?
    /// The entity the error is about, when there is one.
    public var entityName: String?
    /// The property the error is about, when there is one.
    public var propertyName: String?
    /// The character offset in the input the error is about (a predicate format string, a
    /// text file's content), when there is one.
    public var position: Int?
    /// The uniqueness-constraint conflicts of a 133021 (Core Data's `conflictList`); empty
    /// otherwise.
    public var constraintConflicts: [ConstraintConflict] = []

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, objectIDs: [ObjectID] = [],
        underlyingErrors: [StoreError] = [], fileURL: URL? = nil,
        entityName: String? = nil, propertyName: String? = nil, position: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.objectIDs = objectIDs
        self.underlyingErrors = underlyingErrors
        self.fileURL = fileURL
        self.entityName = entityName
        self.propertyName = propertyName
        self.position = position
    }

    /// `"<message> (StoreError <code>)"`.
    public var description: String { "\(message) (StoreError \(code.rawValue))" }
}

extension StoreError: LocalizedError {
    /// The message, for Foundation's error reporting.
    public var errorDescription: String? { description }
}

extension StoreError {
    /// A 134080 error about a malformed store file, naming the file and the line:
    /// `"<path>, line <n>: <message>"`. Text-based stores report bad input with it.
    public static func malformedFile(
        _ url: URL, line: Int, _ message: String, entityName: String? = nil, propertyName: String? = nil
    ) -> StoreError {
        StoreError(
            .persistentStoreOpen, "\(url.path), line \(line): \(message)", fileURL: url, entityName: entityName,
            propertyName: propertyName)
    }

    /// An invalid-predicate error (134060): the message names the problem, quotes the format
    /// string with a caret under `offset`, and ``position`` is `offset`.
    static func invalidPredicate(_ problem: String, format: String, at offset: Int) -> StoreError {
        let message = "Invalid predicate: \(problem) at offset \(offset) of \"\(format)\"\n"
            + PredicateSourceLocation.excerpt(of: format, at: offset)
        return StoreError(.coreData, message, position: offset)
    }

    /// An invalid-model error (134060) whose message starts with "Invalid model: ".
    static func invalidModel(_ message: String, entity: String? = nil, property: String? = nil) -> StoreError {
        StoreError(.coreData, "Invalid model: \(message)", entityName: entity, propertyName: property)
    }
}
