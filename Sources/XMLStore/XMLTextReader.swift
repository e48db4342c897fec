import CLibXML2
import Foundation
import StoreCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only, streaming reader of one XML file: libxml2's `xmlTextReader` with the options
/// that make it safe for files from anywhere, and errors that name the file and line.
///
/// Safety: the parser never loads the external DTD (no `XML_PARSE_DTDLOAD`, `DTDATTR`,
/// `DTDVALID`), never substitutes entities (no `XML_PARSE_NOENT`), so an external entity is
/// never fetched and an entity reference reaches the caller as ``Kind/entityReference`` (which
/// the store rejects); it never touches the network (`XML_PARSE_NONET`). A document whose
/// document type declares any entity is refused before it is read
/// (``XMLEntityDeclarationCheck``): libxml2 expands declared entities inside attribute values
/// whatever the options. libxml2's own limits stay on (no `XML_PARSE_HUGE`): one text node
/// holds at most 10,000,000 bytes, elements nest at most 256 deep, names are at most 50,000
/// bytes. `XML_PARSE_BIG_LINES` keeps line numbers past 65,535.
///
/// The file is opened by this type and handed to libxml2 as a descriptor, so the path is never
/// interpreted as a URI. Not thread-safe; one reader per file read.
final class XMLTextReader {
    /// What the reader is positioned on.
    enum Kind: Equatable {
        /// A start tag (or an empty-element tag, see ``isEmptyElement``).
        case element
        /// An end tag.
        case endElement
        /// Character data (text or CDATA).
        case text
        /// Whitespace between elements.
        case whitespace
        /// A reference to a declared, non-predefined entity (`&name;`), left unexpanded.
        case entityReference
        /// A comment, processing instruction, document type or anything else that carries no data.
        case other
    }

    /// The libxml2 parser options: see the type's documentation.
    static let parseOptions: Int32 = Int32(
        bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue)

    /// The file read.
    let url: URL
    private let reader: xmlTextReaderPtr
    /// The open file, or -1 when reading from memory.
    private let descriptor: Int32
    /// The copy of the document read from memory, or nil when reading a file.
    private let memory: UnsafeMutableRawBufferPointer?
    private let errors: XMLErrorRecorder
    /// The line of the last text node read: an element past line 65,535 takes it (the
    /// whitespace before an element ends on the element's line).
    private var lastTextLine = 0
    /// The kind of the current node.
    private(set) var kind: Kind = .other

    /// Content where the caller's format allows none: thrown by the navigation methods, turned
    /// into a ``StoreError`` with context by the caller.
    struct UnexpectedContent: Error {
        /// What was found: an element, non-blank text or an entity reference.
        let kind: Kind
        /// Its line.
        let line: Int
        /// The element's or entity's name; empty for text.
        let name: String
    }

    /// Opens `url` for reading. A file that cannot be opened fails with 134080.
    init(url: URL) throws {
        self.url = url
        xmlInitParser()
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(reason)", fileURL: url)
        }
        do {
            try XMLEntityDeclarationCheck.check(url: url, descriptor: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        // Making the reader reads the document's first bytes and converts them from the
        // encoding they announce: the conversion's errors are this reader's to report.
        let errors = XMLErrorRecorder()
        guard let reader = errors.capturingThreadErrors({ xmlReaderForFd(descriptor, url.path, nil, Self.parseOptions) }) else {
            close(descriptor)
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): libxml2 could not create a reader", fileURL: url)
        }
        self.descriptor = descriptor
        self.memory = nil
        self.reader = reader
        self.errors = errors
        errors.install(on: reader)
    }

