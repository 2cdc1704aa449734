import Foundation
internal import Ownership

/// The threads the async calls block on: a call starts at once on an idle thread, or on a new
/// one when none is idle, so that concurrent calls are never held back behind each other (a
/// dispatch queue runs about one blocking item a core and adds about one thread a second).
/// There is one thread per call in flight, and no cap but the number of calls; a thread
/// left idle for `idleLifetime` ends. Shared by every client of the process.
/// `Sendable` as checked by the compiler: the queue of jobs lives in a ``Guarded`` cell.
final class CallThreads: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var idle = 0
    }

    /// The process's pool.
    static let shared = CallThreads(idleLifetime: 10)

    private let state = Guarded(State())
    private let idleLifetime: Double

    init(idleLifetime: Double) {
        self.idleLifetime = idleLifetime
    }

    /// Runs `job` on a thread of the pool, starting a new thread when none is idle.
    func run(_ job: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { access in
            access.state.jobs.append(job)
            // Every waiting job needs an idle thread of its own.
            guard access.state.idle >= access.state.jobs.count else { return true }
            access.signal()
            return false
        }
        guard startThread else { return }
        let thread = Thread { [self] in
            while let job = next() { job() }
        }
        thread.name = "PermissionClient.call"
        thread.start()
    }

    /// The next job, or `nil` once the thread has been idle for `idleLifetime`.
    private func next() -> (@Sendable () -> Void)? {
        state.withLock { access in
            let deadline = Date(timeIntervalSinceNow: idleLifetime)
            while access.state.jobs.isEmpty {
                access.state.idle += 1
                let woken = access.wait(until: deadline)
                access.state.idle -= 1
                if !woken, access.state.jobs.isEmpty { return nil }
            }
            return access.state.jobs.removeFirst()
        }
    }
}
