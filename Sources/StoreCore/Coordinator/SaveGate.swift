import Foundation

/// Counts the saves running in a coordinator and, once closed, refuses new ones: what a
/// graceful shutdown needs to stop taking saves and wait for the ones in progress.
final class SaveGate: Sendable {
    private struct State {
        var closed = false
        var running = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Counts a save that starts; 134070 when the gate is closed.
    func enter() throws {
        let refused = state.withLock { state -> Bool in
            if state.closed { return true }
            state.running += 1
            return false
        }
        if refused {
            throw StoreError(
                .persistentStoreOperation,
                "The persistent store coordinator is shutting down and takes no more saves; the save was refused and nothing was written")
        }
    }

    /// Counts a save that ended; wakes the waiters when it was the last one of a closed gate.
    func leave() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.closed, state.running == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Refuses every later save.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Whether saves are refused.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// The number of saves in progress.
    var running: Int { state.withLock { $0.running } }

    /// Returns when no save is running on a closed gate, or when the task is cancelled.
    func drained() async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if (state.closed && state.running == 0) || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