    /// A reader of a document held in memory (copied), reported as `url` in errors: what the
    /// fuzz harnesses read.
    init(data: Data, url: URL) throws {
        self.url = url
        xmlInitParser()
        guard data.count <= Int(Int32.max) else {
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): the document is too large", fileURL: url)
        }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
        _ = data.copyBytes(to: memory)
        let bytes = UnsafeRawBufferPointer(rebasing: memory[0..<data.count])
        do {
            try XMLEntityDeclarationCheck.check(url: url, bytes: bytes)
        } catch {
            memory.deallocate()
            throw error
        }
        let errors = XMLErrorRecorder()
        guard let base = memory.baseAddress?.assumingMemoryBound(to: CChar.self),
            let reader = errors.capturingThreadErrors({ xmlReaderForMemory(base, Int32(data.count), url.path, nil, Self.parseOptions) })
        else {
            memory.deallocate()
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): libxml2 could not create a reader", fileURL: url)
        }
        self.descriptor = -1
        self.memory = memory
        self.reader = reader
        self.errors = errors
        errors.install(on: reader)
    }

    deinit {
        xmlFreeTextReader(reader)
        if descriptor >= 0 { close(descriptor) }
        memory?.deallocate()
    }

    /// Runs `body` (the reading of this document) with the libxml2 errors reported outside
    /// the parser (encoding conversion) recorded as this reader's errors rather than printed on
    /// standard error (``XMLErrorRecorder/capturingThreadErrors(_:)``).
    func capturingLibraryErrors<T>(_ body: () throws -> T) rethrows -> T {
        try errors.capturingThreadErrors(body)
    }

    // MARK: Moving

    /// Moves to the next node; false at the end of the document. A well-formedness error (or
    /// invalid UTF-8, a truncated file, …) throws 134080 naming the file, line and column.
    func read() throws -> Bool {
        let status = xmlTextReaderRead(reader)
        if status < 0 || errors.message != nil { throw syntaxError() }
        if status == 0 {
            kind = .other
            return false
        }
        kind = Self.kind(of: xmlTextReaderNodeType(reader))
        if kind == .text || kind == .whitespace, let node = xmlTextReaderCurrentNode(reader) {
            // Text ends where the next tag starts; past line 65,535 libxml2 keeps that line
            // for text nodes only.
            let line = Int(node.pointee.line)
            lastTextLine = line < 65535 ? line : Int(xmlGetLineNo(node))
        }
        return true
    }

    /// Moves to the next child element of the element at `parentDepth` (after its start tag or
    /// after a child that was read to its end); false on the parent's end tag. Comments and
    /// whitespace are skipped; other text or an entity reference throws ``UnexpectedContent``.
    func nextChildElement(parentDepth: Int) throws -> Bool {
        while try read() {
            switch kind {
            case .element:
                return true
            case .endElement:
                if depth <= parentDepth { return false }
            case .text:
                if let text = value, !Self.isWhitespace(text) { throw unexpectedContent() }
            case .entityReference:
                throw unexpectedContent()
            case .whitespace, .other:
                continue
            }
        }
        return false
    }

    /// Reads to the end tag of the current element, whatever it holds (nothing to do for
    /// `<name/>`).
    func skipElement() throws {
        if isEmptyElement { return }
        let elementDepth = depth
        while try read() {
            if kind == .endElement && depth == elementDepth { return }
        }
    }

    /// Reads to the end tag of the current element (nothing to do for `<name/>`), requiring
    /// that it holds nothing but whitespace and comments (else ``UnexpectedContent``).
    func readEmptyContent() throws {
        if isEmptyElement { return }
        if try nextChildElement(parentDepth: depth) { throw unexpectedContent() }
    }

    /// Reads the character content of the current element up to its end tag into `buffer`
    /// (replacing what it held), leaving the reader on the end tag. Comments are skipped; a
    /// child element or an entity reference throws ``UnexpectedContent``.
    func readText(into buffer: inout [UInt8]) throws {
        buffer.removeAll(keepingCapacity: true)
        if isEmptyElement { return }
        while try read() {
            switch kind {
            case .text, .whitespace:
                if let text = value {
                    buffer.append(contentsOf: UnsafeBufferPointer(start: text, count: xmlLength(text)))
                }
            case .endElement:
                return
            case .element, .entityReference:
                throw unexpectedContent()
            case .other:
                continue
            }
        }
    }

    private func unexpectedContent() -> UnexpectedContent {
        UnexpectedContent(kind: kind, line: line, name: kind == .text ? "" : nameString)
    }

    /// Whether a libxml2 string is XML whitespace only.
    static func isWhitespace(_ text: UnsafePointer<xmlChar>) -> Bool {
        bytes(text).allSatisfy(XMLValueCodec.isXMLSpace)
    }

    private func syntaxError() -> StoreError {
        let line = errors.line > 0 ? errors.line : Int(xmlTextReaderGetParserLineNumber(reader))
        let column = errors.column > 0 ? ", column \(errors.column)" : ""
        let reason = errors.message ?? "the XML is malformed"
        return StoreError(
            .persistentStoreOpen, "\(url.path), line \(line)\(column): malformed XML: \(reason)", fileURL: url)
    }

    // MARK: The current node

    private static func kind(of type: Int32) -> Kind {
        switch type {
        case Int32(XML_READER_TYPE_ELEMENT.rawValue): return .element
        case Int32(XML_READER_TYPE_END_ELEMENT.rawValue): return .endElement
        case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue): return .text
        case Int32(XML_READER_TYPE_WHITESPACE.rawValue), Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
            return .whitespace
        case Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue): return .entityReference
        default: return .other
        }
    }

    /// The depth of the current node (the root element is 0).
    var depth: Int { Int(xmlTextReaderDepth(reader)) }

    /// Whether the current element is written `<name/>` (no end tag follows).
    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    /// The qualified name of the current node (element, attribute, entity reference).
    var name: UnsafePointer<xmlChar>? { xmlTextReaderConstName(reader) }

    /// The name of the current node as a string.
    var nameString: String { name.map { String(cString: $0) } ?? "" }

    /// The text of the current text, whitespace or attribute node (valid until the next move).
    var value: UnsafePointer<xmlChar>? { xmlTextReaderConstValue(reader) }

    /// The line of the current node. An element's is the line of its start tag: libxml2's node
    /// line, or past line 65,535 (where libxml2 stops counting for elements) the line on which
    /// the text before it ended, which is the element's line whenever whitespace precedes it, as
    /// in every file this store writes. Text's is the line of its last non-blank character.
    var line: Int {
        guard let node = xmlTextReaderCurrentNode(reader) else { return max(Int(xmlTextReaderGetParserLineNumber(reader)), 1) }
        switch kind {
        case .text, .whitespace:
            var line = Int(xmlGetLineNo(node))
            if let text = value {
                for byte in Self.bytes(text).reversed() {
                    if byte == 0x0A { line -= 1 } else if !XMLValueCodec.isXMLSpace(byte) { break }
                }
            }
            return max(line, 1)
        default:
            let line = Int(node.pointee.line)
            if line > 0 && line < 65535 { return line }
            if lastTextLine > 0 { return lastTextLine }
            return max(Int(xmlTextReaderGetParserLineNumber(reader)), 1)
        }
    }

    /// libxml2's interned copy of `name`: a current node's name is the same pointer when equal.
    func intern(_ name: String) -> UnsafePointer<xmlChar>? {
        name.withCString { text in
            text.withMemoryRebound(to: xmlChar.self, capacity: name.utf8.count + 1) { xmlTextReaderConstString(reader, $0) }
        }
    }

    /// Whether the current node's name is `interned` (a pointer from ``intern(_:)``).
    func isNamed(_ interned: UnsafePointer<xmlChar>?) -> Bool {
        guard let current = name, let interned else { return false }
        return current == interned || xmlEquals(current, interned)
    }

    /// Moves to the current element's first attribute (true) or, when it has none, stays (false).
    /// ``name`` and ``value`` then describe the attribute; ``moveToElement()`` moves back.
    @inline(__always)
    func moveToFirstAttribute() -> Bool { xmlTextReaderMoveToFirstAttribute(reader) == 1 }

    /// Moves to the next attribute of the element (true), or stays after the last (false).
    @inline(__always)
    func moveToNextAttribute() -> Bool { xmlTextReaderMoveToNextAttribute(reader) == 1 }

    /// Moves back from an attribute to its element.
    @inline(__always)
    func moveToElement() { xmlTextReaderMoveToElement(reader) }

    /// Calls `body` with each attribute's name and value of the current element (both valid
    /// only during the call), then moves back to the element.
    func forEachAttribute(_ body: (_ name: UnsafePointer<xmlChar>, _ value: UnsafePointer<xmlChar>) throws -> Void) rethrows {
        defer { xmlTextReaderMoveToElement(reader) }
        var status = xmlTextReaderMoveToFirstAttribute(reader)
        while status == 1 {
            if let name = xmlTextReaderConstName(reader), let value = xmlTextReaderConstValue(reader) {
                try body(name, value)
            }
            status = xmlTextReaderMoveToNextAttribute(reader)
        }
    }

    /// Raw UTF-8 bytes of a libxml2 string.
    static func bytes(_ text: UnsafePointer<xmlChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: text, count: xmlLength(text))
    }

    /// A Swift string from a libxml2 string.
    static func string(_ text: UnsafePointer<xmlChar>) -> String {
        String(decoding: bytes(text), as: UTF8.self)
    }
}

/// The length in bytes of a libxml2 string.
@inline(__always)
func xmlLength(_ text: UnsafePointer<xmlChar>) -> Int {
    text.withMemoryRebound(to: CChar.self, capacity: 1) { Int(strlen($0)) }
}

/// Whether two libxml2 strings are equal.
@inline(__always)
func xmlEquals(_ a: UnsafePointer<xmlChar>, _ b: UnsafePointer<xmlChar>) -> Bool {
    a.withMemoryRebound(to: CChar.self, capacity: 1) { a in
        b.withMemoryRebound(to: CChar.self, capacity: 1) { b in strcmp(a, b) == 0 }
    }
}
