import Dispatch
import Logging

internal import CEpoll
#if canImport(Glibc)
internal import Glibc
#endif

/// One epoll(7) set of connections, driven by a single Dispatch read source on the epoll
/// descriptor itself. When any connection is ready, the source's handler runs on `queue`,
/// takes up to `batchSize` ready connections with a non-blocking `epoll_wait` and serves them
/// in place: read, parse, answer (inline routes), write.
///
/// Why not a Dispatch read source per connection: on Linux, libdispatch re-arms a source after
/// every event (two `epoll_ctl` and one `ioctl(FIONREAD)`) and hands it from its event thread
/// to a worker thread, which measured ~6 system calls and ~1 context switch per keep-alive
/// request. Here registrations are level-triggered and change only when a connection's
/// interest changes (a blocked write, a handler running on the worker pool), so a request
/// costs one `read`, one `send`, and a share of one `epoll_wait` (see README, "Benchmarks").
///
/// Every method except `init` and `start` runs on `queue`, which owns the registrations.
final class EventLoop: @unchecked Sendable {
    /// Interest in readiness, as registered with epoll.
    struct Interest: Equatable {
        var read: Bool
        var write: Bool
        static let none = Interest(read: false, write: false)
    }

    static let batchSize = 256

    let queue: DispatchQueue
    private let epollFD: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private let logger: Logger
    private var source: (any DispatchSourceRead)?
    private var connections: [Int32: HTTPConnection] = [:]
    private var stopped = false
    /// True while `serveReady` works through a batch of ready connections.
    private(set) var isServingBatch = false
    /// Connections whose responses are sent when the batch ends (see `serveReady`).
    private var flushAtEnd: [HTTPConnection] = []

    /// - Throws: `SocketError` when `epoll_create1` fails (descriptor limit).
    init(index: Int, logger: Logger) throws {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SocketError.lastError("epoll_create1") }
        epollFD = fd
        events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Self.batchSize)
        queue = DispatchQueue(label: "http.loop.\(index)")
        self.logger = logger
    }

    deinit { events.deallocate() }

    func start() {
        let source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
        source.setEventHandler { [self] in serveReady() }
        source.setCancelHandler { [epollFD] in _ = Glibc.close(epollFD) }
        self.source = source
        source.resume()
    }

    /// Stops watching and closes the epoll descriptor (once the source is cancelled, or at once
    /// for a loop that never started). Connections still registered are left to their own
    /// close, which then skips epoll.
    func stop() {
        queue.async { [self] in
            guard !stopped else { return }
            stopped = true
            if let source {
                source.cancel()
                self.source = nil
            } else {
                _ = Glibc.close(epollFD)
            }
        }
    }

    /// Adds the connection (reading) to the set.
    func register(_ connection: HTTPConnection) {
        guard !stopped else { return }
        connections[connection.socket.fd] = connection
        setInterest(of: connection, to: Interest(read: true, write: false))
    }

    /// Removes the connection before its descriptor closes, so a reused descriptor number never
    /// reaches the old connection.
    func deregister(_ connection: HTTPConnection) {
        setInterest(of: connection, to: .none)
        connections[connection.socket.fd] = nil
    }

    /// Registers, changes or removes the connection's interest. With no interest the
    /// descriptor leaves the set: epoll reports hang-ups and errors even for an empty mask,
    /// and a level-triggered hang-up nobody reads would spin the loop.
    func setInterest(of connection: HTTPConnection, to interest: Interest) {
        let current = connection.registeredInterest
        guard interest != current, !stopped else { return }
        let fd = connection.socket.fd
        let status: Int32
        if interest == .none {
            status = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        } else {
            var event = epoll_event()
            event.events = (interest.read ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (interest.write ? EPOLLOUT.rawValue : 0)
            event.data.fd = fd
            status = epoll_ctl(epollFD, current == .none ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        }
        if status != 0 {
            let error = SocketError.lastError("epoll_ctl")
            logger.error("epoll_ctl failed", metadata: ["fd": .stringConvertible(fd), "error": .string("\(error)")])
            return
        }
        connection.registeredInterest = interest
    }

    /// The source's handler: serves every ready connection, at most `batchSize` per round; a
    /// fuller set stays readable and the source fires again.
    private func serveReady() {
        guard !stopped else { return }
        let count = epoll_wait(epollFD, events, Int32(Self.batchSize), 0)
        guard count > 0 else { return }
        let errorMask = EPOLLERR.rawValue | EPOLLHUP.rawValue
        isServingBatch = true
        for index in 0..<Int(count) {
            let event = events[index]
            guard let connection = connections[event.data.fd] else { continue }
            let flags = event.events
            if flags & (EPOLLOUT.rawValue | errorMask) != 0, connection.registeredInterest.write {
                connection.onWritable()
            }
            if flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | errorMask) != 0, connection.registeredInterest.read {
                connection.onReadable()
            }
        }
        isServingBatch = false
        flushWaiting()
    }

    /// The most responses held back within a batch: enough that one wake-up of the client covers
    /// many, few enough that the first of them waits at most this many requests' work.
    static let flushGroup = 32

    private func flushWaiting() {
        for connection in flushAtEnd { connection.flushAfterBatch() }
        flushAtEnd.removeAll(keepingCapacity: true)
    }

    /// Sends `connection`'s responses when the current batch ends, together with the others.
    ///
    /// Sending each response as soon as it is ready wakes a waiting client once per response,
    /// and a wake-up across CPUs (an interrupt to the other core, a VM exit under
    /// virtualization) cost more than the request itself. Sent back to back, the first send
    /// wakes the client and the rest find it awake. A batch holds the connections that were
    /// ready at once, so the wait is the time to serve them, which at low load is one request,
    /// and at most `flushGroup` requests' work in a large batch.
    func flushAfterBatch(_ connection: HTTPConnection) {
        flushAtEnd.append(connection)
        if flushAtEnd.count >= Self.flushGroup { flushWaiting() }
    }
}
