/// Checks a configuration file's bytes before swift-configuration parses them, so a small
/// hostile or runaway file cannot hang the program that reads it.
///
/// Two costs grow much faster than a file:
/// - YAML aliases: `&a` names a node and `*a` repeats it. The parser shares the node, but the
///   provider then flattens the document into one value per key path, so each alias is copied
///   out in full; aliases of nodes that themselves hold aliases multiply, and 875 bytes stand
///   for billions of keys (the "billion laughs").
/// - Keys at all: swift-configuration's JSON and YAML providers (1.4.0) flatten a file with an
///   array they take their work from the front of (`removeFirst()`), so a file of n keys costs
///   n² steps: 30,000 keys take 23 seconds.
///
/// So a file is refused, before it is parsed, when it is larger than ``maximumByteCount``, when
/// it nests more than ``maximumNesting`` levels deep, when it defines more than
/// ``maximumAnchorCount`` anchors (which keeps the scan itself linear), or when it holds more
/// than ``maximumEntryCount`` entries once its aliases are expanded.
///
/// The count is an upper bound, made in one pass over the bytes without parsing: every `:`,
/// `,`, `[`, `{` and `?` and every `- ` counts as an entry, in strings and comments too (so no
/// mistake about where a string ends can hide one). An alias counts what its anchor's node
/// counted, and at least one. Where that node ends is judged by indentation (the first block
/// line after the anchor's line indented no deeper, outside quoted, plain and block scalars and
/// brackets); an alias met before its anchor's node is judged complete counts everything from
/// the anchor to the alias, and an anchor named twice counts as the larger of the two. JSON has
/// no aliases; its strings are followed exactly.
enum ConfigFileCheck {
    /// The largest file read: a store configuration is a few hundred bytes.
    static let maximumByteCount = 1 << 20
    /// The most entries (keys and sequence items, aliases expanded) a file may hold. At this
    /// count swift-configuration's flattening takes about a second.
    static let maximumEntryCount = 5_000
    /// The deepest nesting of mappings and sequences.
    static let maximumNesting = 64
    /// The most anchors (`&name`) a YAML file may define.
    static let maximumAnchorCount = 100

    /// Why the file's `bytes` are refused, as a clause ("it holds …"); nil when they may be
    /// parsed.
    static func problem(in bytes: [UInt8], isJSON: Bool) -> String? {
        if bytes.count > maximumByteCount {
            return "it is larger than \(maximumByteCount) bytes (a configuration file is refused beyond that)"
        }
        if isJSON { return jsonProblem(bytes) }
        var scan = YAMLScan(bytes)
        return scan.problem()
    }

    /// The reasons, as clauses following the file's name.
    static func tooManyEntries() -> String {
        "it holds more than \(maximumEntryCount) entries (keys and list items, with aliases expanded); a configuration file is refused beyond that, as parsing it would take too long or exhaust memory"
    }

    static func tooManyAnchors() -> String {
        "it defines more than \(maximumAnchorCount) anchors (&name)"
    }

    static func tooDeep() -> String {
        "it nests mappings or lists more than \(maximumNesting) levels deep"
    }

    private static func jsonProblem(_ bytes: [UInt8]) -> String? {
        var entries = 0
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                entries += 1
                if depth > maximumNesting { return tooDeep() }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(depth - 1, 0)
            case UInt8(ascii: ":"), UInt8(ascii: ","): entries += 1
            default: break
            }
            if entries > maximumEntryCount { return tooManyEntries() }
        }
        return nil
    }
}

/// The one pass of ``ConfigFileCheck`` over a YAML file: a small tokenizer that follows YAML's
/// quoted, plain and block scalars, comments and brackets only as far as needed to tell where
/// an anchored node may end.
private struct YAMLScan {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// An anchor whose node may not be complete yet.
    private struct OpenAnchor {
        let name: ArraySlice<UInt8>
        /// The entry count when the anchor was met.
        let start: Int
        /// The indentation of its line: the node is complete at the first block line indented
        /// less deeply, or as deeply when its line is a sequence entry or (unless the next line
        /// is a sequence entry, which may hold the value) a `key:` line.
        var indentation = 0
        var endsAtSameIndentation = false
        var unlessSequenceEntry = false
    }

