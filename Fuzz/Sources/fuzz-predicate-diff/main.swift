// fuzz-predicate-diff: differential fuzzing of predicates. The same data set of the predicate
// corpus is saved to an InMemory store and to a SQLite store; a fuzzed predicate that both
// accept must return the same objects from both (SQLite compiles it to SQL, InMemory
// evaluates it). A predicate one store rejects and the other accepts is not a finding: SQLite
// refuses some constructs it cannot compile.
import Conformance
import Foundation
import FuzzSupport
import PersistentStores

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let text = String(decoding: FuzzDriver.data(bytes, count), as: UTF8.self)
    guard let predicate = try? FetchPredicate(format: text) else { return 0 }
    PredicateStores.shared.compare(predicate, text: text)
    return 0
}

// The stores are made before the first input, so that LeakSanitizer's per-input check does not
// count them (they live as long as the process).
if !CommandLine.arguments.contains("--write-seeds") { _ = PredicateStores.shared.dataSets.count }

FuzzDriver.main(
    seeds: {
        var seeds: [String: Data] = [:]
        for corpusCase in PredicateCorpus.cases where !corpusCase.format.contains("%") {
            seeds["corpus-\(corpusCase.row).txt"] = Data(corpusCase.format.utf8)
        }
        return seeds
    }, testOneInput: testOneInput)
