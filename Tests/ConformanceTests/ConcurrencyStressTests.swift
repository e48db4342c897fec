import Conformance
import PersistentStores
import Testing

/// Behaviour #63 on its own, so CI can run it under Thread Sanitizer
/// (`swift test --sanitize=thread --filter ConcurrencyStress`).
@Suite struct ConcurrencyStress {
    static let runs: [ConformanceRun] = BuiltInRuns.runnable.filter { $0.testCase.behaviour == 63 }

    @Test(arguments: runs)
    func fourWritersAndAReader(_ run: ConformanceRun) {
        let result = run.execute(registry: BuiltInRuns.registry)
        if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
        #expect(result.outcome == .passed)
    }
}
