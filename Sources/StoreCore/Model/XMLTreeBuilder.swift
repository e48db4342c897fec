import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads a small XML document (an Xcode model's `contents`) into a tree of elements with
/// their attributes and line numbers, using Foundation's `XMLParser`.
///
/// External entities and DTDs are never fetched. Text content is dropped: Xcode model files
/// keep everything in attributes.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
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

    private var stack: [Element] = []
    private var root: Element?
    private var depthError: Int?

    private override init() {}

    /// Parses `data`; a malformed document is a 134060 ``StoreError`` naming `file`, the line
    /// and column, and the parser's reason.
    static func parse(_ data: Data, file: URL) throws -> Element {
        let builder = XMLTreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = builder
        let succeeded = parser.parse()
        if let line = builder.depthError {
            throw StoreError(
                .coreData,
                "Cannot read \(file.path): elements are nested deeper than \(maximumDepth) levels at line \(line)",
                fileURL: file)
        }
        guard succeeded, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "the document is empty"
            throw StoreError(
                .coreData,
                "Cannot read \(file.path): malformed XML at line \(parser.lineNumber), column \(parser.columnNumber): \(reason)",
                fileURL: file)
        }
        return root
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        guard stack.count < Self.maximumDepth else {
            depthError = parser.lineNumber
            parser.abortParsing()
            return
        }
        stack.append(Element(name: elementName, attributes: attributeDict, children: [], line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let finished = stack.popLast() else { return }
        if stack.isEmpty {
            root = finished
        } else {
            stack[stack.count - 1].children.append(finished)
        }
    }
}