    private enum Quote { case none, single, double }

    private var entries = 0
    private var anchors = 0
    private var open: [OpenAnchor] = []
    /// The entries of each anchor whose node is complete (the largest, for a name used twice).
    private var counted: [ArraySlice<UInt8>: Int] = [:]

    private var quote = Quote.none
    private var flowDepth = 0
    /// Whether the last line ended inside a plain scalar, and the column its lines must be
    /// deeper than to continue it.
    private var plainContinuesBeyond: Int?
    /// The column a block scalar's (`|`, `>`) text must be deeper than.
    private var blockScalarBeyond: Int?
    /// The indentations of the block lines that hold the current one.
    private var indentations: [Int] = []

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    private static func isFlowIndicator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "{")
            || byte == UInt8(ascii: "}")
    }

    mutating func problem() -> String? {
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if let problem = line(lineStart..<lineEnd) { return problem }
            lineStart = lineEnd + 1
        }
        return nil
    }

    private mutating func line(_ range: Range<Int>) -> String? {
        var indentation = 0
        while range.lowerBound + indentation < range.upperBound, bytes[range.lowerBound + indentation] == UInt8(ascii: " ") {
            indentation += 1
        }
        let content = range.lowerBound + indentation
        let isBlank = bytes[content..<range.upperBound].allSatisfy(Self.isSpace)
        if let beyond = blockScalarBeyond, isBlank || indentation > beyond {
            // Text of a block scalar: entries and aliases still count (an upper bound).
            return count(range, following: false)
        }
        blockScalarBeyond = nil
        if quote == .none, !isBlank, bytes[content] == UInt8(ascii: "#") { plainContinuesBeyond = nil }
        let continuesPlain = !isBlank && plainContinuesBeyond.map { flowDepth > 0 || indentation > $0 } ?? false
        if !isBlank, !continuesPlain { plainContinuesBeyond = nil }
        if quote == .none, flowDepth == 0, !isBlank, bytes[content] != UInt8(ascii: "#"), !continuesPlain {
            // A block line: anchored nodes it is not part of are complete.
            let isSequenceEntry = bytes[content] == UInt8(ascii: "-") && (content + 1 == range.upperBound || Self.isSpace(bytes[content + 1]))
            var remaining: [OpenAnchor] = []
            for anchor in open {
                let complete =
                    indentation < anchor.indentation
                    || (indentation == anchor.indentation && anchor.endsAtSameIndentation && !(anchor.unlessSequenceEntry && isSequenceEntry))
                if complete {
                    counted[anchor.name] = max(counted[anchor.name] ?? 0, entries - anchor.start)
                } else {
                    remaining.append(anchor)
                }
            }
            open = remaining
            while let last = indentations.last, last >= indentation { indentations.removeLast() }
            indentations.append(indentation)
            if indentations.count > ConfigFileCheck.maximumNesting { return ConfigFileCheck.tooDeep() }
        }
        let anchorsBefore = open.count
        let firstIsDash = bytes[content...].first == UInt8(ascii: "-")
        if let problem = count(range, following: true, plain: continuesPlain, indentation: indentation) { return problem }
        for index in anchorsBefore..<open.count {
            open[index].indentation = indentation
            open[index].endsAtSameIndentation = firstIsDash || lineHasKey
            open[index].unlessSequenceEntry = !firstIsDash && lineHasKey
        }
        return nil
    }

    /// Set by ``count(_:following:plain:indentation:)``: whether the line holds a block
    /// mapping's `key:`.
    private var lineHasKey = false

    /// Counts the entries, anchors and aliases of a line; with `following`, also follows its
    /// quotes, plain scalars, comments, brackets and block scalar header. The reason to refuse
    /// the file, if the count passes the limit.
    private mutating func count(_ range: Range<Int>, following: Bool, plain startsInPlain: Bool = false, indentation: Int = 0) -> String? {
        var index = range.lowerBound
        var inComment = false
        var inPlain = startsInPlain
        // The column of the block collection the line's scalars belong to (its last `- ` or key).
        var collectionColumn = indentation
        var scalarColumn = indentation
        lineHasKey = false
        while index < range.upperBound {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < range.upperBound ? bytes[index + 1] : nil
            let followedBySpace = next.map(Self.isSpace) ?? true
            // Entries, anchors and aliases count wherever they are.
            switch byte {
            case UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "?"):
                entries += 1
            case UInt8(ascii: "-") where followedBySpace:
                entries += 1
            case UInt8(ascii: "&"), UInt8(ascii: "*"):
                var nameEnd = index + 1
                while nameEnd < range.upperBound, !Self.isSpace(bytes[nameEnd]), !Self.isFlowIndicator(bytes[nameEnd]) { nameEnd += 1 }
                if nameEnd > index + 1 {
                    let name = bytes[index + 1..<nameEnd]
                    if byte == UInt8(ascii: "&") {
                        anchors += 1
                        if anchors > ConfigFileCheck.maximumAnchorCount { return ConfigFileCheck.tooManyAnchors() }
                        open.append(OpenAnchor(name: name, start: entries))
                    } else {
                        // What the anchor's node counted, or all since the anchor for one that
                        // may not be complete yet; at least one.
                        var added = max(counted[name] ?? 0, 1)
                        for anchor in open where anchor.name == name { added = max(added, entries - anchor.start) }
                        entries += added
                    }
                }
            default: break
            }
            if entries > ConfigFileCheck.maximumEntryCount { return ConfigFileCheck.tooManyEntries() }
            let column = index - range.lowerBound
            index += 1
            guard following, !inComment else { continue }
            switch quote {
            case .double:
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    quote = .none
                }
                continue
            case .single:
                if byte == UInt8(ascii: "'") {
                    if next == UInt8(ascii: "'") { index += 1 } else { quote = .none }
                }
                continue
            case .none:
                break
            }
            let afterSpace = column == 0 || Self.isSpace(bytes[index - 2])
            if inPlain {
                // A plain scalar ends at ": ", at " #", and in brackets at a flow indicator.
                if byte == UInt8(ascii: ":"), followedBySpace || (flowDepth > 0 && next.map(Self.isFlowIndicator) == true) {
                    inPlain = false
                    if flowDepth == 0 {
                        lineHasKey = true
                        collectionColumn = scalarColumn
                    }
                } else if byte == UInt8(ascii: "#"), afterSpace {
                    inPlain = false
                    inComment = true
                } else if flowDepth > 0, Self.isFlowIndicator(byte) {
                    inPlain = false
                    if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") { flowDepth = max(flowDepth - 1, 0) }
                    if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { flowDepth += 1 }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                break
            case UInt8(ascii: "\""):
                quote = .double
                scalarColumn = column
            case UInt8(ascii: "'"):
                quote = .single
                scalarColumn = column
            case UInt8(ascii: "#") where afterSpace:
                inComment = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flowDepth += 1
                if flowDepth + indentations.count > ConfigFileCheck.maximumNesting { return ConfigFileCheck.tooDeep() }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                flowDepth = max(flowDepth - 1, 0)
            case UInt8(ascii: ","):
                break
            case UInt8(ascii: "-") where followedBySpace && flowDepth == 0:
                collectionColumn = column
            case UInt8(ascii: ":") where followedBySpace || flowDepth > 0:
                if flowDepth == 0 {
                    lineHasKey = true
                    collectionColumn = scalarColumn
                }
            case UInt8(ascii: "?") where followedBySpace:
                break
            case UInt8(ascii: "&"), UInt8(ascii: "!"), UInt8(ascii: "*"):
                // An anchor, a tag or an alias: up to the next space (or flow indicator).
                while index < range.upperBound, !Self.isSpace(bytes[index]), !(flowDepth > 0 && Self.isFlowIndicator(bytes[index])) {
                    index += 1
                }
            case UInt8(ascii: "|") where flowDepth == 0, UInt8(ascii: ">") where flowDepth == 0:
                // A block scalar's header: its text follows on deeper lines.
                blockScalarBeyond = collectionColumn
                inComment = true
            default:
                inPlain = true
                scalarColumn = column
            }
        }
        if following {
            plainContinuesBeyond = inPlain ? (startsInPlain ? plainContinuesBeyond : collectionColumn) : nil
        }
        return nil
    }
}
