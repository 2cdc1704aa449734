internal import CEpoll
import Dispatch
import Logging
internal import Ownership
import Synchronization

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
/// costs one `read`, one `send`, and a share of one `epoll_wait` (see bench/RESULTS.md).
///
/// While traffic flows the loop keeps its thread (`hold`): after a batch it waits in a blocking
/// `epoll_wait` for the next one instead of returning to Dispatch. A Dispatch wake-up costs an
/// event thread's `epoll_wait`, a re-arm and a hand-off to a worker thread, with a `futex` and
/// an `epoll_ctl` each (at a paced load the hold cut CPU per request by 8-14% and p50 by 8-17%,
/// see bench/RESULTS.md); a ready socket wakes the held thread directly. After `hold` with
/// nothing ready, the loop hands the thread back and waits through its read source again.
/// Work for the loop from other threads goes through `execute`:
/// a mailbox and an eventfd(2) in the epoll set, which wakes a held loop and fires the read
/// source of one waiting on Dispatch alike. (Not `queue.async`: a block queued behind a held
/// loop would wait for the hold to end.)
///
/// Every method except `init`, `start`, `execute` and `stop` runs on `queue`, which owns the
/// registrations (checked in debug builds, `assertOnQueue`).
///
/// `@unchecked Sendable`: `execute` and `stop` are called from any thread and touch only the
/// mailbox (a `Mutex`) and the eventfd, which is open for the loop's lifetime; everything else
/// is `queue`'s.
final class EventLoop: @unchecked Sendable {
    /// Interest in readiness, as registered with epoll.
    struct Interest: Equatable {
        var read: Bool
        var write: Bool
        static let none = Interest(read: false, write: false)
    }

    static let batchSize = 256

    let queue: DispatchQueue
    /// Marks `queue`, so debug builds can check that the loop's state is touched there.
    let owner: QueueOwner
    private let epollFD: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private let logger: Logger
    private var source: (any DispatchSourceRead)?
    // `@exclusivity(unchecked)`: only the loop's thread touches it, never while it is borrowed,
    // so the runtime's per-access check (a thread-local set insert, on every request) is skipped.
    @exclusivity(unchecked) private var connections: [Int32: HTTPConnection] = [:]
    private var stopped = false
    /// True while `serveReady` works through a batch of at least `groupedBatch` ready
    /// connections, whose responses are sent when the batch ends (`flushAfterBatch`).
    private(set) var groupsResponses = false
    /// Connections whose responses are sent when the batch ends (see `flushAfterBatch`).
    @exclusivity(unchecked) private var flushAtEnd: [HTTPConnection] = []
    /// `epoll_wait`'s timeout while the loop holds its thread, in milliseconds; 0 never holds.
    private let holdMilliseconds: Int32
    /// An eventfd(2) in the epoll set: `execute` writes it when the mailbox stops being empty.
    private let wakeFD: Int32
    /// Work for the loop from other threads (see `execute`).
    private let mailbox = Mutex(Mailbox())
    /// How many `epoll_ctl` calls changed a connection's registration: what tests read to see
    /// that a request handed off the loop and back changes none (`HTTPConnection.respond`).
    let registrationChanges = Atomic<Int>(0)

    private struct Mailbox: ~Copyable {
        var work: [@Sendable () -> Void] = []
        /// The read source runs (`start`); until then `stop` closes the descriptors itself.
        var started = false
        /// The loop stopped; its descriptors close once the source's cancel handler runs, so
        /// later work goes to `queue` instead.
        var closed = false
    }

