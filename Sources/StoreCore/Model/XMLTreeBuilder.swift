import CLibXML2
import Foundation

/// Reads a small XML document (an Xcode model's `contents`) into a tree of elements with
/// their attributes and line numbers, using libxml2's streaming reader from memory.
///
/// libxml2 rather than Foundation's `XMLParser`: `XMLParser` traps (the process dies) on an
/// element name that is not valid UTF-8, while libxml2 reports it as a well-formedness error.
///
/// Safety, as in the XML store: the external DTD is never loaded (no `XML_PARSE_DTDLOAD`,
/// `DTDATTR`, `DTDVALID`), entities are never substituted in content (no `XML_PARSE_NOENT`),
/// the network is never used (`XML_PARSE_NONET`), and libxml2's own limits stay on (no
/// `XML_PARSE_HUGE`). Xcode never writes a document type, so a `<!DOCTYPE>` is refused outright:
/// that keeps internal entities (which libxml2 expands inside attribute values) out entirely.
/// Text content is dropped: Xcode model files keep everything in attributes.
enum XMLTreeBuilder {
    /// One element: name, attributes, child elements, and the line it starts on.
    struct Element: Sendable, Hashable {
        var name: String
        var attributes: [String: String]
        var children: [Element]
        var line: Int

        /// The child elements with that name, in document order.
        func children(named name: String) -> [Element] { children.filter { $0.name == name } }
    }

    /// Deeper documents are refused rather than built (model files are four levels deep).
    static let maximumDepth = 64

    /// The libxml2 parser options: see the type's documentation.
    private static let parseOptions = Int32(
        bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// Parses `data`; a malformed document is a 134060 ``StoreError`` naming `file`, the line
    /// and column, and the parser's reason.
    static func parse(_ data: Data, file: URL) throws -> Element {
        func malformed(line: Int, column: Int, _ reason: String) -> StoreError {
            StoreError(
                .coreData, "Cannot read \(file.path): malformed XML at line \(line), column \(column): \(reason)", fileURL: file)
        }
        guard !data.isEmpty, data.count <= Int(Int32.max) else {
            throw malformed(line: 1, column: 1, data.isEmpty ? "the document is empty" : "the document is too large")
        }
        xmlInitParser()
        return try data.withUnsafeBytes { raw -> Element in
            let errors = XMLErrorRecorder()
            // Making the reader converts the document's first bytes from the encoding they
            // announce: the conversion's errors are recorded too.
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self),
                let reader = errors.capturingThreadErrors({ xmlReaderForMemory(base, Int32(raw.count), file.path, nil, parseOptions) })
            else {
                throw StoreError(.coreData, "Cannot read \(file.path): libxml2 could not create a reader", fileURL: file)
            }
            defer { xmlFreeTextReader(reader) }
            // The recorder outlives the reader's use: both live until this closure returns.
            errors.install(on: reader)
            return try errors.capturingThreadErrors {
                try build(reader, errors: errors, file: file, malformed: malformed)
            }
        }
    }

    private static func build(
        _ reader: xmlTextReaderPtr, errors: XMLErrorRecorder, file: URL,
        malformed: (Int, Int, String) -> StoreError
    ) throws -> Element {
        var stack: [Element] = []
        var root: Element?
        func finish(_ element: Element) {
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
        while true {
            let status = xmlTextReaderRead(reader)
            if status < 0 || errors.message != nil {
                let line = errors.message == nil ? Int(xmlTextReaderGetParserLineNumber(reader)) : errors.line
                let column = errors.message == nil ? Int(xmlTextReaderGetParserColumnNumber(reader)) : errors.column
                throw malformed(line, column, errors.message ?? "the document is not well-formed")
            }
            if status == 0 { break }
            let line = Int(xmlTextReaderGetParserLineNumber(reader))
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue):
                throw StoreError(
                    .coreData,
                    "Cannot read \(file.path): a document type declaration at line \(line) (where the parser stopped); model files have none, and their entities are never read",
                    fileURL: file)
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                guard stack.count < maximumDepth else {
                    throw StoreError(
                        .coreData,
                        "Cannot read \(file.path): elements are nested deeper than \(maximumDepth) levels at line \(line)",
                        fileURL: file)
                }
                let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
                var element = Element(name: text(xmlTextReaderConstName(reader)), attributes: [:], children: [], line: line)
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    element.attributes[text(xmlTextReaderConstName(reader))] = text(xmlTextReaderConstValue(reader))
                }
                xmlTextReaderMoveToElement(reader)
                if isEmpty { finish(element) } else { stack.append(element) }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                if let finished = stack.popLast() { finish(finished) }
            default:
                continue
            }
        }
        guard let root, stack.isEmpty else {
            throw malformed(
                Int(xmlTextReaderGetParserLineNumber(reader)), Int(xmlTextReaderGetParserColumnNumber(reader)),
                "the document has no complete root element")
        }
        return root
    }

    /// A libxml2 string (UTF-8, checked by the parser) as a Swift string; empty for NULL.
    private static func text(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}
