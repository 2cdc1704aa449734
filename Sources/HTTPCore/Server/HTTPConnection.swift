import Dispatch
import Foundation
import Logging

/// One accepted TCP connection, served by one `EventLoop`. Every field below the lock is owned
/// by the loop's serial `queue`: reads, parsing, inline responders and writes run there, one
/// request at a time in arrival order (RFC 9112 §9.3). A responder that may block, and every
/// streamed body, runs on the worker queue instead (`offloaded`); meanwhile the connection is
/// out of the epoll set and the loop leaves it alone, and the worker hands it back with
/// `loop.execute`. Only `deadline` is shared, with the server's sweeper, under `deadlineLock`.
final class HTTPConnection: @unchecked Sendable {
    /// Where the connection is between requests.
    enum Phase {
        /// Waiting for (the rest of) a request head; a partial head may be buffered.
        case awaitingHead
        /// A head was read; its body is being decoded into `body`.
        case readingBody
        /// The responder or a streamed body is running.
        case responding
        /// The final response is queued; the write side closes once it is flushed.
        case closing
        /// FIN sent; input is read and discarded until EOF or a bound (RFC 9112 §9.6).
        case draining(remaining: Int)
        case closed
    }

    let id: UInt64
    let socket: Socket
    let peer: String
    /// The peer's address without the port, which its share is counted by.
    let address: String
    /// Whether it was admitted within its address's share, or is being refused.
    let admission: AddressShares.Admission
    let loop: EventLoop
    let server: HTTPServer
    let environment: ServerEnvironment

    private let deadlineLock = NSLock()
    private var deadline: UInt64 = 0
    private var timeoutQueued = false

    var phase = Phase.awaitingHead
    let input = InputBuffer()
    // `@exclusivity(unchecked)`: the serving thread's alone (see `startStream`), never while
    // borrowed, so the runtime's per-access check (a thread-local set insert) is skipped.
    @exclusivity(unchecked) var output: [UInt8] = []
    var outputSent = 0
    var writer: HTTPResponseWriter
    /// "<server prefix>-<connection id>-", the fixed part of this connection's request ids.
    let requestIdStem: String
    /// What `loop` has registered for this connection's descriptor.
    var registeredInterest = EventLoop.Interest.none
    var readSuspended = false
    var writeArmed = false
    /// A responder or streamed body runs on the worker queue; the loop must not touch output.
    var offloaded = false
    /// A close asked for while offloaded; done when the worker hands the connection back.
    var closeRequested = false
    var peerClosed = false
    var shuttingDown = false
    var requestCount = 0
    /// When the first byte of the current partial head arrived (0 when none is buffered).
    var headStartedAt: UInt64 = 0
    var bodyStartedAt: UInt64 = 0
    var drainStartedAt: UInt64 = 0
    var lastWriteProgress: UInt64 = 0
    var bodyHead: HTTPRequestHead?
    var bodyDecoder: HTTPBodyDecoder?
    var body: [UInt8] = []
    /// What responders keep for this connection (`RequestContext.connection`).
    let storage = ConnectionStorage()
    /// The peer and the logger every request context of this connection starts from.
    private(set) lazy var contextOrigin = RequestContext.Origin(
        remoteAddress: peer, logger: environment.logger, loggerCarriesId: false)

    init(
        id: UInt64, socket: Socket, peer: String, address: String, admission: AddressShares.Admission, loop: EventLoop,
        server: HTTPServer, environment: ServerEnvironment
    ) {
        self.id = id
        self.socket = socket
        self.peer = peer
        self.address = address
        self.admission = admission
        self.loop = loop
        self.server = server
        self.environment = environment
        self.writer = HTTPResponseWriter(serverName: environment.configuration.serverName)
        self.requestIdStem = environment.requestIdPrefix + "-" + String(id, radix: 36) + "-"
        output.reserveCapacity(1024)
    }

