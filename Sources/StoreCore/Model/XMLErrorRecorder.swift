import CLibXML2
import Foundation

/// The first error (level error or fatal) a libxml2 text reader reports, with its line and
/// column: what the model reader and the XML store put in their messages.
package final class XMLErrorRecorder {
    /// libxml2's message, trimmed; nil while no error was reported.
    package private(set) var message: String?
    /// The line of the first error.
    package private(set) var line = 0
    /// The column of the first error.
    package private(set) var column = 0

    /// A recorder with no error yet.
    package init() {}

    /// Makes `reader` report its errors here. The recorder must outlive the reader's use (the
    /// handler holds it unretained).
    package func install(on reader: xmlTextReaderPtr) {
        xmlTextReaderSetStructuredErrorHandler(reader, Self.handler, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs `body` with this recorder also receiving the errors libxml2 reports outside any
    /// parser (its encoding conversion's, for a document whose bytes are not in its declared
    /// encoding), which libxml2 would otherwise print on the process's standard error: a library
    /// reading a malformed file must not write to the caller's terminal or logs. The thread's
    /// previous handler (libxml2 keeps one per thread) is restored when `body` returns or
    /// throws, so nested uses and the caller's own handler are left as they were.
    package func capturingThreadErrors<T>(_ body: () throws -> T) rethrows -> T {
        let previousHandler = __xmlStructuredError()?.pointee
        let previousContext = __xmlStructuredErrorContext()?.pointee
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(self).toOpaque(), Self.handler)
        defer { xmlSetStructuredErrorFunc(previousContext, previousHandler) }
        return try withExtendedLifetime(self) { try body() }
    }

    /// Records the first error (level error or fatal) in the recorder passed as the context.
    private static let handler: xmlStructuredErrorFunc = { context, error in
        guard let context, let error else { return }
        let recorder = Unmanaged<XMLErrorRecorder>.fromOpaque(context).takeUnretainedValue()
        let details = error.pointee
        guard recorder.message == nil, details.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = details.message.map { String(cString: $0) } ?? "code \(details.code)"
        recorder.message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        recorder.line = Int(details.line)
        recorder.column = Int(details.int2)
    }
}