    /// - Parameters:
    ///   - hold: how long the loop keeps its thread waiting for more work after a batch
    ///     (``HTTPServerConfiguration/eventLoopHold``); zero never holds.
    /// - Throws: `SocketError` when `epoll_create1` or `eventfd` fails (descriptor limit).
    init(index: Int, hold: Duration = .zero, logger: Logger) throws {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SocketError.lastError("epoll_create1") }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let error = SocketError.lastError("eventfd")
            _ = Glibc.close(fd)
            throw error
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wake
        guard epoll_ctl(fd, EPOLL_CTL_ADD, wake, &event) == 0 else {
            let error = SocketError.lastError("epoll_ctl")
            _ = Glibc.close(wake)
            _ = Glibc.close(fd)
            throw error
        }
        epollFD = fd
        wakeFD = wake
        holdMilliseconds = Int32(clamping: (hold.nanoseconds + 999_999) / 1_000_000)
        events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Self.batchSize)
        queue = DispatchQueue(label: "http.loop.\(index)")
        owner = QueueOwner("event loop \(index)", marking: queue, forbidsWaiting: true)
        self.logger = logger
    }

    /// The eventfd closes here rather than with the epoll set: `execute` writes it outside the
    /// mailbox's lock, from any thread that holds the loop.
    deinit {
        _ = Glibc.close(wakeFD)
        events.deallocate()
    }

    func start() {
        mailbox.withLock { $0.started = true }
        let source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
        source.setEventHandler { [self] in serveReady() }
        source.setCancelHandler { [epollFD] in _ = Glibc.close(epollFD) }
        self.source = source
        source.resume()
    }

    /// Runs `work` on the loop, after the work handed over before it. Callable from any thread.
    ///
    /// The first item in an empty mailbox writes the eventfd, which makes the epoll set
    /// readable: a held loop wakes from its `epoll_wait`, a loop waiting on Dispatch gets its
    /// source's handler. The loop empties the mailbox after every `epoll_wait`, so no item
    /// waits for a hold to end. After `stop`, work goes to `queue`, where nothing holds.
    ///
    /// The eventfd is written after the lock is released: the write wakes the loop's thread,
    /// which on the same core may run at once, and would then find the lock held, spin, and
    /// sleep in the kernel until this thread ran again (seen in `perf` as `_lockSlow` under
    /// `serveReady`). The descriptor stays open for as long as the loop exists (`deinit`), so
    /// the write never reaches a closed or reused descriptor.
    func execute(_ work: @escaping @Sendable () -> Void) {
        let outcome = mailbox.withLock { mailbox -> Handover in
            guard !mailbox.closed else { return .closed }
            mailbox.work.append(work)
            return mailbox.work.count == 1 ? .queuedFirst : .queued
        }
        switch outcome {
        case .queued: return
        case .queuedFirst:
            // It cannot fail short of a counter at 2^64 - 2.
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        case .closed: queue.async(execute: work)
        }
    }

    /// What `execute` did with an item.
    private enum Handover {
        /// Queued behind others: the eventfd was written for the first of them.
        case queued
        /// Queued in an empty mailbox: the loop has to be woken.
        case queuedFirst
        /// The loop stopped: the item goes to `queue`.
        case closed
    }

    /// Stops watching and closes the epoll descriptor (once the source is cancelled, or at once
    /// for a loop that never started). Connections still registered are left to their own
    /// close, which then skips epoll.
    func stop() {
        let started = mailbox.withLock { mailbox -> Bool in
            if !mailbox.started { mailbox.closed = true }
            return mailbox.started
        }
        guard started else {
            // No source, so nothing else waits on the epoll set (the eventfd closes in `deinit`).
            _ = Glibc.close(epollFD)
            return
        }
        execute { [self] in
            assertOnQueue()
            guard !stopped else { return }
            stopped = true
            // Work queued after this item's batch was taken would otherwise never run (nothing
            // reads the mailbox once the source is cancelled): a connection's close, a stream's
            // end. It goes to the queue, as later work does, under the lock that closes the
            // mailbox: after the rest of this batch, before anything queued later.
            mailbox.withLock { mailbox in
                mailbox.closed = true
                for item in mailbox.work { queue.async(execute: item) }
                mailbox.work.removeAll()
            }
            source?.cancel()
            source = nil
        }
    }

    /// Stops a debug build when the caller is not on `queue`, which owns the registrations,
    /// the connection table and the batch; release builds compile it away.
    @inline(__always) func assertOnQueue(
        _ what: @autoclosure () -> String = "the event loop's state", file: StaticString = #file, line: UInt = #line
    ) {
        owner.assertCurrent(what(), file: file, line: line)
    }

    /// Adds the connection (reading) to the set.
    func register(_ connection: HTTPConnection) {
        assertOnQueue()
        guard !stopped else { return }
        connections[connection.socket.fd] = connection
        setInterest(of: connection, to: Interest(read: true, write: false))
    }

    /// Removes the connection before its descriptor closes, so a reused descriptor number never
    /// reaches the old connection.
    func deregister(_ connection: HTTPConnection) {
        assertOnQueue()
        setInterest(of: connection, to: .none)
        connections[connection.socket.fd] = nil
    }

    /// Registers, changes or removes the connection's interest. With no interest the
    /// descriptor leaves the set: epoll reports hang-ups and errors even for an empty mask,
    /// and a level-triggered hang-up nobody reads would spin the loop.
    func setInterest(of connection: HTTPConnection, to interest: Interest) {
        assertOnQueue()
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
        registrationChanges.add(1, ordering: .relaxed)
        if status != 0 {
            let error = SocketError.lastError("epoll_ctl")
            logger.error("epoll_ctl failed", metadata: ["fd": .stringConvertible(fd), "error": .string("\(error)")])
            return
        }
        connection.registeredInterest = interest
    }

    /// The source's handler: serves every ready connection, at most `batchSize` per round (a
    /// fuller set stays readable and the source fires again), and the mailbox. When there was
    /// anything, it holds the thread: it goes on serving batches as they come, and returns to
    /// Dispatch once `hold` passes with nothing ready, or the loop stops.
    ///
    /// The mailbox is emptied after every `epoll_wait`, which may have reset the eventfd, so an
    /// item is never left behind without a write still pending for it.
    private func serveReady() {
        assertOnQueue()
        guard !stopped else { return }
        var handled = serveBatch(timeout: 0)
        runMailbox()
        guard handled > 0, holdMilliseconds > 0 else { return }
        while !stopped {
            handled = serveBatch(timeout: holdMilliseconds)
            runMailbox()
            if handled <= 0 { return }  // idle for the whole hold, interrupted, or epoll failed
        }
    }

    /// Runs the work `execute` left, in order.
    private func runMailbox() {
        let work = mailbox.withLock { mailbox -> [@Sendable () -> Void] in
            guard !mailbox.work.isEmpty else { return [] }
            defer { mailbox.work.removeAll(keepingCapacity: true) }
            return mailbox.work
        }
        for item in work { item() }
    }

    /// One `epoll_wait` (blocking up to `timeout` milliseconds) and the ready connections it
    /// returned; a batch of `groupedBatch` or more has its responses flushed at the end. Returns
    /// how many events it handled, 0 when it timed out or was interrupted, -1 when epoll failed.
    private func serveBatch(timeout: Int32) -> Int {
        let count = epoll_wait(epollFD, events, Int32(Self.batchSize), timeout)
        if count < 0 {
            if errno == EINTR { return 0 }
            logger.error("epoll_wait failed", metadata: ["error": .string("\(SocketError.lastError("epoll_wait"))")])
            return -1
        }
        guard count > 0 else { return 0 }
        let errorMask = EPOLLERR.rawValue | EPOLLHUP.rawValue
        var connectionsReady = Int(count)
        for index in 0..<Int(count) where events[index].data.fd == wakeFD { connectionsReady -= 1 }
        groupsResponses = connectionsReady >= Self.groupedBatch
        for index in 0..<Int(count) {
            let event = events[index]
            if event.data.fd == wakeFD {
                // Reset before the mailbox is read, so a later `execute` writes it again.
                var value: UInt64 = 0
                _ = Glibc.read(wakeFD, &value, 8)
                continue
            }
            guard let connection = connections[event.data.fd] else { continue }
            if connection.machine.isOffloaded {
                // Left registered when its request went off the loop (`HTTPConnection.respond`),
                // and not the loop's to serve until it comes back: out of the set until then.
                connection.updateInterest()
                continue
            }
            let flags = event.events
            if flags & (EPOLLOUT.rawValue | errorMask) != 0, connection.registeredInterest.write {
                connection.onWritable()
            }
            if flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | errorMask) != 0, connection.registeredInterest.read {
                connection.onReadable()
            }
        }
        groupsResponses = false
        flushWaiting()
        return Int(count)
    }

    /// The most responses held back within a batch: enough that one wake-up of the client covers
    /// many, few enough that the first of them waits at most this many requests' work.
    static let flushGroup = 32

    /// The fewest connections ready in one `epoll_wait` (the loop's own eventfd not counted)
    /// whose responses are held back until the batch ends. A smaller batch sends each response
    /// as soon as it is made: at a low load a request finds the loop's code out of the CPU's
    /// caches and costs several times its saturated cost, so holding the first response for the
    /// others would add their work to its latency for at most two saved wake-ups of the client
    /// (bench/RESULTS.md, "Status reads, one change at a time").
    static let groupedBatch = 4

    private func flushWaiting() {
        for connection in flushAtEnd { connection.flushAfterBatch() }
        flushAtEnd.removeAll(keepingCapacity: true)
    }

    /// Sends `connection`'s responses when the current batch ends, together with the others;
    /// only while `groupsResponses`.
    ///
    /// Sending each response as soon as it is ready wakes a waiting client once per response,
    /// and a wake-up across CPUs (an interrupt to the other core, a VM exit under
    /// virtualization) cost more than the request itself. Sent back to back, the first send
    /// wakes the client and the rest find it awake. A batch holds the connections that were
    /// ready at once, so the wait is the time to serve them: at least `groupedBatch` of them
    /// (smaller batches send at once), at most `flushGroup` requests' work.
    func flushAfterBatch(_ connection: HTTPConnection) {
        assertOnQueue()
        precondition(groupsResponses, "a response held back outside a grouped batch waits for the next batch")
        flushAtEnd.append(connection)
        if flushAtEnd.count >= Self.flushGroup { flushWaiting() }
    }
}