    /// Starts reading; called once by the server right after `accept`.
    func start() {
        loop.execute { [self] in
            // A shutdown that began between accept and here may have closed it already.
            if case .closed = phase { return }
            loop.register(self)
            updateDeadline()
        }
    }

    /// Instead of `start()`, for a connection over its address's share: answers `429` with
    /// `Retry-After: 1` and `Connection: close` without reading a request, then closes the
    /// write side and drains like any refused request (RFC 9112 §9.6, RFC 6585 §4).
    /// - Parameter detail: the problem's explanation.
    func refuse(detail: String) {
        loop.execute { [self] in
            if case .closed = phase { return }
            loop.register(self)
            reject(
                .tooManyRequests, detail: detail, type: environment.configuration.addressShareProblemType,
                headers: ["Retry-After": "1"])
            updateDeadline()
        }
    }

    // MARK: Reading

    func onReadable() {
        switch phase {
        case .closed: return
        case .responding, .closing:
            suspendReading()  // level-triggered: do not spin on input we will not read now
            return
        default: break
        }
        let space = input.reserve(4096)
        guard let base = space.baseAddress else { return }
        let n: Int
        do {
            guard let read = try socket.read(into: base, count: min(space.count, 64 * 1024)) else { return }
            n = read
        } catch {
            environment.logger.debug("read failed", metadata: ["peer": .string(peer), "error": .string("\(error)")])
            closeNow()
            return
        }
        if n == 0 {
            // FIN from the peer. Complete requests were answered as they arrived and output is
            // flushed (reading pauses while it is not), so what is left is at most a partial head.
            peerClosed = true
            closeNow()
            return
        }
        if case .draining(let remaining) = phase {
            if remaining - n <= 0 {
                closeNow()
            } else {
                phase = .draining(remaining: remaining - n)
            }
            return
        }
        input.commit(n)
        processInput()
    }

    /// Parses and answers every complete request in the buffer, in order, then flushes once.
    func processInput() {
        loop: while true {
            switch phase {
            case .awaitingHead:
                if input.isEmpty { break loop }
                let result = environment.parser.parseHead(input.readable)
                // Consumed, so the head moves into the request instead of being copied (a copy
                // retains and releases every string and array in it).
                switch consume result {
                case .needMore:
                    if headStartedAt == 0 { headStartedAt = MonotonicClock.now() }
                    if input.count > environment.configuration.limits.maxHeaderBytes
                        + environment.configuration.limits.maxRequestLineBytes
                    {
                        reject(.requestHeaderFieldsTooLarge, detail: HTTPParseError.headerFieldsTooLarge.detail)
                    }
                    break loop
                case .failure(let error):
                    reject(error.status, detail: error.detail)
                    break loop
                case .complete(let head, let consumed):
                    input.consume(consumed)
                    headStartedAt = 0
                    beginRequest(head)
                }
            case .readingBody:
                if input.isEmpty { break loop }
                readBody()
            case .responding, .closing, .draining, .closed:
                break loop
            }
            if writeArmed { break }
        }
        if case .closed = phase { return }
        if !writeArmed && !offloaded {
            if loop.isServingBatch && outputSent < output.count {
                loop.flushAfterBatch(self)  // sent with the batch's other responses
                return
            }
            flushOutput()
        }
        updateDeadline()
    }

    /// The end of `processInput` for a connection whose output waited for the batch to end.
    func flushAfterBatch() {
        if case .closed = phase { return }
        if !writeArmed && !offloaded { flushOutput() }
        updateDeadline()
    }

