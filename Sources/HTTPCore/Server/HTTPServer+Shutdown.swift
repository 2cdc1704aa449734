public import Dispatch
import Foundation
import Logging

#if canImport(Glibc)
internal import Glibc
#endif

extension HTTPServer {
    /// Begins a graceful shutdown: stop accepting (new connections are refused), close idle
    /// connections at once, let in-flight requests finish with `Connection: close`, and
    /// force-close whatever is left at `deadline`. Returns at once; see `waitUntilStopped()`.
    /// - Parameter deadline: when remaining connections are closed regardless.
    public func shutdown(deadline: DispatchTime) {
        lock.lock()
        guard state == .running || state == .idle else {
            lock.unlock()
            return
        }
        if state == .idle {
            state = .stopped
            lock.unlock()
            markStopped()
            return
        }
        state = .shuttingDown
        if let acceptSource {
            if acceptSuspended {
                acceptSource.resume()
                acceptSuspended = false
            }
            acceptSource.cancel()  // its cancel handler closes the listener
        }
        let open = Array(connections.values)
        lock.unlock()
        logger.info("shutting down", metadata: ["connections": .stringConvertible(open.count)])
        for connection in open { connection.loop.execute { connection.beginShutdown() } }
        controlQueue.asyncAfter(deadline: deadline) { [self] in forceCloseRemaining() }
        if open.isEmpty { checkStopped() }
    }

    /// Graceful shutdown with the configured `shutdownGracePeriod`.
    public func shutdown() {
        shutdown(deadline: .now() + .nanoseconds(Int(configuration.shutdownGracePeriod.nanoseconds)))
    }

    private func checkStopped() {
        lock.lock()
        let finished = state == .shuttingDown && connections.isEmpty
        lock.unlock()
        if finished { markStopped() }
    }

    /// At the deadline: shut both directions of every remaining socket (safe from any thread
    /// while the connection is registered, so the descriptor cannot have been reused), which
    /// fails their pending I/O; then report stopped.
    private func forceCloseRemaining() {
        lock.lock()
        guard state == .shuttingDown else {
            lock.unlock()
            return
        }
        forceClosing = true
        let remaining = Array(connections.values)
        for connection in remaining { _ = Glibc.shutdown(connection.socket.fd, Int32(SHUT_RDWR)) }
        lock.unlock()
        if !remaining.isEmpty {
            logger.warning(
                "force-closed connections at the shutdown deadline", metadata: ["count": .stringConvertible(remaining.count)])
        }
        for connection in remaining { connection.loop.execute { connection.closeNow() } }
        markStopped()
    }

    func markStopped() {
        lock.lock()
        guard state != .stopped || !stopContinuations.isEmpty else {
            lock.unlock()
            return
        }
        state = .stopped
        sweepTimer?.cancel()
        for loop in loops { loop.stop() }
        environment?.workers.stop()
        let waiters = stopContinuations
        stopContinuations = []
        lock.broadcast()
        lock.unlock()
        for waiter in waiters { waiter.resume() }
    }

    /// Blocks the calling thread until the server has stopped (for `main`, never on a
    /// Dispatch worker of this server).
    public func waitUntilStopped() {
        lock.lock()
        while state != .stopped { lock.wait() }
        lock.unlock()
    }

    /// Suspends until the server has stopped.
    public func stopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if state == .stopped {
                lock.unlock()
                continuation.resume()
                return
            }
            stopContinuations.append(continuation)
            lock.unlock()
        }
    }
}
