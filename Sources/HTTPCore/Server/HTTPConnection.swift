import Dispatch
import Foundation
import Logging
import Synchronization

/// One accepted TCP connection, served by one `EventLoop`: the I/O shell around its
/// `ConnectionStateMachine`, which decides everything; this class reads, parses, runs the
/// responder, writes and closes as the machine says.
///
/// Owners, checked in debug builds (`assertOnLoop`, `assertWorkerOwnsOutput`):
/// - the loop's serial `queue` owns the machine, the input and the output: reads, parsing,
///   inline responders and writes run there, one request at a time in arrival order
///   (RFC 9112 §9.3);
/// - while the machine is offloaded, the worker thread owns `output` and the send side (a
///   responder that may block, a streamed body); the loop serves none of the connection's
///   events (the first one takes it out of the epoll set) until the worker hands it back with
///   `loop.execute`;
/// - only `deadline` is shared, with the server's sweeper, under `deadlineLock`.
///
/// `@unchecked Sendable`: it crosses to a worker thread and the sweeper, which touch only what
/// the list above gives them.
final class HTTPConnection: @unchecked Sendable {
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
    /// The machine's deadline as last published for the sweeper; 0 for none.
    private var deadline: UInt64 = 0
    /// The sweeper queued `onTimeout` and it has not run yet.
    private var timeoutQueued = false
    /// Since when the connection has been idle between requests (``ConnectionStateMachine/isIdle(inputIsEmpty:)``,
    /// with nothing left to send), in `MonotonicClock` nanoseconds; 0 while it is not: set when
    /// the loop publishes its deadline, cleared by every read that brings bytes (before they
    /// are parsed, so a request answered on the loop never looks idle). Atomic: the server reads
    /// it off the loop to choose a connection to close at its cap, and a read costs one store.
    let idleSince = Atomic<UInt64>(0)

