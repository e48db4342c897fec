import Foundation

/// Validation at save. The context collects every failure of every inserted and updated object
/// and throws them at once: one error as itself, several as 1560 listing each in
/// ``StoreError/underlyingErrors``. Each error names the object, the property and the value.
///
/// Subclasses add their own rules by overriding ``validateValue(_:forKey:)`` (per property) and
/// ``validateForInsert()`` / ``validateForUpdate()`` / ``validateForDelete()`` (per object);
/// throw a ``StoreError`` (or any error, reported as 1550) to reject.
extension ManagedObject {
    /// The model's rules for every property, then the subclass hooks; returns every failure.
    func validationErrors(for operation: ValidationOperation) -> [StoreError] {
        // Whether the object is in a context, not the context (see ``ContextLink``) nor a copy of
        // its model: the model is read only for a layout it did not compile (its relationships
        // are then looked up by name).
        guard isInContext else { return [] }
        var errors: [StoreError] = []
        // ManagedObject's own hooks accept everything: an object of that class itself (not a
        // subclass) has nothing to call (a value hook per property and an object hook each cost
        // a call, a closure and an error check per object; docs/benchmarks.md, W1).
        let hooks = type(of: self) != ManagedObject.self
        if operation != .delete {
            // The layout lists the entity's attributes (inherited first) with their slots, and
            // what each needs checked as flags (copying a description retains its names and
            // rules); the description itself is passed on only to report a failure.
            let names = layout.attributeNames
            let checks = layout.attributeChecks
            for slot in checks.indices where !checks[slot].isTransient {
                // Without hooks, an optional attribute without value rules has nothing to check:
                // its value is not read (a copy retains its payload).
                if !hooks && checks[slot].isOptional && !checks[slot].hasValueRules { continue }
                let value = slotValue(slot)
                if value.isNull ? !checks[slot].isOptional : checks[slot].hasValueRules {
                    validate(layout.attributes[slot], value: value, into: &errors)
                }
                if hooks { collect(&errors) { try validateValue(value, forKey: names[slot]) } }
            }
            if layout.isModelLayout {
                // The model's relationships in its order, from the layout: to-ones checked by
                // their flags and slots, to-manys by their description (counts).
                for place in layout.relationshipPlaces {
                    switch place {
                    case .toOne(let index):
                        let check = layout.toOneChecks[index]
                        // Likewise an optional to-one without hooks: nothing to read.
                        guard !check.isTransient, hooks || !check.isOptional else { continue }
                        let value = toOneValue(atSlot: layout.attributeCount + index)
                        if !check.isOptional && value.isNull {
                            errors.append(missingToOne(named: layout.toOneNames[index]))
                        }
                        if hooks { collect(&errors) { try validateValue(value, forKey: layout.toOneNames[index]) } }
                    case .toMany(let slot):
                        guard !layout.toManys[slot].isTransient else { continue }
                        errors += validateCounts(of: layout.toManys[slot])
                    }
                }
            } else {
                let relationships = managedObjectContext?.coordinator.model.relationships(of: entity.name) ?? []
                // A compiled layout of the model keeps the model's to-ones (and to-manys) in the
                // order of `relationships`, so the n-th to-one there has the n-th to-one slot.
                let bySlot = layout.isCompiled && layout.toOnes.count + layout.toManys.count == relationships.count
                var toOneIndex = 0
                for relationship in relationships {
                    let toOneSlot = bySlot && !relationship.isToMany ? layout.attributeCount + toOneIndex : nil
                    if !relationship.isToMany { toOneIndex += 1 }
                    guard !relationship.isTransient else { continue }
                    validate(relationship, toOneSlot: toOneSlot, into: &errors)
                    if !relationship.isToMany {
                        let value = toOneSlot.map(toOneValue(atSlot:)) ?? value(forKey: relationship.name)
                        if hooks { collect(&errors) { try validateValue(value, forKey: relationship.name) } }
                    }
                }
            }
        }
        guard hooks else { return errors }
        switch operation {
        case .insert: collect(&errors) { try validateForInsert() }
        case .update: collect(&errors) { try validateForUpdate() }
        case .delete: collect(&errors) { try validateForDelete() }
        }
        return errors
    }

    /// A to-one's value as ``value(forKey:)`` reads it: the set object's ID, else the stored ID.
    /// When the slot already holds the set object's ID, the slot's value is returned as it is
    /// (an `.objectID` is boxed: making another would allocate).
    private func toOneValue(atSlot slot: Int) -> StoreValue {
        let index = slot - layout.attributeCount
        if index < toOneObjects.count, let object = toOneObjects[index] {
            let stored = slotValue(slot)
            if case .objectID(let id) = stored, id == object.objectID { return stored }
            return object.objectIDValue
        }
        return slotValue(slot)
    }

