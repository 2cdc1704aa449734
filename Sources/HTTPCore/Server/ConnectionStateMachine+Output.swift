/// Events of the response and write side: responses, the worker, sends, timers, close and
/// shutdown (RFC 9112 §9.3, §9.6).
extension ConnectionStateMachine {
    /// The responder moves to a worker thread, which owns the output until it hands back.
    mutating func offloaded() {
        guard state == .responding(.loop), writeBlockedSince == nil else { invalid("offload to the worker") }
        state = .responding(.worker(closeRequested: false))
    }

    enum WorkerDoneAction: Equatable {
        /// Queue the response (`mayKeepAlive`, then `responseQueued` or `streamStarted`).
        case finish
        /// A close was asked for meanwhile: close now.
        case close
    }

    /// The worker's responder returned and the loop has the connection back.
    mutating func workerFinished() -> WorkerDoneAction {
        guard case .responding(.worker(let closeRequested)) = state else { invalid("worker finished") }
        state = .responding(.loop)
        return closeRequested ? .close : .finish
    }

    /// Whether the connection may stay open after this response (RFC 9112 §9.3): the request
    /// asked for it, the per-connection cap is not reached, no shutdown began, and the
    /// response does not say `Connection: close`. Later conditions are read only when the
    /// earlier hold.
    func mayKeepAlive(
        requestWantsIt: Bool, serverShuttingDown: @autoclosure () -> Bool, responseSaysClose: @autoclosure () -> Bool
    ) -> Bool {
        requestWantsIt && requestCount < settings.maxRequestsPerConnection && !shuttingDown && !serverShuttingDown()
            && !responseSaysClose()
    }

    /// A whole response is queued: wait for the next head, or close after it.
    mutating func responseQueued(keepAlive: Bool) {
        guard state == .responding(.loop) else { invalid("response queued") }
        state = keepAlive ? .awaitingHead(startedAt: nil) : .closing
    }

    /// A streamed body starts on a worker thread, which owns the output until it ends.
    mutating func streamStarted() {
        guard state == .responding(.loop), writeBlockedSince == nil else { invalid("stream started") }
        state = .responding(.worker(closeRequested: false))
    }

    enum StreamEndAction: Equatable {
        /// Watch the socket again and go on with buffered input.
        case resume
        /// Close; `abort` resets the connection, for a stream that failed midway (its body
        /// is unterminated, RFC 9112 §8).
        case close(abort: Bool)
    }

    /// The stream closure returned and the loop has the connection back.
    /// - Parameters:
    ///   - completed: the body was written to its end.
    ///   - keepAlive: the decision made when the response was queued; a graceful shutdown
    ///     begun since makes this response the last all the same, unless a request the client
    ///     sent before it is buffered (it is answered, with `Connection: close`).
    ///   - inputIsEmpty: no byte of a next request is buffered.
    mutating func streamEnded(completed: Bool, keepAlive: Bool, inputIsEmpty: Bool) -> StreamEndAction {
        guard case .responding(.worker(let closeRequested)) = state else { invalid("stream ended") }
        state = .responding(.loop)
        if !completed || closeRequested { return .close(abort: !completed) }
        state = keepAlive && !(shuttingDown && inputIsEmpty) ? .awaitingHead(startedAt: nil) : .closing
        return .resume
    }

    /// Whether the loop may send buffered output now: not when closed, nor while the worker
    /// owns the output.
    var mayFlush: Bool {
        switch state {
        case .closed, .responding(.worker): return false
        default: return true
        }
    }

    /// A send made progress.
    /// - Parameter now: read only while a send is blocked, whose timeout counts from progress.
    mutating func sent(now: () -> UInt64) {
        if writeBlockedSince != nil { writeBlockedSince = now() }
    }

    /// The socket took part of the output and would block (`EAGAIN`): watch it for writability
    /// and stop reading until the output drains.
    mutating func sendBlocked(now: UInt64) {
        guard mayFlush, writeBlockedSince == nil else { invalid("send blocked") }
        writeBlockedSince = now
        readSuspended = true
    }