    private func beginRequest(_ head: consuming HTTPRequestHead) {
        requestCount += 1
        let limits = environment.configuration.limits
        switch head.framing {
        case .none:
            respond(to: HTTPRequest(head: head))
        case .contentLength(let length) where length > limits.maxBodyBytes:
            // Refused before reading, so no 100 Continue is sent (RFC 9110 §10.1.1).
            reject(.contentTooLarge, detail: HTTPParseError.contentTooLarge.detail)
        case .contentLength, .chunked:
            if head.expectContinue && input.isEmpty { HTTPResponseWriter.appendContinue(to: &output) }
            bodyHead = head
            bodyDecoder = HTTPBodyDecoder(framing: head.framing, limits: limits)
            body = []
            bodyStartedAt = MonotonicClock.now()
            phase = .readingBody
            if !input.isEmpty { readBody() }
        }
    }

    private func readBody() {
        guard var decoder = bodyDecoder, let head = bodyHead else { return }
        do {
            let (consumed, complete) = try decoder.decode(input.readable, into: &body)
            input.consume(consumed)
            bodyDecoder = decoder
            if complete {
                let request = HTTPRequest(head: head, body: body)
                bodyHead = nil
                bodyDecoder = nil
                body = []
                respond(to: request)
            }
        } catch {
            reject(error.status, detail: error.detail)
        }
    }

    // MARK: Read source control

    func suspendReading() {
        guard !readSuspended else { return }
        readSuspended = true
        updateInterest()
    }

    func resumeReading() {
        guard readSuspended, !peerClosed else { return }
        readSuspended = false
        updateInterest()
    }

    /// Tells the loop what this connection waits for now: nothing while offloaded or closed.
    func updateInterest() {
        let interest: EventLoop.Interest
        if offloaded {
            interest = .none
        } else if case .closed = phase {
            interest = .none
        } else {
            interest = EventLoop.Interest(read: !readSuspended && !peerClosed, write: writeArmed)
        }
        loop.setInterest(of: self, to: interest)
    }

    // MARK: Deadlines

    /// Publishes the next deadline of the current phase for the server's sweeper.
    func updateDeadline() {
        let config = environment.configuration
        let next: UInt64
        if case .closed = phase {
            next = 0
        } else if writeArmed {
            next = lastWriteProgress + config.writeTimeout.nanoseconds
        } else {
            switch phase {
            case .awaitingHead:
                if headStartedAt != 0 {
                    next = headStartedAt + config.headerTimeout.nanoseconds
                } else if requestCount == 0 {
                    next = MonotonicClock.now() + config.headerTimeout.nanoseconds
                } else {
                    next = MonotonicClock.now() + config.idleTimeout.nanoseconds
                }
            case .readingBody: next = bodyStartedAt + config.bodyTimeout.nanoseconds
            case .draining: next = drainStartedAt + config.drainTimeout.nanoseconds
            case .responding, .closing, .closed: next = 0
            }
        }
        deadlineLock.lock()
        deadline = next
        deadlineLock.unlock()
    }

    /// Called by the sweeper on its own queue: queues `onTimeout` once when the deadline passed.
    func sweep(now: UInt64) {
        deadlineLock.lock()
        let expired = deadline != 0 && now >= deadline && !timeoutQueued
        if expired { timeoutQueued = true }
        deadlineLock.unlock()
        if expired { loop.execute { [self] in onTimeout() } }
    }

    private func onTimeout() {
        deadlineLock.lock()
        timeoutQueued = false
        let passed = deadline != 0 && MonotonicClock.now() >= deadline
        deadlineLock.unlock()
        guard passed, !offloaded else { return }
        if writeArmed {
            environment.logger.debug("write timeout; dropping connection", metadata: ["peer": .string(peer)])
            closeNow(abort: true)
            return
        }
        switch phase {
        case .awaitingHead where headStartedAt == 0:
            closeNow()  // idle keep-alive or a connection that never sent a byte: close silently
        case .awaitingHead:
            reject(.requestTimeout, detail: "The request head was not received in time.")
        case .readingBody:
            reject(.requestTimeout, detail: "The request body was not received in time.")
        case .draining, .closing:
            closeNow()
        case .responding, .closed:
            break
        }
        updateDeadline()
    }
}
