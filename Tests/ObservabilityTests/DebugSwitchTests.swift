import Foundation
import Logging
import StoreCore
import Testing

/// `PERSISTENCE_SQL_DEBUG` and `-com.apple.CoreData.SQLDebug` turn statement logging on
/// without code.
@Suite("SQL debug switch")
struct DebugSwitchTests {
    @Test("The environment variable and the process argument map to log levels")
    func levels() {
        let variable = StoreObservability.debugEnvironmentVariable
        #expect(StoreObservability.debugLogLevel(environment: [variable: "1"], arguments: []) == .debug)
        #expect(StoreObservability.debugLogLevel(environment: [variable: "2"], arguments: []) == .debug)
        #expect(StoreObservability.debugLogLevel(environment: [variable: "3"], arguments: []) == .trace)
        #expect(StoreObservability.debugLogLevel(environment: [variable: "0"], arguments: []) == nil)
        #expect(StoreObservability.debugLogLevel(environment: [variable: "yes"], arguments: []) == nil)
        #expect(StoreObservability.debugLogLevel(environment: [:], arguments: []) == nil)
        #expect(StoreObservability.debugLogLevel(environment: [:], arguments: ["server", "-com.apple.CoreData.SQLDebug", "1"]) == .debug)
        #expect(
            StoreObservability.debugLogLevel(environment: [variable: "1"], arguments: ["server", "-com.apple.CoreData.SQLDebug", "3"])
                == .trace)
    }

    @Test("Without a logger, the switch logs to standard error; a logger of one's own is lowered to its level")
    func applying() {
        let switched = StoreObservability().applyingDebugSwitch(.debug)
        #expect(switched.logger.logLevel == .debug)
        #expect(switched.logger.handler is StreamLogHandler)
        #expect(StoreObservability().applyingDebugSwitch(nil).logger.handler is SwiftLogNoOpLogHandler)

        var own = Logger(label: "app")
        own.logLevel = .info
        let lowered = StoreObservability(logger: own).applyingDebugSwitch(.trace)
        #expect(lowered.logger.logLevel == .trace)
        #expect(lowered.logger.label == "app")
    }
}
