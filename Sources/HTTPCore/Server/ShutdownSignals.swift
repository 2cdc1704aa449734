import Foundation
import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// SIGTERM and SIGINT for a server process, taken by a thread of their own with `sigwait(3)`.
///
/// ```swift
/// let signals = ShutdownSignals()  // first thing in main
/// let server = HTTPServer(configuration: config, responder: router.buildResponder(), logger: logger)
/// try server.start()
/// signals.serve { _ in server.shutdown() }
/// server.waitUntilStopped()
/// signals.finish()
/// ```
///
/// Made first thing, while the process has one thread: the two signals are blocked
/// in it, so every thread started later inherits the block, and a signal sent at any moment
/// waits for the signal thread instead of finding a default disposition or no handler. (Dispatch
/// signal sources, used before, set the signals to ignored and armed themselves later on another
/// thread: a SIGTERM in between was lost, and one sent before killed the server outright, even
/// once it had said it was listening.)
///
/// - Until ``serve(_:)``: a signal ends the process as it would have without a handler (the
///   default action, raised again), so that `docker stop` or Ctrl-C stops a long start, such as
///   a migration, whose transaction SQLite or PostgreSQL then rolls back.
/// - From ``serve(_:)`` until ``finish()``: each signal runs the action (a graceful shutdown).
/// - After ``finish()``: signals are ignored while the server closes its database.
public final class ShutdownSignals: Sendable {
    private enum Phase {
        case starting
        case serving(@Sendable (Int32) -> Void)
        case finished
    }

    /// The signals taken: SIGTERM and SIGINT.
    public static let numbers: [Int32] = [SIGTERM, SIGINT]

    private let phase = Mutex(Phase.starting)

    /// Blocks the signals in the calling thread and starts the thread that waits for them.
    /// - Precondition: the process has one thread (a thread started earlier would not inherit
    ///   the block, and a signal delivered to it would kill the process).
    public init() {
        precondition(
            Self.threadCount() == 1,
            "ShutdownSignals must be made while the process has one thread (it has \(Self.threadCount()))")
        var set = Self.signalSet()
        let blocked = pthread_sigmask(SIG_BLOCK, &set, nil)
        precondition(blocked == 0, "pthread_sigmask failed: \(blocked)")
        let thread = Thread { [self] in
            while true {
                var set = Self.signalSet()
                var number: Int32 = 0
                guard sigwait(&set, &number) == 0 else { continue }
                switch self.phase.withLock({ $0 }) {
                case .starting: Self.endByDefaultAction(number)
                case .serving(let action): action(number)
                case .finished: continue
                }
            }
        }
        thread.name = "permission-server.signals"
        thread.start()
    }

    /// From now on a signal runs `action` (on the signal thread, once per signal).
    public func serve(_ action: @escaping @Sendable (Int32) -> Void) {
        phase.withLock { $0 = .serving(action) }
    }

    /// From now on signals are ignored.
    public func finish() {
        phase.withLock { $0 = .finished }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        return set
    }

    /// Restores `number`'s default disposition, unblocks it in this thread and raises it there:
    /// the process ends as if no handler had been installed.
    private static func endByDefaultAction(_ number: Int32) -> Never {
        signal(number, SIG_DFL)
        var one = sigset_t()
        sigemptyset(&one)
        sigaddset(&one, number)
        pthread_sigmask(SIG_UNBLOCK, &one, nil)
        raise(number)
        exit(128 + number)  // not reached: the default action of SIGTERM and SIGINT ends the process
    }

    /// The threads of this process (`/proc/self/task`); 1 where it cannot be read.
    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 1
    }
}
