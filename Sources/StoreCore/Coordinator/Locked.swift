import Foundation

/// A value guarded by a lock: the coordinator's and the registry's shared state.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux, `Mutex`
/// waits on raw futexes that Thread Sanitizer cannot see, so every access it orders is reported
/// as a race; a pthread mutex is intercepted and the ordering is visible. `withLock` is not
/// reentrant.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable is safe: `value` is private and only read or written inside
    // `withLock`, which holds `lock` for the whole access, so no two threads touch it at once.
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value when no other thread holds the lock now;
    /// nil, without running it, when one does.
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
