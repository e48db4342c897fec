import Foundation
import StoreCore
import Synchronization
import Testing

/// The store error `body` throws, waiting at most `seconds` for it: the regression tests of
/// inputs that once made a reader loop for ever (and exhaust memory) fail in seconds instead
/// of hanging the test run. `body` runs on a thread of its own; when it does not finish in
/// time the failure is recorded, nil returned and the thread left running (the process ends
/// with the test run).
@discardableResult
public func storeError(
    within seconds: Double, sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () throws -> Void
) -> StoreError? {
    let outcome = BoundedOutcome()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        do {
            try body()
            outcome.value.withLock { $0 = .returned }
        } catch let error as StoreError {
            outcome.value.withLock { $0 = .storeError(error) }
        } catch {
            outcome.value.withLock { $0 = .otherError(String(describing: error)) }
        }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
        Issue.record("still running after \(seconds) s (a loop that does not end, or memory that keeps growing)", sourceLocation: sourceLocation)
        return nil
    }
    switch outcome.value.withLock({ $0 }) {
    case .storeError(let error)?: return error
    case .returned?: Issue.record("expected a StoreError, nothing was thrown", sourceLocation: sourceLocation)
    case .otherError(let description)?: Issue.record("expected a StoreError, got \(description)", sourceLocation: sourceLocation)
    case nil: Issue.record("no outcome", sourceLocation: sourceLocation)
    }
    return nil
}

/// What the thread of ``storeError(within:sourceLocation:_:)`` saw.
private final class BoundedOutcome: Sendable {
    enum Outcome: Sendable {
        case returned
        case storeError(StoreError)
        case otherError(String)
    }

    let value = Mutex<Outcome?>(nil)
}
