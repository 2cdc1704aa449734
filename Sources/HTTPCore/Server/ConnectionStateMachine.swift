/// The decisions of one HTTP/1.1 connection, as a value: `HTTPConnection` (the I/O shell) tells
/// it what happened (bytes read, a head parsed, a response queued, the worker done, the socket
/// writable again, a timer fired, the peer gone, a shutdown) and it answers what to do next.
/// It does no I/O and reads no clock: every instant comes in as an argument, in nanoseconds of
/// `MonotonicClock`, so its tests drive it with a manual clock.
///
/// One request at a time, answered in arrival order (RFC 9112 §9.3); a refused request is
/// answered, then the write side closes and input drains (RFC 9112 §9.6).
///
/// | state ↓ / event → | bytes read / FIN | head parsed | body complete | response queued | worker or stream done | send blocked / drained | timer fired | close | shutdown |
/// |---|---|---|---|---|---|---|---|---|---|
/// | `awaitingHead` | parse / flag FIN | `responding(.loop)`, `readingBody`, or 413 | trap | trap | trap | arm / disarm, resume reads | idle: close; partial head: 408 | `closed` | idle: close |
/// | `readingBody` | decode / flag FIN | trap | `responding(.loop)` | trap | trap | arm / disarm, resume reads | 408 | `closed` | flag |
/// | `responding(.loop)` | trap (reads suspended) | trap | trap | `awaitingHead`, `closing`, or stream: `.worker` | trap | arm / disarm | ignore | `closed` | flag |
/// | `responding(.worker)` | trap (out of the set) | trap | trap | trap | `.loop`, then as above, or close | trap | ignore | deferred | flag |
/// | `closing` | trap (reads suspended) | trap | trap | trap | trap | arm / drained: half-close → `draining` | close | `closed` | flag |
/// | `draining` | count, close at the bound / flag FIN | trap | trap | trap | trap | arm / disarm | close | `closed` | flag |
/// | `closed` | trap | trap | trap | trap | trap | trap | ignore | ignore | flag |
///
/// A refusal (`rejected`: a parse error, a limit, 408, 429) is taken in `awaitingHead` and
/// `readingBody` and leads to `closing`; readiness (`readable`) reads in `awaitingHead`,
/// `readingBody` and `draining`, suspends reading in `responding` and `closing`, and is
/// ignored when `closed`.
///
/// Beside the state: whether a send is blocked (write interest armed, since when), whether
/// reading is suspended, whether the peer sent FIN, whether a graceful shutdown began, and how
/// many requests the connection has read. `interest` and `deadline(now:)` are derived from
/// them. An event that cannot happen in a state stops the process with `preconditionFailure`
/// naming both; the few that can arrive late (a timer after a close) are an explicit `.ignore`.
struct ConnectionStateMachine {
    /// Where the connection is between requests.
    enum State: Equatable {
        /// Waiting for (the rest of) a request head; `startedAt` is when the first byte of a
        /// buffered partial head arrived, nil when none is buffered.
        case awaitingHead(startedAt: UInt64?)
        /// A head was read; its body is being decoded since `startedAt`.
        case readingBody(startedAt: UInt64)
        /// The responder or a streamed body is running, on the loop or on a worker thread.
        case responding(Responder)
        /// The final response is queued; the write side closes once it is flushed.
        case closing
        /// FIN sent; input is read and discarded until EOF, `remaining` bytes or the drain
        /// timeout (RFC 9112 §9.6).
        case draining(remaining: Int, startedAt: UInt64)
        case closed
    }

    /// Who runs the current request.
    enum Responder: Equatable {
        /// Inline on the event loop, which owns the connection.
        case loop
        /// On the worker thread, which owns the output and the send side until it hands the
        /// connection back; the loop serves none of its events meanwhile. `closeRequested`:
        /// a close was asked for meanwhile, done when the worker hands back.
        case worker(closeRequested: Bool)
    }

