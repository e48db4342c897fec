import CLibXML2
import Foundation
import StoreCore

/// Streaming XML output: libxml2's `xmlTextWriter` writing through a ``FileOutput`` (so a store
/// file is written by ``AtomicFileWriter``, crash-safe, with constant memory). The writer
/// escapes text and attribute values (`<`, `>`, `&`, `"`, carriage returns); the caller never
/// builds markup by concatenating strings.
///
/// Indentation is written explicitly (``newline(indent:)``) rather than by libxml2's indent
/// mode, so the layout is exactly Core Data's whatever the content. Not thread-safe.
final class XMLTextWriter {
    private let writer: xmlTextWriterPtr
    private let sink: Sink
    /// The file named in errors.
    let destination: URL

    /// Where libxml2's output buffer sends its bytes, and the first failure doing so.
    private final class Sink {
        let output: FileOutput
        var error: (any Error)?
        init(output: FileOutput) { self.output = output }
    }

    /// A writer into `output` (valid only while `output` is).
    init(output: FileOutput) throws {
        xmlInitParser()
        let sink = Sink(output: output)
        destination = output.destination
        let context = Unmanaged.passUnretained(sink).toOpaque()
        guard
            let buffer = xmlOutputBufferCreateIO(
                { context, bytes, count in
                    guard let context else { return -1 }
                    let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                    guard sink.error == nil else { return -1 }
                    guard let bytes, count > 0 else { return 0 }
                    do {
                        try sink.output.write(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
                        return count
                    } catch {
                        sink.error = error
                        return -1
                    }
                }, nil, context, nil)
        else { throw StoreError(.persistentStoreSave, "Cannot write \(output.destination.path): libxml2 could not create an output buffer", fileURL: output.destination) }
        // The text writer owns the output buffer from here on and frees it with itself.
        guard let writer = xmlNewTextWriter(buffer) else {
            xmlOutputBufferClose(buffer)
            throw StoreError(.persistentStoreSave, "Cannot write \(output.destination.path): libxml2 could not create a writer", fileURL: output.destination)
        }
        self.writer = writer
        self.sink = sink
    }

    deinit { xmlFreeTextWriter(writer) }

    /// `<?xml version="1.0"?>` and a newline.
    func startDocument() throws {
        try check(xmlTextWriterStartDocument(writer, nil, nil, nil), "the XML declaration")
    }

    /// `<!DOCTYPE name SYSTEM "systemID">`.
    func documentType(_ name: String, systemID: String) throws {
        try check(
            withXMLString(name) { name in
                withXMLString(systemID) { systemID in xmlTextWriterWriteDTD(writer, name, nil, systemID, nil) }
            }, "the document type")
    }

    /// Opens an element: `<name`.
    func startElement(_ name: String) throws {
        try check(withXMLString(name) { xmlTextWriterStartElement(writer, $0) }, "element \(name)")
    }

    /// An attribute of the element just opened: ` name="value"` (value escaped).
    func attribute(_ name: String, _ value: String) throws {
        try check(
            withXMLString(name) { name in withXMLString(value) { xmlTextWriterWriteAttribute(writer, name, $0) } },
            "attribute \(name)")
    }

    /// Character data, escaped.
    func text(_ text: String) throws {
        guard !text.isEmpty else { return }
        try check(withXMLString(text) { xmlTextWriterWriteString(writer, $0) }, "text")
    }

    /// Character data from a libxml2 string, escaped.
    func text(_ text: UnsafePointer<xmlChar>) throws {
        try check(xmlTextWriterWriteString(writer, text), "text")
    }

    /// A newline and `indent` levels of four spaces (markup layout, not data).
    func newline(indent: Int) throws {
        let status = Self.indentations[min(max(indent, 0), Self.indentations.count - 1)].withUnsafeBufferPointer { buffer in
            xmlTextWriterWriteRawLen(writer, buffer.baseAddress, Int32(buffer.count))
        }
        try check(status, "indentation")
    }

    /// Closes the current element; `<name/>` when it has no content.
    func endElement() throws {
        try check(xmlTextWriterEndElement(writer), "an end tag")
    }

    /// Closes the current element with an end tag even when it is empty (`<name></name>`, as
    /// Core Data writes empty relationships and metadata).
    func fullEndElement() throws {
        try check(xmlTextWriterFullEndElement(writer), "an end tag")
    }

    /// Closes every open element, ends the document with a newline, and flushes the bytes to the
    /// ``FileOutput``.
    func endDocument() throws {
        try check(xmlTextWriterEndDocument(writer), "the end of the document")
        try check(xmlTextWriterFlush(writer), "the document")
    }

    private func check(_ status: Int32, _ what: @autoclosure () -> String) throws {
        guard status < 0 else { return }
        if let error = sink.error { throw error }
        throw StoreError(
            .persistentStoreSave, "Cannot write \(what()) to \(destination.path): libxml2's writer failed",
            fileURL: destination)
    }

    /// A newline followed by 0…16 levels of indentation (deeper levels get 16).
    private static let indentations: [[xmlChar]] = (0...16).map { level in
        Array("\n".utf8) + Array(repeating: UInt8(ascii: " "), count: 4 * level)
    }
}

/// Calls `body` with `text` as a NUL-terminated libxml2 string.
@inline(__always)
func withXMLString<Result>(_ text: String, _ body: (UnsafePointer<xmlChar>) throws -> Result) rethrows -> Result {
    try text.withCString { pointer in
        try pointer.withMemoryRebound(to: xmlChar.self, capacity: text.utf8.count + 1, body)
    }
}
