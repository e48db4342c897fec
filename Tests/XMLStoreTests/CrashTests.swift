import Foundation
import StoreTestSupport
import Testing

/// Behaviour #56: a child saves in a loop while the parent kills it at random moments; after
/// each kill the store loads and holds the generation saved last or the one being saved —
/// never an error, never a mix (the child checks every object and the metadata on load).
@Suite("Crash safety")
struct CrashTests {
    static let kills = CrashTestHarness.kills(standard: 60)

    @Test(.enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
    func killingASavingProcessNeverLeavesAMixedOrUnreadableStore() throws {
        let saver = try #require(CrashTestHarness.saver)
        try withTemporaryDirectory { directory in
            let report = try CrashTestHarness.run(
                storeType: "XML", fileName: "Crash.xml", kills: Self.kills, in: directory, saver: saver)
            #expect(report.problems == [])
            #expect(report.kills == Self.kills)
            #expect(report.killedAfterSave > 0, "no kill landed after a save; the test exercised nothing")
            print("XML crash test: \(report.kills) kills, \(report.killedAfterSave) after at least one save, \(report.killedDuringWrite) during the file's write; last generation \(report.lastGeneration)")
            // Only the store file remains, plus temporary files of interrupted writes.
            #expect(report.files.filter { !$0.hasPrefix(".") } == ["Crash.xml"])
            #expect(report.files.filter { $0.hasPrefix(".") }.allSatisfy { $0.hasPrefix(".Crash.xml.tmp-") })
        }
    }
}
