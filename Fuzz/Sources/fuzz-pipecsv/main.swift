// fuzz-pipecsv: the PipeCSV store's loader on a data file held in memory, with its end line's
// checksum recomputed so that mutations reach the record parser; an accepted file must survive
// a save and reload unchanged.
import Foundation
import FuzzSupport
@_spi(Fuzzing) import PipeCSVStore

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = Data(EndLineChecksum.recomputed([UInt8](FuzzDriver.data(bytes, count))))
    AtomicRoundTrip.check(
        PipeCSVStore.self, data: data, fileName: "fuzz.txt",
        load: { try $0.load(data: $1) }, save: { try $0.savedData() })
    return 0
}

FuzzDriver.main(
    seeds: {
        let files = try AtomicRoundTrip.sampleFiles(type: "PipeCSV", fileName: "seed.txt")
        return Dictionary(uniqueKeysWithValues: files.enumerated().map { ("sample-\($0.offset).txt", $0.element) })
    }, testOneInput: testOneInput)