    /// The error of a required to-one without a destination.
    private func missingToOne(named name: String) -> StoreError {
        failure(.validationMissingMandatoryProperty, name, "\(entity.name).\(name) is a required value (object \(objectID))")
    }

    enum ValidationOperation { case insert, update, delete }

    private func collect(_ errors: inout [StoreError], _ body: () throws -> Void) {
        do {
            try body()
        } catch let error as StoreError {
            errors.append(error)
        } catch {
            errors.append(failure(.managedObjectValidation, nil, "\(entity.name) \(objectID) failed validation: \(error)"))
        }
    }

    private func failure(_ code: StoreError.Code, _ property: String?, _ message: String) -> StoreError {
        StoreError(code, message, objectIDs: [objectID], entityName: entity.name, propertyName: property)
    }

    private func validate(_ attribute: AttributeDescription, value: StoreValue, into errors: inout [StoreError]) {
        // Built only for a failure: most values pass.
        var name: String { "\(entity.name).\(attribute.name)" }
        if value.isNull {
            if !attribute.isOptional {
                errors.append(failure(.validationMissingMandatoryProperty, attribute.name, "\(name) is a required value (object \(objectID))"))
            }
            return
        }
        let isDate = attribute.type == .date
        if let max = attribute.maxValue, StoreValue.compare(value, max) == .orderedDescending {
            errors.append(
                failure(
                    isDate ? .validationDateTooLate : .validationNumberTooLarge, attribute.name,
                    "\(name) value \(value) is \(isDate ? "later" : "larger") than the maximum \(max) (object \(objectID))"))
        }
        if let min = attribute.minValue, StoreValue.compare(value, min) == .orderedAscending {
            errors.append(
                failure(
                    isDate ? .validationDateTooSoon : .validationNumberTooSmall, attribute.name,
                    "\(name) value \(value) is \(isDate ? "earlier" : "smaller") than the minimum \(min) (object \(objectID))"))
        }
        if case .string(let text) = value {
            if let maxLength = attribute.maxLength, text.count > maxLength {
                errors.append(
                    failure(
                        .validationStringTooLong, attribute.name,
                        "\(name) value \(value) is longer than \(maxLength) characters (object \(objectID))"))
            }
            if let minLength = attribute.minLength, text.count < minLength {
                errors.append(
                    failure(
                        .validationStringTooShort, attribute.name,
                        "\(name) value \(value) is shorter than \(minLength) characters (object \(objectID))"))
            }
            if let pattern = attribute.regularExpression, !Self.matchesWhole(text, pattern: pattern) {
                errors.append(
                    failure(
                        .validationStringPatternMatching, attribute.name,
                        "\(name) value \(value) does not match the pattern \(pattern) (object \(objectID))"))
            }
        }
    }

    /// Checks a relationship's required value and counts; `toOneSlot` is a to-one's value slot
    /// when known (otherwise it is found by name).
    private func validate(_ relationship: RelationshipDescription, toOneSlot: Int?, into errors: inout [StoreError]) {
        if !relationship.isToMany {
            guard !relationship.isOptional else { return }
            let isSet = toOneSlot.map { !toOneValue(atSlot: $0).isNull } ?? hasToOne(relationship.name)
            guard !isSet else { return }
            errors.append(
                failure(
                    .validationMissingMandatoryProperty, relationship.name,
                    "\(entity.name).\(relationship.name) is a required value (object \(objectID))"))
            return
        }
        errors += validateCounts(of: relationship)
    }

    private func validateCounts(of relationship: RelationshipDescription) -> [StoreError] {
        var name: String { "\(entity.name).\(relationship.name)" }
        // An unloaded to-many of an updated object did not change, so it is still valid.
        guard isInserted || toManyValues[relationship.name] != nil else { return [] }
        let count = toManyValues[relationship.name]?.objects.filter { !$0.isDeleted }.count ?? 0
        if count == 0 {
            return relationship.isOptional
                ? [] : [failure(.validationMissingMandatoryProperty, relationship.name, "\(name) is a required value (object \(objectID))")]
        }
        if relationship.minCount > 0, count < relationship.minCount {
            return [
                failure(
                    .validationRelationshipLacksMinimumCount, relationship.name,
                    "\(name) has \(count) objects, fewer than the minimum \(relationship.minCount) (object \(objectID))")
            ]
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            return [
                failure(
                    .validationRelationshipExceedsMaximumCount, relationship.name,
                    "\(name) has \(count) objects, more than the maximum \(relationship.maxCount) (object \(objectID))")
            ]
        }
        return []
    }

    /// Whole-string match of an ICU-style pattern; an invalid pattern never matches.
    static func matchesWhole(_ text: String, pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$", options: []) else { return false }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }
}