    enum FlushedAction: Equatable {
        /// The final response is out: half-close (`closingFlushed`).
        case halfClose
        case none
    }

    /// Every buffered byte was sent without blocking.
    func flushed() -> FlushedAction {
        state == .closing ? .halfClose : .none
    }

    enum WriteDrainedAction: Equatable {
        /// The final response is out: half-close (`closingFlushed`).
        case halfClose
        /// Reading resumes: process what is buffered.
        case resumeReading
        /// Update the registration only.
        case none
    }

    /// The socket took the rest of the output after blocking.
    /// - Parameter inputIsEmpty: no byte of a next request is buffered.
    mutating func writeDrained(inputIsEmpty: Bool) -> WriteDrainedAction {
        guard writeBlockedSince != nil, mayFlush else { invalid("write drained") }
        writeBlockedSince = nil
        switch state {
        case .closing: return .halfClose
        case .awaitingHead where shuttingDown && inputIsEmpty:
            // The last response of a graceful shutdown, queued kept alive before it began; a
            // request already buffered is still answered (with `Connection: close`).
            state = .closing
            return .halfClose
        case .awaitingHead, .readingBody:
            readSuspended = false
            return .resumeReading
        case .responding, .draining, .closed: return .none
        }
    }

    enum HalfCloseAction: Equatable {
        /// Send FIN and drain (`halfClosed`).
        case shutdownWrite
        /// The peer already sent FIN: close at once.
        case close
    }

    /// The final response is flushed.
    func closingFlushed() -> HalfCloseAction {
        guard state == .closing else { invalid("closing response flushed") }
        return peerClosed ? .close : .shutdownWrite
    }

    /// FIN was sent at `now`: read and discard input for a bounded time and byte count, so the
    /// client reads the final response rather than a reset (RFC 9112 §9.6).
    mutating func halfClosed(now: UInt64) {
        guard state == .closing, !peerClosed else { invalid("half-closed") }
        state = .draining(remaining: settings.drainMaxBytes, startedAt: now)
        readSuspended = false
    }

    enum CloseAction: Equatable {
        /// Close the socket now (state `closed`).
        case close
        /// The worker owns the connection: closed when it hands back.
        case deferred
        /// Already closed.
        case none
    }

    /// A close is asked for: an error, EOF, the end of draining, a timeout, a forced shutdown.
    mutating func closeRequested() -> CloseAction {
        switch state {
        case .closed: return .none
        case .responding(.worker):
            state = .responding(.worker(closeRequested: true))
            return .deferred
        case .awaitingHead, .readingBody, .responding(.loop), .closing, .draining:
            state = .closed
            writeBlockedSince = nil
            return .close
        }
    }

    /// A graceful shutdown began: the current response, if any, is the last.
    /// - Returns: whether to close now: idle, nothing buffered, nothing blocked.
    mutating func shutdownRequested(inputIsEmpty: Bool) -> Bool {
        shuttingDown = true
        guard case .awaitingHead = state else { return false }
        return inputIsEmpty && writeBlockedSince == nil
    }

    enum TimeoutAction: Equatable {
        /// Nothing times out here (closed, or the worker runs the request).
        case ignore
        /// A blocked send made no progress for `writeTimeout`: reset the connection.
        case abort
        /// Idle keep-alive, a silent new connection, a drain or a closing response: close
        /// without a word.
        case close
        /// A partial head or a body did not arrive in time: answer 408 (RFC 9110 §15.5.9).
        case rejectHead
        case rejectBody
    }

    /// The published deadline passed (the shell checked it against the clock).
    func timerFired() -> TimeoutAction {
        if isOffloaded || state == .closed { return .ignore }
        if writeBlockedSince != nil { return .abort }
        switch state {
        case .awaitingHead(nil): return .close
        case .awaitingHead: return .rejectHead
        case .readingBody: return .rejectBody
        case .draining, .closing: return .close
        case .responding, .closed: return .ignore
        }
    }
}
