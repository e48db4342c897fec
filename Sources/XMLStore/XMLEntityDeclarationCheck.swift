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

/// Refuses an XML document whose document type declares entities, before anything expands them.
///
/// libxml2 expands a declared internal entity inside attribute values even when entities are not
/// substituted in content (it has to, to normalize the value), so a "billion laughs" chain used
/// in an attribute costs exponential time and memory. The XML store's files never declare
/// entities (Core Data writes `<!DOCTYPE database SYSTEM "…CoreData.dtd">` with no internal
/// subset), so any `<!ENTITY …>` is refused.
///
/// The check is a SAX pass of libxml2's own push parser over the prolog only: it stops at the
/// first entity declaration (refused), at the end of the document type declaration, or at the
/// root element's start tag, whichever comes first, so it reads a few hundred bytes of a store
/// file. It follows libxml2's own handling of encodings, comments and processing instructions,
/// so no spelling of a declaration escapes it. Errors in the prolog are left to the reader that
/// follows, which reports them with the file and line.
enum XMLEntityDeclarationCheck {
    /// What the SAX callbacks found, reached through the parser context's `_private`.
    private final class Findings {
        /// The first declared entity's name and line.
        var entity: (name: String, line: Int)?
        /// Whether the pass stopped (entity found, prolog over, or root element reached).
        var stopped = false
    }

    /// The size of the chunks fed to the push parser.
    private static let chunkSize = 4096

    /// Throws 134080 naming `url` and the line when the document `source` produces declares an
    /// entity. `source` fills the buffer it is given and returns how many bytes it wrote, 0 at
    /// the end.
    static func check(url: URL, source: (UnsafeMutableRawBufferPointer) -> Int) throws {
        xmlInitParser()
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.entityDecl = { context, name, _, _, _, _ in
            guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self) else { return }
            guard let findings = XMLEntityDeclarationCheck.recordedFindings(of: parser) else { return }
            if findings.entity == nil {
                let line = Int(xmlSAX2GetLineNumber(context))
                findings.entity = (name.map { String(cString: $0) } ?? "", line)
            }
            XMLEntityDeclarationCheck.stop(parser)
        }
        // The end of the document type declaration (internal subset included): nothing after it
        // can declare an entity.
        handler.externalSubset = { context, _, _, _ in
            guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self) else { return }
            XMLEntityDeclarationCheck.stop(parser)
        }
        handler.startElementNs = { context, _, _, _, _, _, _, _, _ in
            guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self) else { return }
            XMLEntityDeclarationCheck.stop(parser)
        }
        // Errors are reported by the reader that reads the document afterwards.
        handler.serror = { _, _ in }

        guard let parser = xmlCreatePushParserCtxt(&handler, nil, nil, 0, url.path) else {
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): libxml2 could not create a parser", fileURL: url)
        }
        defer { xmlFreeParserCtxt(parser) }
        // No network, no external DTD, no entity substitution, libxml2's limits on.
        _ = xmlCtxtUseOptions(parser, Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue))
        let findings = Findings()
        parser.pointee._private = Unmanaged.passUnretained(findings).toOpaque()
        // libxml2's errors outside the parser (encoding conversion) would be printed on standard
        // error; they are the reader's to report, so this pass drops them.
        try XMLErrorRecorder().capturingThreadErrors {
            try withExtendedLifetime(findings) {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
                defer { buffer.deallocate() }
                while !findings.stopped {
                    let count = source(buffer)
                    let status = xmlParseChunk(
                        parser, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(count), count == 0 ? 1 : 0)
                    // A well-formedness error or the end: the reader reports what there is to report.
                    if count == 0 || (status != 0 && !findings.stopped) { break }
                }
                if let entity = findings.entity {
                    throw StoreError(
                        .persistentStoreOpen,
                        "\(url.path), line \(entity.line): the document type declares the entity \"\(entity.name)\"; XML stores declare no entities, and documents that do are refused (expanding them can exhaust memory)",
                        fileURL: url)
                }
            }
        }
    }

    /// Checks the file open at `descriptor` from its start, then rewinds it.
    static func check(url: URL, descriptor: Int32) throws {
        defer { lseek(descriptor, 0, SEEK_SET) }
        try check(url: url) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                if count < 0 && errno == EINTR { continue }
                return max(count, 0)
            }
        }
    }

    /// Checks a document held in memory.
    static func check(url: URL, bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        try check(url: url) { buffer in
            let count = min(buffer.count, bytes.count - offset)
            guard count > 0, let base = bytes.baseAddress, let target = buffer.baseAddress else { return 0 }
            target.copyMemory(from: base + offset, byteCount: count)
            offset += count
            return count
        }
    }

    private static func recordedFindings(of parser: UnsafeMutablePointer<xmlParserCtxt>) -> Findings? {
        // `_private` is set to the findings before the first chunk is parsed and the findings
        // outlive the parse (`withExtendedLifetime` in `check`).
        parser.pointee._private.map { Unmanaged<Findings>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func stop(_ parser: UnsafeMutablePointer<xmlParserCtxt>) {
        recordedFindings(of: parser)?.stopped = true
        xmlStopParser(parser)
    }
}
