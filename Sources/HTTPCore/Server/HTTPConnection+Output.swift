import Dispatch
import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

extension HTTPConnection {
    /// Sends buffered output without blocking. On `EAGAIN` a write interest is armed and reading
    /// pauses until it drains; once all is sent a closing connection half-closes.
    func flushOutput() {
        assertOnLoop()
        guard machine.mayFlush else { return }  // closed, or the worker owns output until it hands back
        switch sendPending() {
        case nil: return
        case false?:
            machine.sendBlocked(now: MonotonicClock.now())
            unacknowledgedAtProgress = socket.unacknowledgedBytes()
            updateInterest()
            updateDeadline()
        case true?:
            resetOutput()
            if machine.flushed() == .halfClose { halfCloseAndDrain() }
        }
    }

    /// Sends what the socket takes now of the answers already queued, without waiting and
    /// without arming a write interest: before a request goes to a worker, the answers to the
    /// pipelined requests before it go out instead of waiting for it (the rest goes with the
    /// next flush). False when the send failed and the connection was closed.
    func sendQueuedAnswers() -> Bool {
        guard outputSent < output.count, machine.mayFlush, !machine.isWriteBlocked else { return true }
        switch sendPending() {
        case nil: return false
        case true?: resetOutput()
        case false?: break
        }
        return true
    }

    /// Sends as much as the socket takes. Returns true when all was sent, false on `EAGAIN`,
    /// nil when the send failed and the connection was closed.
    private func sendPending() -> Bool? {
        while outputSent < output.count {
            let sent: Int?
            do {
                sent = try output.withUnsafeBytes { raw in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[outputSent...]))
                }
            } catch {
                environment.logger.debug("send failed", metadata: ["peer": .string(peer), "error": .string("\(error)")])
                closeNow()
                return nil
            }
            guard let sent else { return false }
            outputSent += sent
            machine.sent(now: MonotonicClock.now)
        }
        return true
    }

    /// Sends what the socket takes now, without waiting. Used by streamed bodies, on a worker
    /// thread, before the stream closure runs.
    func sendAvailable() throws {
        assertWorkerOwnsOutput()
        while outputSent < output.count {
            let sent = try output.withUnsafeBytes { raw in
                try socket.send(UnsafeRawBufferPointer(rebasing: raw[outputSent...]))
            }
            guard let sent else { return }
            outputSent += sent
        }
        resetOutput()
    }

    /// Sends until at most `threshold` bytes stay buffered, blocking in `poll(2)` for up to
    /// `writeTimeout` without progress, and never past `deadline` (``MonotonicClock``
    /// nanoseconds, with the bound it came from), however steady the progress. Used by
    /// streamed bodies, on a worker thread.
    func flushBlocking(threshold: Int, deadline: (at: UInt64, limit: Duration)? = nil) throws {
        assertWorkerOwnsOutput()
        let timeout = environment.configuration.writeTimeout.nanoseconds
        var progressAt = MonotonicClock.now()
        // The socket's unacknowledged bytes at the first refused send after the last progress
        // (read then only, not on every send of a stream that flows).
        var unacknowledged: Int?
        var unacknowledgedRead = false
        while output.count - outputSent > threshold {
            let sent = try output.withUnsafeBytes { raw in
                try socket.send(UnsafeRawBufferPointer(rebasing: raw[outputSent...]))
            }
            let now = MonotonicClock.now()
            if let deadline, now >= deadline.at { throw StreamDeadlineExceeded(limit: deadline.limit) }
            if let sent {
                outputSent += sent
                progressAt = now
                unacknowledgedRead = false
                continue
            }
            if !unacknowledgedRead {
                unacknowledged = socket.unacknowledgedBytes()
                unacknowledgedRead = true
            }
            if now >= progressAt + timeout {
                // Not writable all that time, but the client may have read on, slowly: its
                // kernel took bytes (as on the loop, `onTimeout`).
                let left = socket.unacknowledgedBytes()
                guard let before = unacknowledged, let left, left < before else {
                    throw SocketError(operation: "send", code: ETIMEDOUT, message: "client stopped reading")
                }
                progressAt = now
                unacknowledged = left
            }
            let until = min(progressAt + timeout, deadline?.at ?? .max)  // after now: both checked above
            let waitMs = Int32(min((until > now ? until - now : 0) / 1_000_000 + 1, 1000))
            _ = try socket.waitWritable(timeoutMilliseconds: waitMs)
            if server.isForceClosing {
                throw SocketError(operation: "send", code: ECANCELED, message: "server stopped")
            }
        }
        if outputSent == output.count { resetOutput() }
    }

    /// The output buffer's capacity kept between responses; a larger one (a listing, the OpenAPI
    /// document) is given back once sent, so that many idle keep-alive connections each hold
    /// a kilobyte, not their largest answer.
    static let keptOutputCapacity = 32 * 1024

    private func resetOutput() {
        if output.capacity > Self.keptOutputCapacity {
            output = []
            output.reserveCapacity(1024)
        } else {
            output.removeAll(keepingCapacity: true)
        }
        outputSent = 0
    }

    /// The loop saw the socket writable while a send was blocked.
    func onWritable() {
        assertOnLoop()
        guard machine.isWriteBlocked else { return }
        switch sendPending() {
        case nil: return
        case false?:
            unacknowledgedAtProgress = socket.unacknowledgedBytes()
            updateDeadline()
        case true?:
            resetOutput()
            switch machine.writeDrained(inputIsEmpty: input.isEmpty) {
            case .halfClose: halfCloseAndDrain()
            case .resumeReading:
                updateInterest()
                processInput()
            case .none: updateInterest()
            }
            updateDeadline()
        }
    }

    /// Sends FIN, then reads and discards input for a bounded time and byte count so the client
    /// reads the final response rather than a reset (RFC 9112 §9.6).
    func halfCloseAndDrain() {
        if machine.closingFlushed() == .close {
            closeNow()
            return
        }
        do {
            try socket.shutdown(Int32(SHUT_WR))
        } catch {
            environment.logger.debug("shutdown failed", metadata: ["peer": .string(peer), "error": .string("\(error)")])
            closeNow()
            return
        }
        machine.halfClosed(now: MonotonicClock.now())
        input.clear()
        updateInterest()
        updateDeadline()
    }

    /// Closes at once: leaves the epoll set, unregisters from the server, closes the
    /// descriptor. While a worker holds the connection the close waits for it to hand back.
    /// - Parameter abort: reset the connection and drop unsent output (`SO_LINGER` 0), for a
    ///   peer that stopped reading: its kernel buffers are freed now rather than trickled out.
    func closeNow(abort: Bool = false) {
        assertOnLoop()
        guard machine.closeRequested() == .close else { return }
        if abort {
            do {
                try socket.setAbortOnClose()
            } catch {
                environment.logger.debug("SO_LINGER failed", metadata: ["peer": .string(peer), "error": .string("\(error)")])
            }
        }
        updateDeadline()
        // Leave the epoll set and the server's table before the descriptor can be reused.
        loop.deregister(self)
        server.connectionDidClose(self)
        do {
            try socket.close()
        } catch {
            environment.logger.debug("close failed", metadata: ["peer": .string(peer), "error": .string("\(error)")])
        }
    }

    /// Graceful shutdown began: an idle connection closes now; a busy one finishes its request,
    /// whose response carries `Connection: close`.
    func beginShutdown() {
        assertOnLoop()
        if machine.shutdownRequested(inputIsEmpty: input.isEmpty) { closeNow() }
    }
}
