/// Builds the many small `[String: Value]` dictionaries of loaded nodes (attributes, to-ones,
/// to-manys) without hashing their keys each time: for each set of present keys (a bit mask
/// over a fixed key list) it keeps a template dictionary and the index of each key in it, and a
/// node's dictionary is a copy of the template with its values stored at those indexes. A copy
/// keeps the template's layout, so the indexes stay valid; the keys are hashed once per
/// template, not once per node. Key lists longer than 64 fall back to plain insertion.
struct DictionaryBuilder<Value> {
    /// The keys, in the order of the bits of a mask and of the values handed to ``make``.
    let keys: [String]
    /// The value templates hold before a node's values replace them.
    private let placeholder: Value
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
    }

    /// The dictionary holding each non-nil `values[i]` under `keys[i]`; every entry of
    /// `values` is nil again afterwards (a buffer to reuse for the next node).
    @inline(__always)
    mutating func make(_ values: inout [Value?]) -> [String: Value] {
        guard keys.count <= 64 else {
            var dictionary = [String: Value](minimumCapacity: keys.count)
            for position in keys.indices {
                if let value = values[position].take() { dictionary[keys[position]] = value }
            }
            return dictionary
        }
        var mask: UInt64 = 0
        for position in keys.indices where values[position] != nil { mask |= 1 << UInt64(position) }
        if mask == 0 { return [:] }
        let template = self.template(for: mask)
        var dictionary = template.dictionary
        var rest = mask
        var present = 0
        while rest != 0 {
            let position = rest.trailingZeroBitCount
            // indexes has one entry per set bit of mask, in bit order; the bit says values[position] is set.
            if let value = values[position].take() { dictionary.values[template.indexes[present]] = value }
            present += 1
            rest &= rest - 1
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
