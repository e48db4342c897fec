// fuzz-predicate: the predicate parser on a format string. An accepted predicate must format to
// a string that parses again to the same format (the formatter writes what the parser reads),
// and must evaluate against an object without crashing.
import Conformance
import Foundation
import FuzzSupport
import StoreCore

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let text = String(decoding: FuzzDriver.data(bytes, count), as: UTF8.self)
    guard let predicate = try? FetchPredicate(format: text) else { return 0 }
    let format = predicate.predicateFormat
    let again: FetchPredicate
    do {
        again = try FetchPredicate(format: format)
    } catch {
        FuzzDriver.propertyFailed("\(text.debugDescription) formats as \(format.debugDescription), which does not parse: \(error)")
    }
    if again.predicateFormat != format {
        FuzzDriver.propertyFailed("\(text.debugDescription) formats as \(format.debugDescription), which formats as \(again.predicateFormat.debugDescription)")
    }
    PredicateProbe.evaluate(predicate)
    return 0
}

FuzzDriver.main(
    seeds: {
        var seeds: [String: Data] = [:]
        for corpusCase in PredicateCorpus.cases where !corpusCase.format.contains("%") {
            seeds["corpus-\(corpusCase.row).txt"] = Data(corpusCase.format.utf8)
        }
        return seeds
    }, testOneInput: testOneInput)
