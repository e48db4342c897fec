/// Builds the many small `[String: Value]` dictionaries of loaded nodes (attributes, to-ones,
/// to-manys) without hashing their keys each time: for each set of present keys it keeps a
/// template dictionary and the index of each key in it, and a node's dictionary is a copy of
/// the template with its values stored at those indexes. A copy keeps the template's layout, so
/// the indexes stay valid; the keys are hashed once per template, not once per node. Key lists
/// longer than 64 (the width of the mask that names a set of keys) fall back to insertion.
///
/// Use: ``set(_:at:)`` the values a node has, then ``make()``, which also empties the builder
/// for the next node.
struct DictionaryBuilder<Value> {
    /// The keys; a value's position is its key's position.
    let keys: [String]
    /// What empty value slots hold.
    private let placeholder: Value
    /// The values set since the last ``make()`` (placeholders elsewhere).
    private var values: [Value]
    /// Which positions are set (bit `i` = position `i`); for more than 64 keys see ``present``.
    private var mask: UInt64 = 0
    /// Which positions are set, when there are more than 64 keys.
    private var present: [Bool]
    private var templates: [UInt64: Template] = [:]
    private var lastMask: UInt64?
    private var last: Template?

    private struct Template {
        let dictionary: [String: Value]
        /// The index of each present key, in key order.
        let indexes: [Dictionary<String, Value>.Index]
    }

    /// A builder for dictionaries over `keys`.
    init(keys: [String], placeholder: Value) {
        self.keys = keys
        self.placeholder = placeholder
        self.values = Array(repeating: placeholder, count: keys.count)
        self.present = keys.count > 64 ? Array(repeating: false, count: keys.count) : []
    }

    /// Sets the value of the key at `position` (a position of ``keys``).
    @inline(__always)
    mutating func set(_ value: consuming Value, at position: Int) {
        values[position] = value
        if keys.count <= 64 {
            mask |= 1 << UInt64(position)
        } else {
            present[position] = true
        }
    }

    /// The dictionary of the values set since the last call; the builder is empty afterwards.
    @inline(__always)
    mutating func make() -> [String: Value] {
        guard keys.count <= 64 else { return makeByInsertion() }
        let mask = self.mask
        if mask == 0 { return [:] }
        self.mask = 0
        let template = self.template(for: mask)
        var dictionary = template.dictionary
        var rest = mask
        var present = 0
        while rest != 0 {
            let position = rest.trailingZeroBitCount
            var value = placeholder
            swap(&value, &values[position])  // moves the value out, leaving the placeholder
            // indexes has one entry per set bit of mask, in bit order.
            dictionary.values[template.indexes[present]] = value
            present += 1
            rest &= rest - 1
        }
        return dictionary
    }

    private mutating func makeByInsertion() -> [String: Value] {
        var dictionary = [String: Value](minimumCapacity: keys.count)
        for position in keys.indices where present[position] {
            var value = placeholder
            swap(&value, &values[position])
            dictionary[keys[position]] = value
            present[position] = false
        }
        return dictionary
    }

    private mutating func template(for mask: UInt64) -> Template {
        if mask == lastMask, let last { return last }
        let template: Template
        if let known = templates[mask] {
            template = known
        } else {
            var dictionary = [String: Value](minimumCapacity: mask.nonzeroBitCount)
            for position in keys.indices where mask & (1 << UInt64(position)) != 0 {
                dictionary[keys[position]] = placeholder
            }
            var indexes: [Dictionary<String, Value>.Index] = []
            for position in keys.indices where mask & (1 << UInt64(position)) != 0 {
                // The key was inserted just above.
                if let index = dictionary.index(forKey: keys[position]) { indexes.append(index) }
            }
            template = Template(dictionary: dictionary, indexes: indexes)
            templates[mask] = template
        }
        lastMask = mask
        last = template
        return template
    }
}
