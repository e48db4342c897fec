// fuzz-sqlite: the SQLite store on a mutated database file: the file is written to a scratch
// folder, added to a coordinator, and every entity fetched with its relationships. Any error
// is a correct answer; a crash, hang or leak is not.
import Foundation
import FuzzSupport
import PersistentStores

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let url = AtomicRoundTrip.folder.appendingPathComponent("fuzz.sqlite")
    AtomicRoundTrip.removeScratchFiles(of: url)
    defer { AtomicRoundTrip.removeScratchFiles(of: url) }
    guard (try? FuzzDriver.data(bytes, count).write(to: url)) != nil else { return 0 }
    SQLiteProbe.open(url)
    return 0
}

FuzzDriver.main(
    seeds: {
        let files = try AtomicRoundTrip.sampleFiles(type: "SQLite", fileName: "seed.sqlite")
        return Dictionary(uniqueKeysWithValues: files.enumerated().map { ("sample-\($0.offset).sqlite", $0.element) })
    }, testOneInput: testOneInput)
