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
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                let recorder = Unmanaged<XMLErrorRecorder>.fromOpaque(context).takeUnretainedValue()
                let details = error.pointee
                guard recorder.message == nil, details.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
                let message = details.message.map { String(cString: $0) } ?? "code \(details.code)"
                recorder.message = message.trimmingCharacters(in: .whitespacesAndNewlines)
                recorder.line = Int(details.line)
                recorder.column = Int(details.int2)
            }, Unmanaged.passUnretained(self).toOpaque())
    }
}