    /// The bounds the machine decides with, in bytes and nanoseconds.
    struct Settings: Equatable {
        /// A partial head larger than this is refused with 431.
        var maxHeadBytes: Int
        /// A Content-Length above this is refused with 413 before the body is read.
        var maxBodyBytes: Int
        var maxRequestsPerConnection: Int
        var headerTimeout: UInt64
        var bodyTimeout: UInt64
        var idleTimeout: UInt64
        var writeTimeout: UInt64
        var drainTimeout: UInt64
        var drainMaxBytes: Int

        init(_ configuration: HTTPServerConfiguration) {
            maxHeadBytes = configuration.limits.maxHeaderBytes + configuration.limits.maxRequestLineBytes
            maxBodyBytes = configuration.limits.maxBodyBytes
            maxRequestsPerConnection = configuration.maxRequestsPerConnection
            headerTimeout = configuration.headerTimeout.nanoseconds
            bodyTimeout = configuration.bodyTimeout.nanoseconds
            idleTimeout = configuration.idleTimeout.nanoseconds
            writeTimeout = configuration.writeTimeout.nanoseconds
            drainTimeout = configuration.drainTimeout.nanoseconds
            drainMaxBytes = configuration.drainMaxBytes
        }
    }

    let settings: Settings
    // Written only by the events in this type's extensions (split by side to keep files short,
    // which `private(set)` would not allow); the shell and the tests only read them.
    var state = State.awaitingHead(startedAt: nil)
    /// When a send last made progress while the socket's buffer is full (write interest armed);
    /// nil when output is not blocked.
    var writeBlockedSince: UInt64?
    /// Reading paused: a send is blocked, or input arrived while it cannot be read.
    var readSuspended = false
    /// The peer sent FIN.
    var peerClosed = false
    /// A graceful shutdown began: the response in progress is the last.
    var shuttingDown = false
    /// Requests whose head was read, the current one included.
    var requestCount = 0

    init(settings: Settings) {
        self.settings = settings
    }

    var isClosed: Bool { state == .closed }

    /// True while the worker thread runs the request and owns the output.
    var isOffloaded: Bool {
        if case .responding(.worker) = state { return true }
        return false
    }

    var isWriteBlocked: Bool { writeBlockedSince != nil }

    /// What the loop should watch the descriptor for: nothing while offloaded or closed.
    var interest: EventLoop.Interest {
        switch state {
        case .closed, .responding(.worker): return .none
        default: return EventLoop.Interest(read: !readSuspended && !peerClosed, write: writeBlockedSince != nil)
        }
    }

    /// When the current state times out, 0 for never: a blocked send after `writeTimeout`
    /// without progress; a partial head `headerTimeout` after its first byte (RFC 9112 §9.5
    /// leaves the bound to the server); a new connection's first head after `headerTimeout`, a
    /// kept-alive one's next after `idleTimeout`, both from `now`; a body after `bodyTimeout`;
    /// draining after `drainTimeout`.
    /// - Parameter now: read only when the deadline counts from now.
    func deadline(now: () -> UInt64) -> UInt64 {
        if state == .closed { return 0 }
        if let since = writeBlockedSince { return since + settings.writeTimeout }
        switch state {
        case .awaitingHead(let startedAt?): return startedAt + settings.headerTimeout
        case .awaitingHead(nil): return now() + (requestCount == 0 ? settings.headerTimeout : settings.idleTimeout)
        case .readingBody(let startedAt): return startedAt + settings.bodyTimeout
        case .draining(_, let startedAt): return startedAt + settings.drainTimeout
        case .responding, .closing, .closed: return 0
        }
    }

    /// Whether closing the connection now loses nothing: it waits for a request with none of
    /// it read (`inputIsEmpty`: no pipelined bytes either) and no send blocked. RFC 9112 §9.5
    /// lets a server close such a connection at any time; the server does so to make room for
    /// a new one at its connection cap (`HTTPServer`).
    func isIdle(inputIsEmpty: Bool) -> Bool {
        guard case .awaitingHead(nil) = state else { return false }
        return inputIsEmpty && writeBlockedSince == nil && !isOffloaded
    }

    /// Stops the process: `event` cannot happen in the current state.
    func invalid(_ event: StaticString, file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("HTTP connection: \(event) in state \(state)", file: file, line: line)
    }
}
