import CoreMetrics
import Foundation
import Logging
import Tracing

/// Where a coordinator and its stores report what they do: a swift-log `Logger`, swift-metrics
/// metrics and swift-distributed-tracing spans. Every part is off unless given or bootstrapped,
/// and costs nothing then (see `docs/observability.md` for each message, metric and span).
///
/// ```swift
/// var logger = Logger(label: "league.persistence")
/// logger.logLevel = .debug                       // every SQL statement with its duration
/// let container = PersistentContainer(
///     name: "League", model: model, observability: StoreObservability(logger: logger))
/// ```
///
/// Without a logger nothing is logged, unless the process runs with `PERSISTENCE_SQL_DEBUG`
/// set to 1, 2 or 3 in its environment, or with Core Data's `-com.apple.CoreData.SQLDebug N`
/// among its arguments: then the statements go to standard error (see ``debugLogLevel(environment:arguments:)``).
/// Metrics go to `factory`, or to the backend bootstrapped with `MetricsSystem.bootstrap`
/// before the coordinator was created; spans to `tracer`, or to the tracer bootstrapped with
/// `InstrumentationSystem.bootstrap` before the coordinator was created.
public struct StoreObservability: Sendable {
    /// The logger the stores log their statements and file operations to; a logger that
    /// discards everything when none was given.
    public var logger: Logger {
        didSet { hasOwnLogger = true }
    }
    /// Whether ``logger`` was given (rather than the default that discards everything).
    public private(set) var hasOwnLogger: Bool
    /// Statements that take longer are logged at `notice` (with their duration and row count)
    /// even when `debug` is off; nil never.
    public var slowStatementThreshold: Duration?
    /// Where metrics go; nil for the factory bootstrapped in `MetricsSystem` (none: nothing is
    /// recorded and nothing is measured).
    public var metricsFactory: (any MetricsFactory)?
    /// Where spans go; nil for the tracer bootstrapped in `InstrumentationSystem` (none: no span
    /// is started).
    public var tracer: (any Tracer)?
    /// Whether spans carry the SQL they ran as `db.query.text` (off by default: the text is
    /// parameterised, values are never in it, but it can be long).
    public var recordsQueryText: Bool
    /// The name the metrics' `store.name` dimension and the log metadata give every store of
    /// the coordinator (a ``PersistentContainer`` passes its name); nil for each store's file
    /// name without its extension.
    public var name: String?

    /// The label of the loggers this framework makes itself (the default one and the one
    /// standard error gets from the debug switch).
    public static let loggerLabel = "persistence"

    /// A logger that discards everything (swift-log's no-op handler).
    public static var discardingLogger: Logger {
        Logger(label: loggerLabel, factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Everything off (unless the debug switch is on in the process); set the parts you want.
    ///
    /// - Parameters:
    ///   - logger: where statements are logged; nil for none.
    ///   - slowStatementThreshold: statements slower than this log at `notice` (default half a
    ///     second); nil never.
    ///   - metricsFactory: where metrics go; nil for the bootstrapped backend.
    ///   - tracer: where spans go; nil for the bootstrapped tracer.
    ///   - recordsQueryText: whether spans carry `db.query.text`.
    ///   - name: the stores' name in metrics and log metadata; nil for their file names.
    public init(
        logger: Logger? = nil, slowStatementThreshold: Duration? = .milliseconds(500),
        metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil, recordsQueryText: Bool = false,
        name: String? = nil
    ) {
        self.logger = logger ?? Self.discardingLogger
        self.hasOwnLogger = logger != nil
        self.slowStatementThreshold = slowStatementThreshold
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.recordsQueryText = recordsQueryText
        self.name = name
    }

    // MARK: The debug switch

    /// The environment variable that turns statement logging on without code: 1 or 2 log every
    /// statement at `debug`, 3 also the bound values at `trace`.
    public static let debugEnvironmentVariable = "PERSISTENCE_SQL_DEBUG"
    /// Core Data's process argument for the same (`-com.apple.CoreData.SQLDebug 1`), for
    /// programs ported from Apple platforms.
    public static let debugArgument = "-com.apple.CoreData.SQLDebug"

    /// The log level the debug switch asks for: `debug` for 1 or 2, `trace` for 3 or more, nil
    /// when neither ``debugEnvironmentVariable`` nor ``debugArgument`` is set to a positive
    /// whole number. The argument wins over the environment.
    ///
    /// Core Data's levels, kept: 1 shows the SQL, 3 adds the bound values (here at `trace`).
    public static func debugLogLevel(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        arguments: [String] = ProcessInfo.processInfo.arguments
    ) -> Logger.Level? {
        var level: Int?
        if let text = environment[debugEnvironmentVariable], let value = Int(text.trimmingCharacters(in: .whitespaces)) {
            level = value
        }
        if let position = arguments.lastIndex(of: debugArgument), position + 1 < arguments.count,
            let value = Int(arguments[position + 1])
        {
            level = value
        }
        guard let level, level > 0 else { return nil }
        return level >= 3 ? .trace : .debug
    }

    /// The debug switch of this process, read once.
    static let processDebugLogLevel = debugLogLevel()

    /// This observability with the debug switch applied: at `level`, a coordinator without a
    /// logger of its own logs to standard error, and a logger of its own is lowered to `level`
    /// when it was above. Unchanged for nil.
    public func applyingDebugSwitch(_ level: Logger.Level?) -> StoreObservability {
        guard let level else { return self }
        var result = self
        if !hasOwnLogger {
            result.logger = Logger(label: Self.loggerLabel, factory: { StreamLogHandler.standardError(label: $0) })
        }
        if result.logger.logLevel > level { result.logger.logLevel = level }
        return result
    }

    /// This observability as a coordinator uses it: with the process's debug switch applied.
    func resolved() -> StoreObservability {
        applyingDebugSwitch(Self.processDebugLogLevel)
    }
}