    // `@exclusivity(unchecked)`: the loop's alone (`assertOnLoop`), never borrowed across a call
    // that could touch it again, so the runtime's per-access check (a thread-local set insert
    // on every event) is skipped.
    @exclusivity(unchecked) var machine: ConnectionStateMachine
    let input = InputBuffer()
    // `@exclusivity(unchecked)`: the serving thread's alone (the loop's, or the worker's while
    // offloaded, see `assertWorkerOwnsOutput`), never while borrowed, so the runtime's
    // per-access check (a thread-local set insert) is skipped.
    @exclusivity(unchecked) var output: [UInt8] = []
    var outputSent = 0
    /// The socket's unacknowledged bytes (``Socket/unacknowledgedBytes()``) after the last send
    /// that made progress while a send is blocked: when the write timeout comes, fewer mean
    /// that the client went on reading, though too slowly for the socket to be reported
    /// writable, and the timeout starts again. The loop's alone.
    var unacknowledgedAtProgress: Int?
    var writer: HTTPResponseWriter
    /// "<server prefix>-<connection id>-", the fixed part of this connection's request ids.
    let requestIdStem: String
    /// What `loop` has registered for this connection's descriptor.
    var registeredInterest = EventLoop.Interest.none
    var bodyHead: HTTPRequestHead?
    var bodyDecoder: HTTPBodyDecoder?
    var body: [UInt8] = []
    /// What responders keep for this connection (`RequestContext.connection`).
    let storage = ConnectionStorage()
    /// The peer and the logger every request context of this connection starts from.
    private(set) lazy var contextOrigin = RequestContext.Origin(
        remoteAddress: peer, logger: environment.logger, loggerCarriesId: false)
    #if DEBUG
    /// Whether the worker thread owns `output` now: set by the loop as it hands the output over
    /// and as it takes it back, read by the worker in between (debug builds only).
    var workerOwnsOutput = false
    #endif

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
        self.machine = ConnectionStateMachine(settings: .init(environment.configuration))
        self.writer = HTTPResponseWriter(serverName: environment.configuration.serverName)
        self.requestIdStem = environment.requestIdPrefix + "-" + String(id, radix: 36) + "-"
        output.reserveCapacity(1024)
        #if DEBUG
        storage.ownerCheck = { [weak self] in self?.assertServing() }
        #endif
    }

    /// Starts reading; called once by the server right after `accept`.
    func start() {
        loop.execute { [self] in
            // A shutdown that began between accept and here may have closed it already.
            if machine.isClosed { return }
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
            if machine.isClosed { return }
            loop.register(self)
            reject(.tooManyRequests, detail: detail, headers: ["Retry-After": "1"])
            updateDeadline()
        }
    }

    // MARK: Ownership

    /// Stops a debug build when the caller is not on the loop that owns the connection.
    @inline(__always) func assertOnLoop(file: StaticString = #file, line: UInt = #line) {
        loop.owner.assertCurrent("an HTTP connection", file: file, line: line)
    }

    /// Stops a debug build unless the worker thread owns the output and the caller is off the
    /// loop: a streamed body's writes and blocking flushes.
    @inline(__always) func assertWorkerOwnsOutput() {
        #if DEBUG
        loop.owner.assertNotCurrent("a streamed body's output")
        precondition(workerOwnsOutput, "HTTP connection: the worker touched output the loop owns")
        #endif
    }

    /// Stops a debug build unless the caller is on the loop and the loop owns the output (no
    /// worker was handed it): what the loop reads of `output` between requests.
    @inline(__always) func assertLoopOwnsOutput() {
        #if DEBUG
        assertOnLoop()
        precondition(!workerOwnsOutput, "HTTP connection: the loop read output a worker owns")
        #endif
    }

    /// The answers' bytes queued and not sent yet, read on the loop while it owns them.
    var unsentOutputBytes: Int {
        assertLoopOwnsOutput()
        return output.count - outputSent
    }

    /// Stops a debug build unless the caller serves the current request: on the loop, or off
    /// it while the worker owns the connection (`ConnectionStorage`).
    @inline(__always) func assertServing() {
        #if DEBUG
        if workerOwnsOutput {
            loop.owner.assertNotCurrent("connection storage of a request on the worker")
        } else {
            loop.owner.assertCurrent("connection storage of a request on the loop")
        }
        #endif
    }

    /// Hands `output` and the send side to a worker thread, or takes them back (debug builds
    /// record it; release builds compile this away).
    @inline(__always) func handOutput(toWorker: Bool) {
        #if DEBUG
        assertOnLoop()
        workerOwnsOutput = toWorker
        #endif
    }

    // MARK: Read source control

    /// Tells the loop what this connection waits for now, as the machine says.
    func updateInterest() {
        loop.setInterest(of: self, to: machine.interest)
    }

    // MARK: Deadlines

    /// Publishes the machine's next deadline for the server's sweeper, and whether the
    /// connection is idle for the server's reclaiming.
    func updateDeadline() {
        let next = machine.deadline(now: MonotonicClock.now)
        if !isIdle {
            idleSince.store(0, ordering: .relaxed)
        } else if idleSince.load(ordering: .relaxed) == 0 {
            idleSince.store(MonotonicClock.now(), ordering: .relaxed)
        }
        deadlineLock.lock()
        deadline = next
        deadlineLock.unlock()
    }

    /// Whether closing now loses nothing: idle between requests, and every byte of the last
    /// answer sent. On the loop.
    private var isIdle: Bool {
        // The machine first: while a worker owns the output, it is not idle and `output` is
        // not the loop's to read.
        machine.isIdle(inputIsEmpty: input.isEmpty) && outputSent >= output.count
    }

    /// Since when the connection has been idle between requests (`MonotonicClock`), nil while
    /// it is not; read by the server off the loop.
    var idleStart: UInt64? {
        let since = idleSince.load(ordering: .relaxed)
        return since == 0 ? nil : since
    }

    /// The server is at its connection cap and chose this connection, the longest idle, to
    /// make room: closed on its loop if it is still idle there, else the server is told to
    /// look again (``HTTPServer/reclaimDeclined(_:)``).
    func reclaimIfIdle() {
        loop.execute { [self] in
            guard machine.state != .closed else { return }
            // Bytes the kernel holds and the loop has not read yet are a request on its way:
            // closing over them would reset the connection and lose it.
            if isIdle, socket.unreadBytes() == 0 {
                environment.logger.debug("idle connection closed to make room", metadata: ["peer": .string(peer)])
                server.reclaimed()
                closeNow()
            } else {
                idleSince.store(0, ordering: .relaxed)
                server.reclaimDeclined(self)
            }
        }
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
        assertOnLoop()
        deadlineLock.lock()
        timeoutQueued = false
        let passed = deadline != 0 && MonotonicClock.now() >= deadline
        deadlineLock.unlock()
        guard passed else { return }
        switch machine.timerFired() {
        case .ignore: return
        case .abort:
            if let before = unacknowledgedAtProgress, let now = socket.unacknowledgedBytes(), now < before {
                unacknowledgedAtProgress = now
                machine.sent(now: MonotonicClock.now)  // the client's reading is progress too
                updateDeadline()
                return
            }
            environment.logger.debug("write timeout; dropping connection", metadata: ["peer": .string(peer)])
            closeNow(abort: true)
            return
        case .close: closeNow()
        case .rejectHead: reject(.requestTimeout, detail: "The request head was not received in time.")
        case .rejectBody:
            reject(.requestTimeout, detail: "The request body was not received in time.", head: bodyHead)
        }
        updateDeadline()
    }
}
