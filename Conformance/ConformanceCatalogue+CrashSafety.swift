import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Crash safety (#56): a child process saving generation after generation is killed with
    /// SIGKILL at random moments, `kills` times; after every kill the store opens and holds
    /// exactly one whole generation, the last acknowledged one or the one in flight. `child` is
    /// an executable whose `main.swift` registers the store type and calls
    /// ``CrashSafetyChild/main(registry:arguments:)``.
    ///
    /// They are not in ``ConformanceSuite/allCases``, which needs no executable: run them with
    /// ``ConformanceSuite/crashSafetyCases(child:kills:)``.
    public static func crashSafety(child: URL, kills: Int) -> [ConformanceCase] {
        [
            ConformanceCase(
                "killed while saving, the store holds one whole generation", behaviour: 56, area: .crashSafety,
                requires: .persistent
            ) { env in
                try killTest(env, child: child, kills: kills, peeking: false)
            },
            ConformanceCase(
                "killed while saving and read by another process, the store holds one whole generation", behaviour: 56,
                area: .crashSafety, requires: .persistent
            ) { env in
                try killTest(env, child: child, kills: max(kills / 2, 1), peeking: true)
            },
        ]
    }

    /// Runs ``CrashSafetyHarness`` on a fresh store of the type under test, then opens the store
    /// in this process too and checks the generation the last child saw.
    static func killTest(_ env: ConformanceEnvironment, child: URL, kills: Int, peeking: Bool) throws {
        let url = try requireURL(env, "crash")
        let report = try CrashSafetyHarness.run(
            storeType: env.storeType, store: url, kills: kills, child: child, peeking: peeking)
        try env.expect(
            report.problems.isEmpty,
            "after \(report.kills) of \(kills) kills (\(report.killedAfterSave) after a save, \(report.killedDuringWrite) during a file's write) the store was not one whole generation: "
                + report.problems.joined(separator: "; "))
        try env.expectEqual(report.kills, kills, "kills made")
        try env.expect(
            report.killedAfterSave > 0 || kills < 4, "no kill landed after an acknowledged save: the case exercised nothing")
        let coordinator = PersistentStoreCoordinator(model: try CrashSafetyGenerations.model(), registry: env.registry)
        let store = try coordinator.addPersistentStore(type: env.storeType, at: url)
        let generation = try CrashSafetyGenerations.verify(coordinator, store)
        try env.expectEqual(generation, report.lastGeneration, "the generation this process reads after the last kill")
        try coordinator.remove(store)
    }
}

extension ConformanceSuite {
    /// The crash-safety cases (``ConformanceCatalogue/crashSafety(child:kills:)``), with `child`
    /// the executable that registers the store type under test and calls
    /// ``CrashSafetyChild/main(registry:arguments:)``. `kills` defaults to 12 per case
    /// (`PERSISTENTSTORES_CRASH_KILLS` overrides it), a few seconds per store type.
    ///
    /// ```swift
    /// let child = try #require(ChildProcess.builtExecutable(named: "my-store-crash-child"))
    /// let report = ConformanceSuite.run(storeType: "Mine", registry: registry,
    ///                                   cases: ConformanceSuite.crashSafetyCases(child: child))
    /// #expect(report.failed == 0)
    /// ```
    public static func crashSafetyCases(child: URL, kills: Int = CrashSafetyHarness.kills(standard: 12)) -> [ConformanceCase] {
        ConformanceCatalogue.crashSafety(child: child, kills: kills)
    }
}
