/// Events of the read side: readiness, bytes, heads and bodies (RFC 9112 §2.2, §6).
extension ConnectionStateMachine {
    enum ReadableAction: Equatable {
        /// Read from the socket.
        case read
        /// Input arrived that cannot be read now (a response is in progress or closing): stop
        /// watching for it, as the registration is level-triggered and would spin.
        case suspendReading
        /// Closed: a readiness reported before the close.
        case ignore
    }

    /// The socket is readable.
    mutating func readable() -> ReadableAction {
        switch state {
        case .closed: return .ignore
        case .responding, .closing:
            readSuspended = true
            return .suspendReading
        case .awaitingHead, .readingBody, .draining: return .read
        }
    }

    enum BytesReadAction: Equatable {
        /// Parse what is buffered (`nextInputStep`).
        case process
        /// Draining: the bytes are dropped.
        case discard
        /// Draining is over: close.
        case close
    }

    /// `count` bytes (more than 0) were read.
    mutating func bytesRead(_ count: Int) -> BytesReadAction {
        precondition(count > 0, "HTTP connection: a read of \(count) bytes is not data")
        switch state {
        case .awaitingHead, .readingBody: return .process
        case .draining(let remaining, let startedAt):
            if remaining - count <= 0 { return .close }
            state = .draining(remaining: remaining - count, startedAt: startedAt)
            return .discard
        case .responding, .closing, .closed: invalid("bytes read")
        }
    }

    /// The peer sent FIN (a read returned 0). Complete requests were answered as they arrived
    /// and output is flushed (reading pauses while it is not), so what is left is at most a
    /// partial head: the shell closes next.
    mutating func peerFinished() {
        switch state {
        case .awaitingHead, .readingBody, .draining: peerClosed = true
        case .responding, .closing, .closed: invalid("peer closed")
        }
    }

    enum InputStep: Equatable {
        case parseHead
        case decodeBody
        /// The answers to pipelined requests already queued reach ``pipelinedOutputLimit``:
        /// send them before the next request is read (RFC 9112 §9.3.2 lets a server stop
        /// reading); go on if they all went, else wait for the socket.
        case flushFirst
        /// Nothing to do until more input, the worker, or the socket.
        case stop
    }

    /// The unsent bytes of queued answers past which a connection reads no further pipelined
    /// request until they are sent: without it, a few hundred bytes of pipelined requests for a
    /// large answer (`/openapi.yaml`) from a client that never reads made the server hold
    /// thousands of times as much, answered in full before the first send.
    static let pipelinedOutputLimit = 256 * 1024

    /// What to do with buffered input now. Input waits while a send is blocked, and while
    /// `unsentBytes` of earlier answers reach ``pipelinedOutputLimit``, so responses to
    /// pipelined requests never pile up unsent.
    func nextInputStep(inputIsEmpty: Bool, unsentBytes: Int) -> InputStep {
        if writeBlockedSince != nil { return .stop }
        switch state {
        case .awaitingHead:
            if inputIsEmpty { return .stop }
            return unsentBytes >= Self.pipelinedOutputLimit ? .flushFirst : .parseHead
        case .readingBody: return inputIsEmpty ? .stop : .decodeBody
        case .responding, .closing, .draining, .closed: return .stop
        }
    }

    enum IncompleteHeadAction: Equatable {
        case wait
        /// The partial head is over `maxHeadBytes`: answer 431 (RFC 6585 §5).
        case rejectTooLarge
    }

    /// The buffer holds `buffered` bytes of a head that is not complete yet.
    /// - Parameter now: read when this is the head's first byte, which starts its timeout.
    mutating func headIncomplete(buffered: Int, now: () -> UInt64) -> IncompleteHeadAction {
        guard case .awaitingHead(let startedAt) = state else { invalid("incomplete head") }
        if startedAt == nil { state = .awaitingHead(startedAt: now()) }
        return buffered > settings.maxHeadBytes ? .rejectTooLarge : .wait
    }

    enum HeadAction: Equatable {
        /// No body: run the responder (state `responding(.loop)`).
        case respond
        /// Content-Length over `maxBodyBytes`: answer 413 before reading, so no 100 Continue
        /// is sent (RFC 9110 §10.1.1, §15.5.14).
        case rejectTooLarge
        /// Decode the body; first send `100 Continue` when the client waits for it (it asked,
        /// and none of the body is here yet).
        case readBody(sendContinue: Bool)
    }

    /// A complete head was parsed; it counts as a request from here on.
    /// - Parameters:
    ///   - framing: how its body is delimited (RFC 9112 §6.3).
    ///   - expectContinue: it carries `Expect: 100-continue`.
    ///   - inputIsEmpty: nothing follows the head in the buffer.
    ///   - now: read when a body starts, which starts its timeout.
    mutating func headParsed(
        framing: HTTPBodyFraming, expectContinue: Bool, inputIsEmpty: Bool, now: () -> UInt64
    ) -> HeadAction {
        guard case .awaitingHead = state else { invalid("head parsed") }
        requestCount += 1
        state = .awaitingHead(startedAt: nil)
        switch framing {
        case .none:
            state = .responding(.loop)
            return .respond
        case .contentLength(let length) where length > settings.maxBodyBytes:
            return .rejectTooLarge
        case .contentLength, .chunked:
            state = .readingBody(startedAt: now())
            return .readBody(sendContinue: expectContinue && inputIsEmpty)
        }
    }

    /// The body is complete: run the responder (state `responding(.loop)`).
    mutating func bodyComplete() {
        guard case .readingBody = state else { invalid("body complete") }
        state = .responding(.loop)
    }

    /// The request is refused (a parse error, a limit, a timeout, the address's share): its
    /// problem response is queued with `Connection: close`, so the state becomes `closing`
    /// (RFC 9112 §9.6).
    /// - Returns: whether to flush now; not while a send is blocked, whose drain flushes it.
    mutating func rejected() -> Bool {
        switch state {
        case .awaitingHead, .readingBody: state = .closing
        case .responding, .closing, .draining, .closed: invalid("request rejected")
        }
        return writeBlockedSince == nil
    }
}
