import Dispatch
import Foundation
public import Logging
internal import Ownership

#if canImport(Glibc)
internal import Glibc
#endif

/// An HTTP/1.1 server on non-blocking sockets and Dispatch. One accept source hands
/// connections round-robin to `eventLoops` event loops (each an epoll set watched by one
/// Dispatch read source, see `EventLoop`); responders that may block run on a shared pool of
/// worker threads (`WorkerPool`); one shared timer sweeps connection deadlines. See `HTTPServerConfiguration` for
/// every bound.
///
/// `@unchecked Sendable`: every stored `var` is guarded by `lock`, except what one queue owns:
/// `nextConnectionId` and accepting are `acceptQueue`'s, the sweep is `controlQueue`'s (both
/// checked in debug builds).
///
/// ```swift
/// let server = HTTPServer(configuration: config, responder: router.buildResponder(), logger: logger)
/// try server.start()
/// signals.serve { _ in server.shutdown() }  // a ShutdownSignals made first thing in main
/// server.waitUntilStopped()
/// ```
public final class HTTPServer: @unchecked Sendable {
    enum State { case idle, running, shuttingDown, stopped }

    public let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger

    let lock = NSCondition()
    var state = State.idle
    var forceClosing = false
    var listener: Socket?
    var boundPort = 0
    var acceptSource: (any DispatchSourceRead)?
    var acceptSuspended = false
    var connections: [ObjectIdentifier: HTTPConnection] = [:]
    /// Connections per remote address, against `maxConnectionsPerAddress`.
    var addressShares: AddressShares
    /// Connections answered 429 or closed at once for being over their address's share.
    var refusedCount: UInt64 = 0
    /// The idle connection being closed to make room at the cap, at most one at a time.
    var reclaiming: ObjectIdentifier?
    /// Idle connections closed to make room for new ones at the cap.
    var reclaimedCount: UInt64 = 0
    /// When the last out-of-descriptors warning was logged (``MonotonicClock``), 0 before any:
    /// at most one each ``descriptorWarningInterval`` while accepting keeps failing.
    private var lastDescriptorWarning: UInt64 = 0
    private static let descriptorWarningInterval: UInt64 = 10_000_000_000
    var sweepTimer: (any DispatchSourceTimer)?
    var stopContinuations: [CheckedContinuation<Void, Never>] = []
    var environment: ServerEnvironment?
    var loops: [EventLoop] = []
    let acceptQueue = DispatchQueue(label: "http.accept")
    let controlQueue = DispatchQueue(label: "http.control")
    /// Mark the two queues, so debug builds can check what runs on them.
    let acceptOwner: QueueOwner
    let controlOwner: QueueOwner
    /// Used only on `acceptQueue` (`acceptPending`).
    var nextConnectionId: UInt64 = 0

    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - responder: what answers each request, usually a middleware chain around a router.
    ///   - logger: the engine's logger; per-request copies carry `request-id`.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        addressShares = AddressShares(share: configuration.maxConnectionsPerAddress)
        acceptOwner = QueueOwner("the server's accept loop", marking: acceptQueue)
        controlOwner = QueueOwner("the server's control", marking: controlQueue)
    }

    /// The bound port (the real one when the configuration asked for port 0); 0 before `start()`.
    public var localPort: Int {
        lock.lock()
        defer { lock.unlock() }
        return boundPort
    }

    /// The `epoll_ctl` calls that changed a connection's registration, over all the loops
    /// (`EventLoop.registrationChanges`, for tests).
    var registrationChanges: Int {
        lock.lock()
        defer { lock.unlock() }
        return loops.reduce(0) { $0 + $1.registrationChanges.load(ordering: .relaxed) }
    }

    /// Binds, listens and starts accepting. Ignores `SIGPIPE` for the process (sends also use
    /// `MSG_NOSIGNAL`).
    /// - Throws: `SocketError` when the address cannot be bound (in use, bad host, no permission).
    public func start() throws { try start(on: nil) }

    /// ``start()`` on `reserved`, bound before for the configuration's host and port, or on
    /// an address bound now when nil.
    /// - Throws: `SocketError` when the address cannot be bound or listened on.
    public func start(on reserved: consuming ReservedAddress?) throws {
        signal(SIGPIPE, SIG_IGN)
        lock.lock()
        guard state == .idle else {
            lock.unlock()
            throw SocketError(operation: "start", code: 0, message: "the server was already started")
        }
        lock.unlock()
        let socket: Socket
        switch consume reserved {
        case .some(let reserved):
            precondition(
                reserved.requestedPort == configuration.port,
                "an address reserved for port \(reserved.requestedPort) given to a server for port \(configuration.port)")
            socket = try reserved.listen(backlog: configuration.backlog)
        case .none:
            socket = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        }
        let port: Int
        do {
            port = try socket.localPort()
        } catch {
            _ = Glibc.close(socket.fd)
            throw error
        }
        var prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        while prefix.utf8.count < 8 { prefix = "0" + prefix }
        let environment = ServerEnvironment(
            configuration: configuration, responder: responder, logger: logger,
            parser: HTTPRequestParser(limits: configuration.limits),
            workers: WorkerPool(
                name: "http.worker", maximumThreads: max(1, configuration.maxConnections),
                minimumThreads: min(2, max(1, configuration.maxConnections))),
            requestIdPrefix: prefix)

        var loops: [EventLoop] = []
        do {
            for index in 0..<max(1, configuration.eventLoops) {
                loops.append(try EventLoop(index: index, hold: configuration.eventLoopHold, logger: logger))
            }
        } catch {
            for loop in loops { loop.stop() }
            _ = Glibc.close(socket.fd)
            throw error
        }

        let source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending() }
        source.setCancelHandler { [self] in
            do { try socket.close() } catch { logger.warning("closing the listener failed", metadata: ["error": "\(error)"]) }
        }
        let timer = DispatchSource.makeTimerSource(queue: controlQueue)
        let interval = configuration.sweepInterval.nanoseconds
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)), leeway: .milliseconds(20))
        timer.setEventHandler { [self] in sweep() }

        lock.lock()
        self.environment = environment
        listener = socket
        boundPort = port
        acceptSource = source
        sweepTimer = timer
        self.loops = loops
        state = .running
        lock.unlock()
        for loop in loops { loop.start() }
        timer.resume()
        source.resume()
        logger.info("listening", metadata: ["host": .string(configuration.host), "port": .stringConvertible(port)])
    }

    /// Accepts every pending connection, stopping at the connection cap: the accept source is
    /// suspended and the kernel backlog holds the rest until a connection closes. At the cap the
    /// connection idle the longest between requests (a keep-alive one waiting for its next
    /// request, or a new one that sent nothing) is closed to make room, one at a time
    /// (RFC 9112 §9.5), so that clients holding idle connections cannot keep others out; with
    /// none idle the backlog waits. A connection over its address's share (`AddressShares`) is
    /// answered 429 and closed, or beyond the refusals in flight closed at once.
    func acceptPending() {
        acceptOwner.assertCurrent("accepting (and nextConnectionId)")
        while true {
            lock.lock()
            guard state == .running, let listener, let environment, !loops.isEmpty else {
                lock.unlock()
                return
            }
            let loop = loops[Int(nextConnectionId % UInt64(loops.count))]
            if connections.count >= configuration.maxConnections {
                if !acceptSuspended, let acceptSource {
                    acceptSource.suspend()
                    acceptSuspended = true
                }
                // Only for a connection that is there: the source may have fired for one that
                // gave up since.
                let idle = reclaiming == nil && listener.isReadableNow() ? longestIdleConnection() : nil
                if let idle { reclaiming = ObjectIdentifier(idle) }
                lock.unlock()
                idle?.reclaimIfIdle()
                return
            }
            lock.unlock()
            let accepted: (socket: Socket, peer: String, address: String)?
            do {
                accepted = try listener.accept()
            } catch {
                // Back off briefly instead of spinning on a listener that stays readable.
                if let failure = error as? SocketError, failure.code == EMFILE || failure.code == ENFILE {
                    // Out of descriptors before the connection cap: as at the cap, the connection
                    // idle the longest makes room, so that idle clients cannot keep others out.
                    lock.lock()
                    let idle = reclaiming == nil ? longestIdleConnection() : nil
                    if let idle { reclaiming = ObjectIdentifier(idle) }
                    let open = connections.count
                    let now = MonotonicClock.now()
                    let warn = now &- lastDescriptorWarning >= Self.descriptorWarningInterval || lastDescriptorWarning == 0
                    if warn { lastDescriptorWarning = now }
                    lock.unlock()
                    if warn {
                        logger.warning(
                            "accept failed: the process is out of file descriptors before --max-connections; the connection idle the longest is closed to make room (raise the descriptor limit, or lower --max-connections)",
                            metadata: ["error": "\(error)", "connections": "\(open)"])
                    }
                    idle?.reclaimIfIdle()
                } else {
                    logger.error("accept failed", metadata: ["error": "\(error)"])
                }
                pauseAccepting(for: .milliseconds(100))
                return
            }
            guard let accepted else { return }
            lock.lock()
            let admission = addressShares.admit(accepted.address)
            if admission != .admitted { refusedCount += 1 }
            lock.unlock()
            if admission == .dropped {
                logger.debug("connection dropped: its address is over its share", metadata: ["peer": .string(accepted.peer)])
                do { try accepted.socket.close() } catch { logger.debug("close failed", metadata: ["error": "\(error)"]) }
                continue
            }
            do {
                try accepted.socket.setNoDelay()
                // A peer that vanished without a word (its host crashed, a NAT forgot it) is given
                // up once what was sent to it stays unacknowledged for the write timeout (at least
                // 10 s): an idle event stream's next heartbeat then frees its slot within that time.
                try accepted.socket.setUserTimeout(
                    milliseconds: Int(clamping: configuration.unacknowledgedTimeout.nanoseconds / 1_000_000))
            } catch {
                logger.debug("socket option failed", metadata: ["error": "\(error)"])
            }
            nextConnectionId += 1
            let connection = HTTPConnection(
                id: nextConnectionId, socket: accepted.socket, peer: accepted.peer, address: accepted.address,
                admission: admission, loop: loop, server: self, environment: environment)
            lock.lock()
            connections[ObjectIdentifier(connection)] = connection
            // A shutdown that began since the check above did not see this connection.
            let shuttingDown = state != .running
            lock.unlock()
            if admission == .admitted {
                connection.start()
            } else {
                let share = configuration.maxConnectionsPerAddress
                connection.refuse(
                    detail: "This address has \(share) connections open, its share of this server; reuse one "
                        + "(HTTP keep-alive) or retry once one has closed.")
            }
            if shuttingDown { connection.loop.execute { connection.beginShutdown() } }
        }
    }

    private func pauseAccepting(for delay: DispatchTimeInterval) {
        lock.lock()
        guard !acceptSuspended, let acceptSource else {
            lock.unlock()
            return
        }
        acceptSource.suspend()
        acceptSuspended = true
        lock.unlock()
        acceptQueue.asyncAfter(deadline: .now() + delay) { [self] in
            lock.lock()
            if acceptSuspended, state == .running, connections.count < configuration.maxConnections {
                acceptSuspended = false
                self.acceptSource?.resume()
            }
            lock.unlock()
        }
    }

    /// The connection idle the longest, nil when none is; the caller holds `lock`.
    private func longestIdleConnection() -> HTTPConnection? {
        var oldest: (connection: HTTPConnection, since: UInt64)?
        for connection in connections.values {
            guard let since = connection.idleStart, since < oldest?.since ?? .max else { continue }
            oldest = (connection, since)
        }
        return oldest?.connection
    }

    /// The connection chosen to make room was no longer idle on its loop: choose again (or wait
    /// for a close, when none is idle).
    func reclaimDeclined(_ connection: HTTPConnection) {
        lock.lock()
        if reclaiming == ObjectIdentifier(connection) { reclaiming = nil }
        lock.unlock()
        acceptQueue.async { [self] in acceptPending() }
    }

    /// The connection chosen to make room is closed for it (counted here, not when chosen: one
    /// that closes on its own first, or is no longer idle, was not reclaimed).
    func reclaimed() {
        lock.lock()
        reclaimedCount += 1
        lock.unlock()
    }

    /// Called by a connection right before its descriptor closes.
    func connectionDidClose(_ connection: HTTPConnection) {
        lock.lock()
        if reclaiming == ObjectIdentifier(connection) { reclaiming = nil }
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            addressShares.release(connection.address, connection.admission)
        }
        if acceptSuspended, state == .running, connections.count < configuration.maxConnections, let acceptSource {
            acceptSuspended = false
            acceptSource.resume()
        }
        let finished = state == .shuttingDown && connections.isEmpty
        lock.unlock()
        if finished { markStopped() }
    }

    /// One tick of the shared timer: hands each connection whose deadline passed its timeout,
    /// and at the cap, with a connection waiting in the backlog and none being closed for it,
    /// looks again for an idle one to make room (a connection that was busy when the waiting
    /// one came may be idle now).
    private func sweep() {
        controlOwner.assertCurrent("the deadline sweep")
        let now = MonotonicClock.now()
        lock.lock()
        for connection in connections.values { connection.sweep(now: now) }
        let lookAgain =
            acceptSuspended && state == .running && reclaiming == nil && connections.count >= configuration.maxConnections
        lock.unlock()
        if lookAgain { acceptQueue.async { [self] in acceptPending() } }
    }

    /// True once a graceful shutdown began; responses then carry `Connection: close`.
    var isShuttingDown: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state != .running
    }

    var isForceClosing: Bool {
        lock.lock()
        defer { lock.unlock() }
        return forceClosing
    }
}
