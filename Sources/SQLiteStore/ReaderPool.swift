import Foundation
internal import Ownership
import Synchronization

/// A pool of read-only connections. In WAL mode a reader works on its own snapshot and never
/// waits for the writer (https://www.sqlite.org/wal.html#concurrency).
///
/// Checkout and checkin are a lock and a free list; connections are opened lazily up to
/// ``DatabaseConfiguration/maximumReaderCount``, after which a reader waits for one to come back.
///
/// Every ``read(_:)`` body runs inside a deferred read transaction, so all its statements see
/// one snapshot. Starting and ending a read transaction costs SQLite a few system calls (the
/// WAL read lock in the `-shm` file, https://www.sqlite.org/walformat.html), more than a primary
/// key lookup itself. So a reader keeps its transaction open between checkouts for as long as
/// nothing was committed: the writer calls ``didCommit()`` after every commit (before its
/// callers return), which ends the transactions of idle readers, and a checked-out reader whose
/// snapshot predates the last commit starts a new one. A body therefore always sees every write
/// that completed before it started. Other processes (the `keys` and `migrate` subcommands on a
/// live file) do not call ``didCommit()``, so a snapshot is also ended once it is older than
/// ``maximumSnapshotAge``: their commits become visible within that time.
///
/// `Sendable` as checked by the compiler: the free list lives in a ``Guarded`` cell, and each
/// checkout is a loan of the connection (``Database/use``), so in debug builds a reader used
/// outside its ``read(_:)`` body, or by two threads, stops the process.
package final class ReaderPool: Sendable {
    private struct Idle {
        let database: Database
        /// The commit generation the reader's open transaction (if any) is current for.
        let generation: UInt64
        /// When the reader's open transaction began (monotonic nanoseconds).
        let snapshotStarted: UInt64
    }

    /// How long a reused read snapshot may live, in nanoseconds (100 ms): the bound on how late
    /// this process sees commits made by another process.
    package static let maximumSnapshotAge: UInt64 = 100_000_000

    private let path: String
    private let mode: Database.Mode
    private let configuration: DatabaseConfiguration
    private struct State {
        var idle: [Idle] = []
        var openCount = 0
        var generation: UInt64 = 0
        /// Readers blocked in checkout.
        var waiting = 0
        var closed = false
    }

    private let guarded = Guarded(State())

    /// Creates an empty pool; no connection is opened until the first read.
    /// - Parameters:
    ///   - path: the database file, which must exist (the writer creates it).
    ///   - mode: `.readOnly`, or `.immutable` for a file on read-only storage that no one writes.
    ///   - configuration: reader count, cache and mmap sizes, busy timeout.
    package init(path: String, mode: Database.Mode = .readOnly, configuration: DatabaseConfiguration) {
        precondition(mode != .readWrite, "a reader pool reads")
        self.path = path
        self.mode = mode
        self.configuration = configuration
    }

    /// Runs `body` with a read-only connection of its own, inside a read transaction that
    /// sees every commit made before the call.
    /// - Parameter body: reads; it must not begin or end transactions itself (one that ends
    ///   the read transaction stops the process: its later reads would not share its snapshot).
    package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        var (database, generation, started) = try checkout()
        defer { checkin(database, generation: generation, snapshotStarted: started) }  // on every path
        if !database.isInTransaction {
            try beginRead(database)
            started = Self.now()
        }
        let result = try body(database)
        precondition(database.isInTransaction, Database.endedTransaction("a read body"))
        return result
    }

    /// Like ``read(_:)``, but never on a reused snapshot: the read transaction starts now, so
    /// it also sees what other processes committed to the file (the audit chain verifier).
    /// - Parameters:
    ///   - keepingSnapshot: false to end the read transaction with `body`, so that the reader
    ///     holds no snapshot while idle (``DatabasePool/scan(_:)``).
    ///   - body: reads; like ``read(_:)``'s, it must leave the read transaction open.
    package func readLatest<Result>(keepingSnapshot: Bool = true, _ body: (Database) throws -> Result) throws -> Result {
        var (database, generation, started) = try checkout()
        defer { checkin(database, generation: generation, snapshotStarted: started) }  // on every path
        if database.isInTransaction { database.rollbackIgnoringErrors() }  // a read: nothing to undo
        try beginRead(database)
        started = Self.now()
        defer { if !keepingSnapshot { database.rollbackIgnoringErrors() } }  // before the checkin
        let result = try body(database)
        precondition(database.isInTransaction, Database.endedTransaction("a read body"))
        return result
    }

    /// Called by the writer after each commit: later reads must see it.
    package func didCommit() {
        guarded.withLock { access in
            access.state.generation &+= 1
            for reader in access.state.idle where reader.database.isInTransaction {
                // An idle reader: the pool holds it, under the lock.
                reader.database.use.lend { reader.database.rollbackIgnoringErrors() }  // nothing to undo
            }
        }
    }

    /// Closes the idle connections and refuses later reads; a reader checked out now is closed
    /// when it comes back. Part of a clean stop (``DatabasePool/close()``).
    package func close() {
        let dropped = guarded.withLock { access in
            access.state.closed = true
            defer { access.state.idle.removeAll() }
            access.broadcast()  // waiting readers see `closed` and fail
            return access.state.idle
        }
        for reader in dropped { reader.database.use.lend { reader.database.close() } }
    }

    /// The number of connections opened so far.
    package var connectionCount: Int {
        guarded.withLock { $0.state.openCount }
    }

    /// The number of connections checked out now (in a read, or held by a ``Lease``).
    package var checkedOutCount: Int {
        guarded.withLock { $0.state.openCount - $0.state.idle.count }
    }

    /// Takes an idle reader (ending its transaction when a commit happened since it began) or
    /// opens one; returns it with the current generation. With every reader out, waits for one
    /// at most the busy timeout, then throws `SQLITE_BUSY`.
    func checkout() throws -> (Database, UInt64, UInt64) {
        enum Found {
            case idle(Idle, generation: UInt64)
            case open(generation: UInt64)
        }
        let found = try guarded.withLock { (access) throws(SQLiteError) -> Found in
            var deadline: ContinuousClock.Instant?
            while true {
                if access.state.closed {
                    throw SQLiteError.misuse("the database is closed")
                }
                if let reader = access.state.idle.popLast() {
                    return .idle(reader, generation: access.state.generation)
                }
                if access.state.openCount < configuration.maximumReaderCount {
                    access.state.openCount += 1
                    return .open(generation: access.state.generation)
                }
                // Bounded (the busy timeout): a reader kept out by a stuck body must not stop every
                // read, the event loops' included.
                let limit = deadline ?? .now + .milliseconds(configuration.busyTimeoutMilliseconds)
                deadline = limit
                access.state.waiting += 1
                let signalled = access.wait(until: limit)
                access.state.waiting -= 1
                if !signalled && access.state.idle.isEmpty && !access.state.closed
                    && access.state.openCount >= configuration.maximumReaderCount
                {
                    throw SQLiteError.busy(
                        "no database reader became free within \(configuration.busyTimeoutMilliseconds) ms")
                }
            }
        }
        switch found {
        case .idle(let reader, let current):
            reader.database.use.enter()
            if reader.database.isInTransaction
                && (reader.generation != current || Self.now() &- reader.snapshotStarted > Self.maximumSnapshotAge)
            {
                reader.database.rollbackIgnoringErrors()
            }
            return (reader.database, current, reader.snapshotStarted)
        case .open(let current):
            do {
                let database = try Database(path: path, mode: mode, configuration: configuration)
                database.use.enter()
                return (database, current, 0)
            } catch {
                guarded.withLock { access in
                    access.state.openCount -= 1
                    access.signal()
                }
                throw error
            }
        }
    }

    func checkin(_ database: Database, generation snapshot: UInt64, snapshotStarted: UInt64) {
        database.use.leave()
        let closed = guarded.withLock { access in
            if access.state.closed { return true }
            if snapshot != access.state.generation && database.isInTransaction {
                // Stale: do not hold an old snapshot while idle.
                database.use.lend { database.rollbackIgnoringErrors() }
            }
            access.state.idle.append(Idle(database: database, generation: snapshot, snapshotStarted: snapshotStarted))
            if access.state.waiting > 0 { access.signal() }  // no system call when nobody waits
            return false
        }
        if closed { database.use.lend { database.close() } }
    }

    /// `BEGIN DEFERRED`, or in debug builds the fault a test asked for.
    @inline(__always)
    func beginRead(_ database: Database) throws {
        #if DEBUG
        if let fault = beginFaults.withLock({ faults -> SQLiteError? in
            guard faults.count > 0 else { return nil }
            faults.count -= 1
            return faults.error
        }) {
            throw fault
        }
        #endif
        try database.begin(.deferred)
    }

    #if DEBUG
    /// Tests only: the next `count` read transactions fail to begin with `error` (SQLite offers no
    /// way to make a `BEGIN DEFERRED` fail on demand).
    package func failNextBegins(_ count: Int, with error: SQLiteError) {
        beginFaults.withLock { $0 = (count, error) }
    }

    private let beginFaults = Mutex<(count: Int, error: SQLiteError?)>((0, nil))
    #endif

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
