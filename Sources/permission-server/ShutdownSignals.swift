import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT handlers for `serve`: when a graceful shutdown begins, the action runs at
/// once (stop the listeners, end event streams and the sweeper), rather than when the grace
/// period ends. The default dispositions are set to ignore so the Dispatch sources get the
/// signals. Keep the value alive for as long as the handlers should run.
///
/// `@unchecked Sendable` only because Dispatch does not mark its source protocols `Sendable`:
/// the one stored property is a constant set in `init`, and `cancel()` on a Dispatch source is
/// safe from any thread (dispatch_source_cancel(3)). There is no mutable state to own.
final class ShutdownSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    /// - Parameter action: runs on a private queue, once per signal received.
    init(_ action: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "permission-server.signals")
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { action(number) }
            source.resume()
            return source
        }
    }

    /// Stops handling the signals.
    func cancel() {
        for source in sources { source.cancel() }
    }
}
